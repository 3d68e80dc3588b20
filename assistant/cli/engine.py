"""`clarify prepare | train encoder | train policy | evaluate` (`ask` is in assistant.cli.ask)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import click

import assistant.cli.out_of_scope as oos_cli
from assistant.app.choices import POLICY_ESTIMATOR, POLICY_ITERATIONS, SYSTEMS, VARIANTS
from assistant.cli.common import (
    CANDIDATES_OPTION,
    EPISODES,
    PACE_OPTION,
    PRIOR_OPTION,
    SEED,
    FiniteFloat,
    check_output,
    echo,
    run_with_progress,
    write_json_file,
)
from assistant.errors import ConfigError
from assistant.paths import write_output_file


@click.command("prepare")
@click.argument("name")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed for training.")
@PRIOR_OPTION
def prepare_command(name: str, seed: int, text_prior: str) -> None:
    """Build domain NAME if needed and train whatever model is missing (cached in CLARIFY_HOME)."""
    from assistant.app.desk.domains import prepare

    done = run_with_progress(prepare(name, seed=seed, text_prior=text_prior), f"preparing {name}")
    trained = [item for item in done if item != "release models"]
    notes = ["using the release models shipped with Clarify"] if "release models" in done else []
    notes += [f"trained: {', '.join(trained)}"] if trained else []
    echo(f"{name} is ready ({'; '.join(notes) or 'nothing to train'})")


@click.group("train")
def train() -> None:
    """Train the text encoder or the stop policy of a domain."""


@train.command("encoder")
@click.argument("name")
@click.option("--seed", type=SEED, default=0, show_default=True)
def train_encoder_command(name: str, seed: int) -> None:
    """Train the prior's text encoder on domain NAME (replaces the cached one)."""
    from assistant.app.lifecycle.registry import ModelRegistry
    from assistant.app.lifecycle.training_jobs import train_encoder_job

    registry = ModelRegistry(name)
    result = run_with_progress(train_encoder_job(registry, seed), f"training the {name} encoder")
    metrics = getattr(result, "metrics", None)
    echo(f"trained the {name} encoder" + (f": {json.dumps(metrics)}" if metrics else ""))
    echo(f"retrain the policies now: clarify train policy {name}")


@train.command("policy")
@click.argument("name")
@CANDIDATES_OPTION
@click.option("--variant", type=click.Choice(VARIANTS), default=None, help="Only this variant (default: both).")
@click.option("--iterations", type=click.IntRange(1, 1_000_000), default=POLICY_ITERATIONS, show_default=True)
@click.option("--turn-reward", type=FiniteFloat(), default=None, help="r_a: reward per question (default: the pace's).")
@click.option("--turn-budget", type=FiniteFloat(0), default=None, help="Cap on mean questions (default: the pace's).")
@click.option(
    "--estimator",
    type=click.Choice(["expected", "reinforce"]),
    default=POLICY_ESTIMATOR,
    show_default=True,
    help="Policy gradient: exact expectation over STOP/ASK draws, or sampled REINFORCE.",
)
@click.option("--seed", type=SEED, default=0, show_default=True)
@PRIOR_OPTION
@PACE_OPTION
def train_policy_command(
    name: str,
    candidates: str,
    variant: str | None,
    iterations: int,
    turn_reward: float | None,
    turn_budget: float | None,
    estimator: str,
    seed: int,
    text_prior: str,
    pace: str | None,
) -> None:
    """Train the STOP/ASK policy of domain NAME with REINFORCE against the simulator, on dev episodes with
    vague first queries, and tune its compare-only-when-covered rule on dev."""
    from assistant.app.lifecycle.registry import ModelRegistry
    from assistant.app.lifecycle.training_jobs import PolicyConfig, pace_config, train_policy_job, tune_coverage_job

    registry = ModelRegistry(name, text_prior=text_prior)
    pace = pace or registry.default_pace
    config = pace_config(pace, PolicyConfig(iterations=iterations, estimator=estimator))
    if turn_reward is not None:
        config = replace(config, turn_reward=turn_reward)
    if turn_budget is not None:
        config = replace(config, turn_budget=turn_budget or None)
    for v in [variant] if variant else list(VARIANTS):
        job = train_policy_job(registry, candidates, v, config, seed, pace=pace)
        result = run_with_progress(job, f"policy {candidates}/{v}/{pace}")
        last = result.history[-1]
        echo(
            f"policy {candidates}/{v}/{pace}: lambda={result.lam:.3f} reward={last['reward']:.2f} "
            f"accuracy={last['accuracy']:.3f} turns={last['turns']:.2f} ({result.seconds:.1f} s)"
        )
        if v == "learned":
            tuned = run_with_progress(tune_coverage_job(registry, candidates, pace, seed=seed), "coverage rule")
            echo(f"compare only when the shortlist covers the answer with p >= {tuned['coverage']}")


