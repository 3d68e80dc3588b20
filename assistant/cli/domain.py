"""`clarify domain list|build|stats|create|update`."""

from __future__ import annotations

from pathlib import Path

import click

from assistant.app.choices import BUNDLED_DOMAINS, FORMATS
from assistant.cli.common import echo, echo_json, run_with_progress
from assistant.cli.crowd import _report_problems
from assistant.errors import ClarifyError, ValidationError
from assistant.paths import RELEASE_DIR
from assistant.settings import MAX_TITLE_CHARS


@click.group()
def domain() -> None:
    """List, build and inspect knowledge bases (domains)."""


@domain.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def list_domains(as_json: bool) -> None:
    """Show bundled and built domains."""
    from assistant.app.desk.listing import available_domains

    entries = sorted(available_domains(), key=lambda entry: entry.name)
    built = {entry.name for entry in entries if entry.built}
    rows = [
        {
            "name": entry.name,
            "bundled": entry.name in BUNDLED_DOMAINS,
            "built": entry.built,
            "description": BUNDLED_DOMAINS.get(entry.name, "imported domain"),
        }
        for entry in entries
    ]
    if as_json:
        echo_json(rows)
        return
    for row in rows:
        state = "built" if row["built"] else "not built"
        echo(f"{row['name']:<12} {state:<10} {row['description']}")
    if not built:
        echo("\nBuild one with: clarify domain build faq")


@domain.command("build")
@click.argument("name")
def build(name: str) -> None:
    """Build (or refresh) the bundled domain NAME from the files shipped with Clarify.

    Rebuilding keeps imported crowd data and sessions.
    """
    from assistant.app.desk.domains import build_job

    stats = run_with_progress(build_job(name), f"building {name}")
    q = stats["questions"]
    echo(
        f"built {name}: {stats['labels']} labels, {q['binary']} binary + {q['choice']} multiple-choice questions, "
        f"{sum(stats['queries'].values())} queries, {stats['annotations']} annotations -> {stats['path']}"
    )


@domain.command("stats")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def stats(name: str, as_json: bool) -> None:
    """Counts of labels, questions, queries and annotations of domain NAME."""
    from assistant.app.desk.listing import domain_stats

    figures = domain_stats(name)
    if as_json:
        echo_json(figures)
        return
    q, s = figures["questions"], figures["queries"]
    echo(f"{figures['title']} ({figures['path']})")
    echo(f"  labels       {figures['labels']}")
    echo(f"  questions    {q['binary']} binary, {q['choice']} multiple-choice ({figures['induced_questions']} induced)")
    echo(f"  queries      {s['train']} train, {s['dev']} dev, {s['test']} test")
    echo(f"  annotations  {figures['annotations']} rows " + str(figures["annotations_by_source"]))
    echo(f"  answers      {figures['label_answers']} attached answer texts")
    echo(f"  imports      {figures['imports']} files; sessions {figures['sessions']}")


