"""`clarify import {mturk,labelstudio,csv} FILE` and `clarify export tasks`: crowd data in and out.

A thin layer over crowdsourcing.importing and crowdsourcing.export. A file with problems prints one
error line and the numbered problems (file:line [column]: message), exits with code 2 and writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from assistant.app.choices import TAG_SLOTS
from assistant.cli.common import FiniteFloat, check_output, echo, echo_json, run_with_progress
from assistant.errors import ValidationError

MAX_PROBLEMS_SHOWN = 50

if TYPE_CHECKING:
    from assistant.app.desk.crowd import ImportReport


def _report_problems(command: Callable[..., Any]) -> Callable[..., Any]:
    """Print a ValidationError as one line plus numbered problems (or JSON) and exit with code 2."""

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except ValidationError as exc:
            if kwargs.get("as_json"):
                echo_json(
                    {
                        "error": str(exc),
                        "problems": [
                            {"file": p.file, "line": p.line, "column": p.column, "message": p.message}
                            for p in exc.problems
                        ],
                    }
                )
            echo(f"error: {' '.join(str(exc).split())}", err=True)
            if len(exc.problems) < 2:  # the error line says it all: one refusal, one line
                raise SystemExit(2) from None
            for number, problem in enumerate(exc.problems[:MAX_PROBLEMS_SHOWN], start=1):
                echo(f"  {number}. {problem}", err=True)
            if len(exc.problems) > MAX_PROBLEMS_SHOWN:
                echo(f"  ... and {len(exc.problems) - MAX_PROBLEMS_SHOWN} more", err=True)
            raise SystemExit(2) from None

    return wrapper


def _import_options(command: Callable[..., Any]) -> Callable[..., Any]:
    from assistant.app.desk.crowd import DEFAULT_ALPHA, KINDS, SPLITS

    options = [
        click.argument("file", type=click.Path(dir_okay=True, path_type=Path)),
        click.option("--domain", "-d", "domain", required=True, help="Domain (knowledge base) to import into."),
        click.option(
            "--kind",
            type=click.Choice(KINDS),
            default=None,
            help="What the file holds; guessed from its columns when left out.",
        ),
        click.option(
            "--templates",
            type=click.Path(dir_okay=False, path_type=Path),
            default=None,
            help="JSON template set turning new tags into questions (default: the built-in one).",
        ),
        click.option(
            "--split",
            type=click.Choice(SPLITS),
            default="train",
            show_default=True,
            help="Split for imported queries whose file does not give one.",
        ),
        click.option(
            "--alpha",
            type=FiniteFloat(0),
            default=DEFAULT_ALPHA,
            show_default=True,
            help="Add-alpha smoothing of the reported answer distributions.",
        ),
        click.option("--json", "as_json", is_flag=True, help="Print the full import report as JSON."),
    ]
    for option in reversed(options):
        command = option(command)
    return _report_problems(command)


def _run_import(
    fmt: str,
    file: Path,
    domain: str,
    kind: str | None,
    templates: Path | None,
    split: str,
    alpha: float,
    as_json: bool,
) -> None:
    from assistant.app.desk.crowd import import_job

    job = import_job(file, domain, fmt, kind=kind, templates=templates, alpha=alpha, default_split=split)
    report = run_with_progress(job, f"importing {file.name}", as_json)
    if as_json:
        echo_json(report.to_dict())
    else:
        echo(format_report(report))


@click.group("import")
def import_group() -> None:
    """Import crowd data (queries, tag annotations, labels) into a domain, all or nothing.

    Importing the same file twice changes nothing. See `clarify export tasks` for task batches whose
    results these commands read back.
    """


@import_group.command("mturk")
@_import_options
def import_mturk(**options: Any) -> None:
    """Import an MTurk batch results CSV (Input.* / Answer.* columns, one row per assignment).

    \b
    Tag tasks:    Input.label, Input.tag_1..Input.tag_10, Answer.selected ("tag a|tag b" or "none of the above")
    Choice tasks: Input.label, Input.question, Input.options ("a|b|c"), Answer.choice (option or "not applicable")
    Query tasks:  Input.label, Answer.query
    Also HITId, AssignmentId, WorkerId; rejected assignments are skipped and reported.
    """
    _run_import("mturk", **options)


@import_group.command("labelstudio")
@_import_options
def import_labelstudio(**options: Any) -> None:
    """Import a Label Studio JSON export (tasks with choices / textarea results).

    Task data uses the MTurk variable names (label, tag_1.., question, options); cancelled annotations are
    skipped and reported.
    """
    _run_import("labelstudio", **options)


@import_group.command("csv")
@_import_options
def import_csv(**options: Any) -> None:
    """Import a plain CSV, TSV or JSONL file (.jsonl: one JSON object per line).

    \b
    queries: label, text, [split, worker, task]
    tags:    label, tag, answer, [kind, options, worker, task, count]
    labels:  label, [name, text, answer]   (creates the domain if it does not exist)
    """
    _run_import("csv", **options)


@click.group("export")
def export_group() -> None:
    """Export files for crowd workers."""


@export_group.command("tasks")
@click.option("--domain", "-d", "domain", required=True, help="Domain to make tasks for.")
@click.option("--out", "-o", "out", required=True, type=click.Path(path_type=Path), help="CSV file to write.")
@click.option(
    "--kind",
    type=click.Choice(["tags", "choices", "queries", "unanswered"]),
    default="tags",
    show_default=True,
    help="Tag ticking, multiple-choice or query-writing tasks, or labelling the questions people handed on.",
)
@click.option("--per-label", type=click.IntRange(1, 10_000), default=50, show_default=True, help="Tags per label.")
@click.option("--per-task", type=click.IntRange(1, 50), default=TAG_SLOTS, show_default=True, help="Tags per HIT.")
@click.option(
    "--all", "include_annotated", is_flag=True, help="Include label/tag pairs that crowd workers annotated already."
)
@click.option(
    "--layout",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write a matching MTurk HTML layout to this file.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def export_tasks_command(
    domain: str,
    out: Path,
    kind: str,
    per_label: int,
    per_task: int,
    include_annotated: bool,
    layout: Path | None,
    as_json: bool,
) -> None:
    """Write an MTurk-ready CSV of new crowd tasks for a domain, one row per HIT.

    Columns are MTurk input variables (label, label_name, label_text, tag_1..tag_10 / question, options);
    MTurk returns them as Input.* columns, which `clarify import mturk` reads back with the answers.
    """
    from assistant.app.desk.crowd import export_job

    check_output(out, "--out")
    check_output(layout, "--layout")
    summary = run_with_progress(
        export_job(domain, out, kind, per_label, per_task, include_annotated, layout), f"exporting {kind} tasks", True
    )
    if as_json:
        echo_json(summary)
        return
    echo(
        f"wrote {summary['tasks']} {kind} tasks for {summary['labels']} labels of {domain} -> {summary['file']}"
        + (f" (layout: {layout})" if layout else "")
    )


@export_group.command("unanswered")
@click.option("--domain", "-d", "domain", required=True, help="Domain whose handed-on questions to export.")
@click.option("--out", "-o", "out", required=True, type=click.Path(path_type=Path), help="CSV file to write.")
def export_unanswered_command(domain: str, out: Path) -> None:
    """Write the questions people handed on because nothing fitted (out of scope) as a CSV; `clarify export
    tasks --kind unanswered` turns them into a labelling batch."""
    from assistant.app.desk.crowd import export_unanswered_job

    check_output(out, "--out")
    summary = run_with_progress(export_unanswered_job(domain, out), "exporting unanswered questions", True)
    echo(f"wrote {summary['questions']} unanswered questions of {domain} -> {summary['file']}")


# ---- report formatting ----------------------------------------------------------------------------------
def format_report(report: ImportReport) -> str:
    """The import report as lines for the terminal: its headline, then ``ImportReport.summary`` rows."""
    rows = report.summary()
    if report.status == "already imported":
        return f"{report.headline}: {rows[0][1]}"
    return "\n".join([report.headline, *(f"  {heading:<10} {text}" for heading, text in rows)])
