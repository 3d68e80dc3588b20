"""`clarify domain list|build|stats`."""

from __future__ import annotations

from pathlib import Path

import click

from assistant.app.domains import BUNDLED_DOMAINS, available_domains, build_job, domain_stats, release_job
from assistant.app.release import RELEASE_DIR
from assistant.cli.common import echo, echo_json, run_with_progress


@click.group()
def domain() -> None:
    """List, build and inspect knowledge bases (domains)."""


@domain.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def list_domains(as_json: bool) -> None:
    """Show bundled and built domains."""
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


@domain.command("release-models")
@click.argument("names", nargs=-1, required=True)
@click.option(
    "--into",
    type=click.Path(file_okay=False, path_type=Path),
    default=RELEASE_DIR,
    show_default=True,
    help="Folder of the release models (one sub-folder per domain).",
)
def release_models(names: tuple[str, ...], into: Path) -> None:
    """Train the release models of bundled domains NAMES from fixed seeds and write them, with a manifest,
    into the package (run it in a fresh CLARIFY_HOME: `make release-models` does)."""
    for name in names:
        manifest = run_with_progress(release_job(name, into), f"release models of {name}")
        size = sum(f["bytes"] for f in manifest["files"].values())
        echo(
            f"{name}: {len(manifest['files'])} files, {size / 1e6:.2f} MB, trained in "
            f"{manifest['training_seconds']:.0f} s -> {into / name}"
        )