@domain.command("questions")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print the questions as JSON.")
@click.option("--hide", "hide", multiple=True, metavar="TAG", help="Never ask the question TAG (repeatable).")
@click.option("--show", "show", multiple=True, metavar="TAG", help="Ask the hidden question TAG again (repeatable).")
@click.option(
    "--reword", "reword", nargs=2, multiple=True, metavar="TAG TEXT", help='Ask TAG as TEXT ("New question?").'
)
@click.option(
    "--reword-option",
    "reword_option",
    nargs=3,
    multiple=True,
    metavar="TAG OLD NEW",
    help="Show the option OLD of the multiple-choice question TAG as NEW.",
)
@click.option("--reset", "reset", multiple=True, metavar="TAG", help="Undo every change to TAG.")
def questions(name: str, as_json: bool, hide, show, reword, reword_option, reset) -> None:
    """List every question of domain NAME (tag, text, kind, options, induced, hidden, reworded), or change
    how they are asked: hide, show, reword a question or an option. Changes are kept in the knowledge base
    and survive rebuilds and imports; models trained before a question was hidden count as stale."""
    from assistant.app.desk import questions as reviews

    changes = [
        *((f"hidden {tag}", lambda t=tag: reviews.set_hidden(name, t, True)) for tag in hide),
        *((f"shown {tag}", lambda t=tag: reviews.set_hidden(name, t, False)) for tag in show),
        *((f"reworded {tag}", lambda t=tag, x=text: reviews.reword_question(name, t, x)) for tag, text in reword),
        *(
            (f"reworded option {old!r} of {tag}", lambda t=tag, o=old, n=new: reviews.reword_option(name, t, o, n))
            for tag, old, new in reword_option
        ),
        *((f"reset {tag}", lambda t=tag: reviews.reset_question(name, t)) for tag in reset),
    ]
    for message, change in changes:
        entry = change()
        if not as_json:
            echo(f"{message}: {entry.text}" + (f" [{' / '.join(entry.options)}]" if entry.kind == "choice" else ""))
    if changes and not as_json:
        return
    entries = reviews.list_questions(name)
    if as_json:
        echo_json([entry.to_dict() for entry in entries])
        return
    echo(render_questions(entries))


def render_questions(entries) -> str:
    """The plain-text listing of `clarify domain questions`: a summary line, then per question its tag, kind
    and flags, its text and (multiple choice) its options."""
    binary = sum(e.kind == "binary" for e in entries)
    lines = [
        f"{len(entries)} questions ({binary} yes/no, {len(entries) - binary} multiple-choice, "
        f"{sum(e.induced for e in entries)} induced), {sum(e.hidden for e in entries)} hidden, "
        f"{sum(e.reworded for e in entries)} reworded"
    ]
    for e in entries:
        flags = ", ".join(f for f, on in (("induced", e.induced), ("HIDDEN", e.hidden), ("reworded", e.reworded)) if on)
        lines.append(
            f"\n{e.tag}  ({'yes/no' if e.kind == 'binary' else 'multiple choice'}{', ' + flags if flags else ''})"
        )
        lines.append(f"    {e.text}")
        if e.kind == "choice":
            lines.append(f"    options: {' / '.join(e.options)}")
        if e.reworded:
            was = e.original_text + (f" [{' / '.join(e.original_options)}]" if e.kind == "choice" else "")
            lines.append(f"    was: {was}")
    return "\n".join(lines)


@domain.command("release-models")
@click.argument("names", nargs=-1, required=True)
@click.option(
    "--into",
    type=click.Path(file_okay=False, path_type=Path),
    default=RELEASE_DIR,
    show_default=True,
    help="Folder of the release models (one sub-folder per domain).",
)
@click.option(
    "--compare-with",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Another release folder (e.g. the shipped one): say whether each domain's weights are identical to its.",
)
def release_models(names: tuple[str, ...], into: Path, compare_with: Path | None) -> None:
    """Train the release models of bundled domains NAMES from fixed seeds and write them, with a manifest,
    into the package (run it in a fresh CLARIFY_HOME: `make release-models` does)."""
    from assistant.app.desk.domains import release_job
    from assistant.app.lifecycle.release import compare_releases

    differing = {}
    for name in names:
        manifest = run_with_progress(release_job(name, into), f"release models of {name}")
        size = sum(f["bytes"] for f in manifest["files"].values())
        echo(
            f"{name}: {len(manifest['files'])} files, {size / 1e6:.2f} MB, trained in "
            f"{manifest['training_seconds']:.0f} s -> {into / name}"
        )
        if compare_with is not None:
            differing[name] = compare_releases(name, into, compare_with)
            same = "identical weights" if not differing[name] else f"other weights: {', '.join(differing[name])}"
            echo(f"{name}: {same} to {compare_with / name}")
    if any(differing.values()):
        raise ClarifyError(
            f"the same seeds gave other weights than {compare_with}: the training is not reproducible on this "
            "machine (check the package versions against pyproject.toml), or the shipped release is stale "
            "(run make release-models and commit assistant/release/)"
        )


