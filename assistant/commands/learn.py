"""`clarify learn evaluate|suggest|update`: active + self-paced learning (DASL) on cQA data and from use."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import click

from assistant.commands.common import echo_json, run_with_progress
from assistant.errors import ConfigError
from assistant.ranking.data import DATASETS

_DATASET_HELP = "DATASET: " + "; ".join(f"{k} = {v}" for k, v in DATASETS.items())


@click.group()
def learn() -> None:
    """Learn with fewer labels: DASL's active + self-paced learning, evaluated and from logged sessions."""


@learn.command("evaluate", epilog=_DATASET_HELP)
@click.argument("dataset")
@click.option("--model", type=click.Choice(["deep", "encoder"]), default="deep", show_default=True)
@click.option("--methods", default="dasl,dal,bald,coreset,random", show_default=True, help="Comma-separated.")
@click.option("--seeds", type=click.IntRange(1, 100), default=4, show_default=True, help="Seeds 0..N-1.")
@click.option("--rounds", type=click.IntRange(0, 1000), default=17, show_default=True)
@click.option("--initial", type=click.FloatRange(0, 1, min_open=True), default=0.05, show_default=True)
@click.option("--step", type=click.FloatRange(0, 1, min_open=True), default=0.05, show_default=True)
@click.option("--samples", type=click.IntRange(2, 10_000), default=100, show_default=True, help="MC passes T.")
@click.option("--epochs", type=click.IntRange(1, 1000), default=None, help="Training epochs (default 30).")
@click.option("--candidates", type=click.IntRange(2, 1000), default=20, show_default=True, help="beer/coffee.")
@click.option("--max-questions", type=click.IntRange(10), default=None, help="Use only the first N questions.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None, help="Write the result here.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), default=None, help="Write a PNG here.")
@click.option("--data-dir", type=click.Path(file_okay=False), default=None, help="Shared data (semeval, wikiqa).")
def evaluate_cmd(
    dataset: str,
    model: str,
    methods: str,
    seeds: int,
    rounds: int,
    initial: float,
    step: float,
    samples: int,
    epochs: int | None,
    candidates: int,
    max_questions: int | None,
    json_path: str | None,
    plot_path: str | None,
    data_dir: str | None,
) -> None:
    """DASL's protocol on DATASET: MRR against the labelled fraction, and the fraction each method needs
    to reach the MRR of training on all labels (DASL Table 1)."""
    from assistant.learning.evaluation import EvaluationConfig, evaluate, summary_table
    from assistant.learning.plots import plot_learning_curves

    config = EvaluationConfig(initial_fraction=initial, round_fraction=step, rounds=rounds, samples=samples)
    if epochs is not None:
        config = replace(config, train=replace(config.train, epochs=epochs))
    job = evaluate(
        dataset,
        model=model,
        methods=methods,
        seeds=seeds,
        config=config,
        data_dir=data_dir,
        candidates=candidates,
        max_questions=max_questions,
    )
    result = run_with_progress(job, f"learning on {dataset}")
    click.echo(
        f"{result['dataset']} ({result['model']} model): {result['questions']} questions, pool {result['pool']}, "
        f"dev {result['dev']}, test {result['test']}, {result['seeds']} seeds; test MRR (seed mean)"
    )
    click.echo(summary_table(result))
    if json_path:
        Path(json_path).parent.mkdir(parents=True, exist_ok=True)
        Path(json_path).write_text(json.dumps(result, indent=2))
        click.echo(f"wrote {json_path}")
    if plot_path:
        click.echo(f"wrote {plot_learning_curves(result, plot_path)}")


def _check_out(out: Path) -> None:
    if out.suffix.lower() != ".csv":
        raise ConfigError(f"--out {out}: give a .csv file name (an MTurk batch input file)")
