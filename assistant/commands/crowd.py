"""`clarify import {mturk,labelstudio,csv} FILE` and `clarify export tasks`: crowd data in and out.

A thin layer over crowdsourcing.importing and crowdsourcing.export. A file with problems prints one
error line and the numbered problems (file:line [column]: message), exits with code 2 and writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any

import click

from assistant.commands.common import echo_json, run_with_progress
from assistant.domain import SPLITS
from assistant.errors import ConfigError, ValidationError
from assistant.store import KnowledgeBase
from crowdsourcing.importers import KINDS
from crowdsourcing.importers.base import TAG_SLOTS
from crowdsourcing.importing import DEFAULT_ALPHA, import_file

MAX_PROBLEMS_SHOWN = 50


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
            click.echo(f"error: {exc}", err=True)
            for number, problem in enumerate(exc.problems[:MAX_PROBLEMS_SHOWN], start=1):
                click.echo(f"  {number}. {problem}", err=True)
            if len(exc.problems) > MAX_PROBLEMS_SHOWN:
                click.echo(f"  ... and {len(exc.problems) - MAX_PROBLEMS_SHOWN} more", err=True)
            raise SystemExit(2) from None

    return wrapper


def _import_options(command: Callable[..., Any]) -> Callable[..., Any]:
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
            type=float,
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
    job = import_file(file, domain, fmt, kind=kind, templates=templates, alpha=alpha, default_split=split)
    report = run_with_progress(job, f"importing {file.name}", as_json)
    if as_json:
        echo_json(report)
    else:
        click.echo(format_report(report))


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
    type=click.Choice(["tags", "choices", "queries"]),
    default="tags",
    show_default=True,
    help="Tag ticking, multiple-choice or query-writing tasks.",
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
    from crowdsourcing.export import export_tasks, mturk_layout

    with KnowledgeBase.open(domain) as kb:
        loaded = kb.load_domain()
    summary = export_tasks(loaded, out, kind, per_label, per_task, skip_annotated=not include_annotated)
    if layout is not None:
        try:
            layout.write_text(mturk_layout(kind, per_task), encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot write the layout {layout}: {exc.strerror or exc}") from exc
        summary["layout"] = str(layout)
    if as_json:
        echo_json(summary)
        return
    click.echo(
        f"wrote {summary['tasks']} {kind} tasks for {summary['labels']} labels of {domain} -> {summary['file']}"
        + (f" (layout: {layout})" if layout else "")
    )


# ---- report formatting ----------------------------------------------------------------------------------
def format_report(report: dict) -> str:
    """A short human-readable summary of an import report."""
    head = f"{report['status']} {report['file']} ({report['format']}, {report['kind']}) into {report['domain']}"
    if report["status"] == "already imported":
        previous = report.get("previous_import") or {}
        return f"{head}: nothing changed (imported on {previous.get('imported_at')} as import #{previous.get('id')})"
    lines = [head]
    added = ", ".join(f"{v} {k}" for k, v in report["added"].items() if v) or "nothing new"
    lines.append(f"  added      {added}")
    if report["updated"].get("labels"):
        lines.append(f"  updated    {report['updated']['labels']} labels")
    skipped = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in report["skipped"].items() if v)
    if skipped:
        lines.append(f"  skipped    {skipped}")
    rejected = report.get("rejected_assignments") or []
    if rejected:
        lines.append(
            f"  rejected   {len(rejected)} assignments (skipped): " + ", ".join(r["assignment"] for r in rejected[:5])
        )
    for merge in report.get("merged_tags", [])[:10]:
        merged = ", ".join(repr(t) for t in merge["merged"])
        into = "existing question" if merge["existing_question"] else "new tag"
        lines.append(f"  merged     {merged} -> {merge['tag']!r} ({merge['reason']}; {into})")
    if report.get("new_questions"):
        lines.append(
            f"  questions  {len(report['new_questions'])} new: "
            + "; ".join(q["text"] for q in report["new_questions"][:5])
        )
    induced = report.get("induced_replaced", {})
    if induced.get("count"):
        lines.append(
            f"  replaced   induced annotations of {induced['count']} questions: {', '.join(induced['tags'][:8])}"
        )
    for kind, result in report.get("agreement", {}).get("overall", {}).items():
        kappa = "n/a" if result["kappa"] is None else f"{result['kappa']:.3f}"
        observed = "n/a" if result["observed_agreement"] is None else f"{result['observed_agreement']:.3f}"
        lines.append(
            f"  agreement  {kind}: {result['method']} kappa {kappa}, observed {observed} "
            f"({result['items']} items, {result['raters']} workers)"
        )
    distributions = report.get("answer_distributions")
    if distributions and distributions.get("mean_entropy_bits") is not None:
        lines.append(
            f"  p_hat      {distributions['pairs']} label/question pairs, mean entropy "
            f"{distributions['mean_entropy_bits']:.3f} bits (alpha {distributions['alpha']})"
        )
    if report.get("ignored_columns"):
        lines.append(f"  ignored    columns {', '.join(report['ignored_columns'][:8])}")
    return "\n".join(lines)