def _faq_options(command):
    options = [
        click.argument("name"),
        click.option(
            "--from",
            "source",
            required=True,
            help="The FAQ: a .csv/.tsv/.jsonl table, a Markdown file, or a folder of help articles.",
        ),
        click.option(
            "--format",
            "fmt",
            type=click.Choice(["auto", *FORMATS]),
            default="auto",
            show_default=True,
            help="How the FAQ is written (auto: a folder is articles, a file goes by its suffix).",
        ),
        click.option("--check", is_flag=True, help="Only read the FAQ and list what it holds; write nothing."),
        click.option("--json", "as_json", is_flag=True, help="Print the report (or the problems) as JSON."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _run_faq(name: str, source: str, fmt: str, check: bool, as_json: bool, update: bool, title: str = "") -> None:
    from assistant.app.desk.own_faq import check_title, create_domain_job, preview_faq

    check_title(title)  # every argument before any work
    if check:
        parsed = preview_faq(source, fmt)
        if parsed.problems or not parsed.entries:
            from assistant.errors import Problem

            problems = parsed.problems or [Problem(Path(source).name, None, None, "the FAQ has no entries")]
            raise ValidationError(problems, "fix them in the FAQ and run the command again")
        if as_json:
            echo_json({"entries": len(parsed.entries), "read": parsed.describe(), "ignored": parsed.ignored})
        else:
            echo(f"{source}: {parsed.describe()}; nothing written (--check)")
            for entry in parsed.entries[:5]:
                echo(f"  {entry.key}: {entry.title}")
            if len(parsed.entries) > 5:
                echo(f"  ... {len(parsed.entries) - 5} more")
        return
    verb = "updating" if update else "creating"
    report = run_with_progress(create_domain_job(name, source, fmt, title, update), f"{verb} {name}")
    if as_json:
        echo_json(report.to_dict())
        return
    stats = report.stats
    q = stats["questions"]
    echo(f"read {report.source}: {report.read}")
    if report.ignored:
        echo(f"  ignored: {', '.join(report.ignored[:8])}{' ...' if len(report.ignored) > 8 else ''}")
    if update:
        echo(f"entries: {report.changes.describe()} (unchanged entries keep their sessions and learned data)")
    echo(
        f"{'updated' if update else 'created'} {name}: {stats['labels']} entries, {q['binary']} yes/no + "
        f"{q['choice']} multiple-choice questions induced from the texts, {stats['queries']['train']} + "
        f"{stats['queries']['dev']} queries synthesized from them (train + dev) -> {stats['path']}"
    )
    echo(f'next: clarify prepare {name}   (then: clarify ask {name} "your question")')


@domain.command("create")
@_faq_options
@click.option(
    "--title",
    default="",
    help=f"A title for the domain, at most {MAX_TITLE_CHARS} characters (default: the FAQ's own, or NAME).",
)
@_report_problems
def create(name: str, source: str, fmt: str, check: bool, as_json: bool, title: str) -> None:
    """Create domain NAME from your own FAQ: no crowd data needed.

    The FAQ is a table (CSV/TSV/JSONL with a title and an answer column; optional key, description,
    category, answer 2, ...), a Markdown file (headings are the questions) or a folder of help articles.
    Nothing is written while it has a problem; every problem is listed with its line.
    """
    _run_faq(name, source, fmt, check, as_json, update=False, title=title)


@domain.command("update")
@_faq_options
@_report_problems
def update(name: str, source: str, fmt: str, check: bool, as_json: bool) -> None:
    """Update domain NAME from the edited FAQ: entries are matched by key (added, edited, removed); the
    entries that stay keep their sessions and what was learned from them."""
    _run_faq(name, source, fmt, check, as_json, update=True)