@click.command("evaluate")
@click.argument("name")
@click.option("--episodes", type=EPISODES, default=2000, show_default=True, help="Simulated conversations per system.")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Same seed, same numbers.")
@CANDIDATES_OPTION
@click.option(
    "--queries",
    default="crowd",
    show_default=True,
    help="First queries: 'crowd' (held-out crowd queries), 'vague' (vague versions of them) or a TSV file "
    "with columns label, query (with --out-of-scope only, the label out_of_scope marks a query no label answers).",
)
@click.option("--systems", default=",".join(SYSTEMS), show_default=True, help="Comma-separated systems to run.")
@click.option("--max-turns", type=click.IntRange(1, 100), default=10, show_default=True)
@click.option("--json", "json_file", type=click.Path(dir_okay=False), help="Write the results as JSON.")
@click.option("--plot", "plot_file", type=click.Path(dir_okay=False), help="Write Acc@1 vs turns as PNG.")
@click.option("--csv", "csv_file", type=click.Path(dir_okay=False), help="Write the table as CSV.")
@click.option(
    "--user-noise",
    default="0",
    show_default=True,
    help="Share of the simulated user's answers flipped, 'not sure' or another person's; several levels "
    "(0,0.1,0.2) give Acc@1 against noise.",
)
@PRIOR_OPTION
@PACE_OPTION
@oos_cli.OUT_OF_SCOPE_OPTION
@oos_cli.OUT_OF_SCOPE_ERROR_OPTION
@click.option(
    "--answer-lists/--no-answer-lists",
    default=None,
    help="Whether ours asks 'Which of these is it?' over the likeliest labels (default: as conversations of "
    "the domain do: where people know the labels' names).",
)
def evaluate_command(
    name: str,
    episodes: int,
    seed: int,
    candidates: str,
    queries: str,
    systems: str,
    max_turns: int,
    json_file: str | None,
    plot_file: str | None,
    csv_file: str | None,
    user_noise: str,
    text_prior: str,
    pace: str | None,
    out_of_scope: str,
    oos_user_error: float,
    answer_lists: bool | None,
) -> None:
    """Run every system on the same simulated episodes of domain NAME (IC Table 1; the out-of-scope table too)."""
    from assistant.app.lifecycle.registry import ModelRegistry
    from assistant.app.research.research import evaluate_job, noise_sweep_job, noise_table, plot_accuracy_vs_turns

    chosen = tuple(s.strip() for s in systems.split(",") if s.strip())
    unknown = [s for s in chosen if s not in SYSTEMS]
    if not chosen or unknown:
        what = f"unknown system(s) {', '.join(unknown)}" if unknown else f"no system in --systems {systems!r}"
        raise ConfigError(f"{what}: choose from {', '.join(SYSTEMS)}")
    for path, option in ((json_file, "--json"), (csv_file, "--csv"), (plot_file, "--plot")):
        check_output(path, option)
    levels = _noise_levels(user_noise)
    registry = ModelRegistry(name, text_prior=text_prior)
    if out_of_scope == "only":
        if queries == "vague":
            raise ConfigError("--out-of-scope only takes --queries crowd (the test split) or a TSV file, not 'vague'")
        oos_queries = None if queries == "crowd" else queries
        return oos_cli.run_out_of_scope(
            registry, pace, seed, oos_user_error, json_file, alone=True, queries=oos_queries
        )
    args: dict[str, Any] = {  # the same settings for one noise level or a sweep
        "candidates": candidates,
        "episodes": episodes,
        "seed": seed,
        "systems": chosen,
        "max_turns": max_turns,
        "queries": queries,
        "pace": pace,
        "answer_lists": answer_lists,
    }
    if len(levels) > 1:
        reports = run_with_progress(noise_sweep_job(registry, levels, **args), f"evaluating {name}")
        echo(noise_table(reports))
        echo(f"(Acc@1 / mean questions; {reports[0].meta['episodes']} episodes per level)")
        if json_file:
            write_json_file(json_file, [r.to_dict() for r in reports])
        return
    job = evaluate_job(registry, user_noise=levels[0], **args)
    report = run_with_progress(job, f"evaluating {name}")
    echo(report.to_markdown())
    meta = report.meta
    echo(
        f"({meta['episodes']} episodes, {meta['candidates']} candidates, {meta['queries']} queries, pace "
        f"{meta['pace']}, coverage rule {meta['coverage']}, {meta['user_noise']}, agent-user answer "
        f"correlation {meta['agent_user_correlation']:.3f}, Acc@1 0.9 after "
        f"{meta.get('questions_to_acc1_0.9')} questions, answer lists {'on' if meta.get('answer_lists') else 'off'}, "
        f"{meta['seconds']} s)"
    )
    if json_file:
        write_output_file(json_file, report.to_json, "--json")
    if csv_file:
        write_output_file(csv_file, lambda tmp: tmp.write_text(report.to_csv(), encoding="utf-8"), "--csv")
    if plot_file:
        write_output_file(plot_file, lambda tmp: plot_accuracy_vs_turns(report, tmp), "--plot")
    if oos_cli.wants_out_of_scope(registry, out_of_scope):
        oos_cli.run_out_of_scope(registry, pace, seed, oos_user_error, json_file, alone=False, beside=report.to_dict())


def _noise_levels(text: str) -> list[float]:
    try:
        levels = [float(part) for part in text.split(",") if part.strip()]
    except ValueError as exc:
        raise ConfigError(
            f"--user-noise takes numbers in [0, 1) separated by commas (e.g. 0,0.1,0.2), got {text!r}"
        ) from exc
    if not levels or any(not 0 <= level < 1 for level in levels):
        raise ConfigError(f"--user-noise takes numbers in [0, 1) separated by commas (e.g. 0,0.1,0.2), got {text!r}")
    return levels


def register(main: click.Group) -> None:
    for command in (prepare_command, train, evaluate_command):
        main.add_command(command)
