"""`clarify cold-start build|evaluate SOURCE`: the labels-only protocol (issue 25) on a bundled domain."""

from __future__ import annotations

import json
from pathlib import Path

import click

from assistant.app.choices import PROTOCOL_DOMAINS
from assistant.cli.common import EPISODES, SEED, check_output, echo, run_with_progress
from assistant.errors import ConfigError
from assistant.paths import write_output_file

K_OPTION = click.option(
    "--k",
    type=click.IntRange(1, 100),
    default=None,
    help="Use k training queries per label as its text (banking, clinc).",
)


@click.group("cold-start")
def cold_start() -> None:
    """The labels-only protocol: a bundled domain rebuilt from its label texts alone, evaluated on its real
    test queries beside learning from simulated confirmed sessions."""


@cold_start.command("build")
@click.argument("source", type=click.Choice(PROTOCOL_DOMAINS))
@K_OPTION
def build_command(source: str, k: int | None) -> None:
    """Build SOURCE's labels-only domain (faq-texts, banking-k5, ...) with its real test queries attached."""
    from assistant.app.research.labels_only import build_labels_only_job, protocol_name

    stats = run_with_progress(build_labels_only_job(source, k), f"building {protocol_name(source, k)}")
    echo(
        f"built {stats['name']}: {stats['labels']} labels, {sum(stats['questions'].values())} questions, queries "
        f"{stats['queries']} -> {stats['path']}"
    )


def _sessions(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError as exc:
        raise ConfigError(f"--sessions takes counts separated by commas (e.g. 0,50,200), got {text!r}") from exc
    if not values or any(v < 0 for v in values):
        raise ConfigError(f"--sessions takes counts >= 0 separated by commas (e.g. 0,50,200), got {text!r}")
    return values


@cold_start.command("evaluate")
@click.argument("source", type=click.Choice(PROTOCOL_DOMAINS))
@K_OPTION
@click.option("--episodes", type=EPISODES, default=2000, show_default=True)
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--sessions", default="0,50,200", show_default=True, help="Simulated confirmed sessions fed back.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), default=None)
def evaluate_command(
    source: str, k: int | None, episodes: int, seed: int, sessions: str, json_path: Path | None
) -> None:
    """Build, prepare (cold start) and evaluate SOURCE's labels-only domain; print the tables."""
    from assistant.app.research.labels_only import TABLE_SYSTEMS, evaluate_labels_only_job

    check_output(json_path, "--json")
    result = run_with_progress(
        evaluate_labels_only_job(source, k, episodes, seed, _sessions(sessions)), f"labels-only {source}"
    )
    if json_path is not None:
        dumped = json.dumps(result, indent=2, default=str)
        write_output_file(json_path, lambda tmp: tmp.write_text(dumped, encoding="utf-8"), "--json")
    echo(f"{result['domain']}: prepared {', '.join(map(str, result['prepared'][:2]))}")
    for n, table in result["tables"].items():
        echo(f"\nafter {n} confirmed sessions (Acc@1 / Acc@3 / mean questions; {episodes} episodes, seed {seed})")
        echo("| system | " + " | ".join(table) + " |")
        echo("|---|" + "---|" * len(table))
        for system in TABLE_SYSTEMS:
            cells = [table[q].get(system) for q in table]
            text = [f"{c['acc1']:.3f} / {c['acc3']:.3f} / {c['mean_turns']:.2f}" if c else "" for c in cells]
            echo(f"| {system} | " + " | ".join(text) + " |")
        for row in result["out_of_scope"][n]:
            figures = {k2: row.get(k2) for k2 in ("in_scope_accuracy", "oos_recall", "oos_precision", "mean_turns")}
            echo(f"  out of scope, {row['system']}: {figures}")
