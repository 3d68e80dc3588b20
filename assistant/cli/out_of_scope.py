"""`clarify evaluate NAME --out-of-scope ...`: the out-of-scope table (issue 17)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from assistant.cli.common import FiniteFloat, echo, run_with_progress, write_json_file

OUT_OF_SCOPE_CHOICES = ("auto", "only", "no")
COLUMNS = ("in_scope_accuracy", "oos_recall", "oos_precision", "mean_turns")

OUT_OF_SCOPE_OPTION = click.option(
    "--out-of-scope",
    "out_of_scope",
    type=click.Choice(OUT_OF_SCOPE_CHOICES),
    default="auto",
    show_default=True,
    help="The out-of-scope table (in-scope accuracy, out-of-scope recall and precision on the whole test split "
    "and its out-of-scope queries): 'auto' where the domain has out-of-scope queries, 'only' without the "
    "IC table, 'no' to skip it.",
)
OUT_OF_SCOPE_ERROR_OPTION = click.option(
    "--oos-user-error",
    type=FiniteFloat(0.0, 1.0),
    default=0.2,
    show_default=True,
    help="Share of an out-of-scope person's answers that are not 'something else' / 'no'.",
)

if TYPE_CHECKING:
    from assistant.app.lifecycle.registry import ModelRegistry


def wants_out_of_scope(registry: ModelRegistry, choice: str) -> bool:
    return choice == "only" or (choice == "auto" and bool((registry.domain.out_of_scope_splits == "test").any()))


def out_of_scope_table(
    registry: ModelRegistry, pace: str | None, seed: int, user_error: float, queries: str | None = None
) -> dict:
    """Run the out-of-scope evaluation, print its table; returns {"rows", "meta"}."""
    from assistant.app.lifecycle.out_of_scope_jobs import evaluate_out_of_scope_job

    job = evaluate_out_of_scope_job(registry, pace, seed, user_error, queries)
    result = run_with_progress(job, f"out of scope on {registry.name}")
    lines = ["| system | " + " | ".join(COLUMNS) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    for row in result["rows"]:
        cells = ("–" if row[c] is None else f"{row[c]:.3f}" for c in COLUMNS)
        lines.append(f"| {row['system']} | " + " | ".join(cells) + " |")
    echo("\n".join(lines))
    meta = result["meta"]
    echo(
        f"({meta['test_in_scope']} in-scope + {meta['test_out_of_scope']} out-of-scope episodes from "
        f"{meta['queries']}, pace "
        f"{meta['pace']}, out-of-scope person's error {meta['out_of_scope_user_error']}, tuned on dev: "
        f"threshold {meta['model']['threshold']}, doubt {meta['model']['doubt']}, "
        f"P(something else | out of scope) {meta['model']['other_prob']})"
    )
    return result


def run_out_of_scope(
    registry: ModelRegistry,
    pace: str | None,
    seed: int,
    user_error: float,
    json_file: str | None,
    alone: bool,
    queries: str | None = None,
    beside: dict | None = None,
) -> None:
    """Print the table; write its rows to ``json_file`` (alone, or under "out_of_scope" beside ``beside``, the
    IC report: from memory, never read back from the file, where a link may have been swapped in meanwhile)."""
    result = out_of_scope_table(registry, pace, seed, user_error, queries)
    if json_file:
        data = result if alone or beside is None else {**beside, "out_of_scope": result}
        write_json_file(Path(json_file), data)
