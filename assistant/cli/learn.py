"""`clarify learn evaluate|suggest|update`: active + self-paced learning (DASL) on cQA data and from use."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click

from assistant.app.choices import LEARN_AFTER_SESSIONS
from assistant.app.choices import RANKING_DATASETS as DATASETS
from assistant.cli.common import SEED, check_output, echo, echo_json, run_with_progress, write_json_file
from assistant.paths import write_output_file

_DATASET_HELP = "DATASET: " + "; ".join(f"{k} = {v}" for k, v in DATASETS.items())


@click.group()
def learn() -> None:
    """Learn with fewer labels: DASL's active + self-paced learning, evaluated and from logged sessions."""


@learn.command("evaluate", epilog=_DATASET_HELP)
@click.argument("dataset")
@click.option("--model", type=click.Choice(["deep", "encoder"]), default="deep", show_default=True)
@click.option("--methods", default="dasl,dal,bald,coreset,random", show_default=True, help="Comma-separated.")
@click.option("--seeds", type=click.IntRange(1, 100), default=4, show_default=True, help="How many seeds.")
@click.option(
    "--first-seed", type=click.IntRange(0, 2**32 - 101), default=0, show_default=True, help="Seeds start here."
)
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
    first_seed: int,
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
    from assistant.app.desk.learning import EvaluationConfig, evaluate_learning, plot_learning_curves, summary_table

    check_output(json_path, "--json", create_folders=True)
    check_output(plot_path, "--plot", create_folders=True)
    config = EvaluationConfig(initial_fraction=initial, round_fraction=step, rounds=rounds, samples=samples)
    if epochs is not None:
        config = replace(config, train=replace(config.train, epochs=epochs))
    job = evaluate_learning(
        dataset,
        model=model,
        methods=methods,
        seeds=seeds,
        config=config,
        data_dir=data_dir,
        candidates=candidates,
        max_questions=max_questions,
        first_seed=first_seed,
    )
    result = run_with_progress(job, f"learning on {dataset}")
    echo(
        f"{result['dataset']} ({result['model']} model): {result['questions']} questions, pool {result['pool']}, "
        f"dev {result['dev']}, test {result['test']}, {result['seeds']} seeds; test MRR (seed mean)"
    )
    echo(summary_table(result))
    if json_path:
        Path(json_path).parent.mkdir(parents=True, exist_ok=True)
        echo(f"wrote {write_json_file(json_path, result)}")
    if plot_path:
        Path(plot_path).parent.mkdir(parents=True, exist_ok=True)
        echo(f"wrote {write_output_file(plot_path, lambda tmp: plot_learning_curves(result, tmp), '--plot')}")


@learn.command("suggest")
@click.argument("domain")
@click.option("--k", "k", type=click.IntRange(1, 100_000), default=50, show_default=True, help="Queries to label.")
@click.option(
    "--out", "-o", "out", required=True, type=click.Path(dir_okay=False, path_type=Path), help="CSV to write."
)
@click.option("--labels", type=click.IntRange(1, 20), default=5, show_default=True, help="Labels offered per query.")
@click.option("--samples", type=click.IntRange(2, 1000), default=20, show_default=True, help="MC passes T.")
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--layout", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Also write the layout.")
@click.option("--json", "as_json", is_flag=True, help="Print the chosen queries as JSON.")
def suggest_cmd(
    domain: str, k: int, out: Path, labels: int, samples: int, seed: int, layout: Path | None, as_json: bool
) -> None:
    """Export the K session queries whose labels would help most as an MTurk labelling batch.

    The queries come from sessions that ended without an accepted answer; workers pick the label that
    answers each (among the text prior's top --labels, or "none of the above"). Import the batch results
    with `clarify import mturk RESULTS.csv --domain DOMAIN --kind queries`, then run `clarify learn update`.
    """
    from assistant.app.desk.learning import suggest_batch_job

    check_output(out, "--out")
    check_output(layout, "--layout")
    job = suggest_batch_job(domain, out, k, labels, samples, seed, layout)
    summary = run_with_progress(job, f"choosing queries of {domain}", as_json)
    chosen = summary.pop("queries")
    if as_json:
        echo_json({**summary, "queries": [{"query": q, "expected_loss": loss} for q, loss in chosen]})
        return
    echo(f"wrote {summary['tasks']} labelling tasks for {domain} -> {summary['file']}")
    for query, loss in chosen[:5]:
        echo(f"  {loss:.3f}  {query}")


@learn.command("update")
@click.argument("domain")
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--samples", type=click.IntRange(2, 1000), default=20, show_default=True, help="MC passes T.")
@click.option("--max-steps", type=click.IntRange(1), default=None, help="Encoder training steps (default 1500).")
@click.option("--no-policies", is_flag=True, help="Do not retrain the stop policies after a new encoder.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def update_cmd(domain: str, seed: int, samples: int, max_steps: int | None, no_policies: bool, as_json: bool) -> None:
    """Retrain the text prior on the original data plus labelled and pseudo-labelled session queries.

    The old model stays unless the new one is better on the dev queries; prints the text prior's Acc@1
    before and after on the held-out test queries. Never trains on dev or test queries.
    """
    from assistant.app.desk.learning import EncoderTrainConfig, update

    config = EncoderTrainConfig(max_steps=max_steps) if max_steps else None
    report = run_with_progress(
        update(domain, seed=seed, samples=samples, train_config=config, retrain_policies=not no_policies),
        f"updating {domain}",
        as_json,
    )
    if as_json:
        echo_json(report)
        return
    b, a = report["before"], report["after"]
    echo(
        f"{domain}: {report['labelled_sessions']} labelled and {report['pseudo_labelled']} pseudo-labelled session "
        f"queries (pool {report['pool']}, threshold {report['threshold']:.3f})"
    )
    echo(f"  dev Acc@1   {b['dev_acc1']:.3f} -> {a['dev_acc1']:.3f}")
    echo(f"  test Acc@1  {b['test_acc1']:.3f} -> {a['test_acc1']:.3f}")
    echo("  kept the new text prior" if report["kept"] == "new" else "  kept the old text prior (not better on dev)")


@learn.command("sessions")
@click.argument("domain")
@click.option(
    "--min",
    "min_new",
    type=click.IntRange(1),
    default=LEARN_AFTER_SESSIONS,
    show_default=True,
    help="Learn only once this many accepted sessions are new.",
)
@click.option("--seed", type=SEED, default=0, show_default=True)
def sessions_command(domain: str, min_new: int, seed: int) -> None:
    """Accepted sessions become (query, entry) training pairs and the models are brought up to date (the app
    does this in the background after every --min accepted sessions)."""
    from assistant.app.desk.learning import learn_from_use_job

    done = run_with_progress(learn_from_use_job(domain, min_new, seed), f"learning from the sessions of {domain}")
    if not done["stored"]:
        pending = done["pending"]
        echo(f"{pending} new accepted session{'' if pending == 1 else 's'}: learning starts at {min_new} (--min)")
        return
    echo(
        f"{done['stored']} accepted sessions became training pairs; updated: {', '.join(done['updated']) or 'nothing'}"
    )
