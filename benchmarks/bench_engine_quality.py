"""Quality of the clarification engine against IC Table 1's baselines, on the bundled domains.

For each domain: prepare it (build + train the encoder and the policies when missing, timed), then run
`clarify evaluate`'s evaluation on 2,000 simulated test episodes (seed 0) for every system, and check the
issue's targets. Birds is evaluated with all 200 species as candidates and with the 50 captioned ones
(the setting comparable with IC Table 1).

    python -m benchmarks.bench_engine_quality [--quick] [--domains birds,faq,banking] [--episodes 2000]

Uses $CLARIFY_HOME when set, else bench-results/home (models are trained once and reused).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import click

from assistant.app.desk.domains import prepare
from assistant.app.lifecycle.registry import ModelRegistry, policy_path
from assistant.app.research.research import evaluate_job
from assistant.clarification.stopping import default_pace
from assistant.evaluation.bench import BenchContext, BenchJob, Benchmark, BenchOutput, Figure, Table
from assistant.progress import Progress, run_job
from benchmarks.common import HELP, comma_list, interval_columns, run_command
from models.checkpoint import read_sidecar

SETTINGS = {"birds": ("captioned", "all"), "faq": ("all",), "banking": ("all",)}


def targets(domain: str, candidates: str, report) -> dict:
    """The issue's targets for this setting, each as {value, target, met}."""
    ours = report.row("ours")
    checks: dict[str, dict] = {"mean_turns_at_most_5": {"value": ours["mean_turns"], "met": ours["mean_turns"] <= 5}}
    if domain == "birds" and candidates == "captioned":
        checks["acc1_at_least_0.49"] = {"value": ours["acc1"], "met": ours["acc1"] >= 0.49}
        checks["acc3_at_least_0.69"] = {"value": ours["acc3"], "met": ours["acc3"] >= 0.69}
    if domain == "birds" and candidates == "all":
        base = report.row("no_interaction_neural")["acc1"]
        checks["acc1_at_least_0.25"] = {"value": ours["acc1"], "met": ours["acc1"] >= 0.25}
        checks["acc3_at_least_0.43"] = {"value": ours["acc3"], "met": ours["acc3"] >= 0.43}
        checks["acc1_at_least_twice_no_interaction"] = {
            "value": ours["acc1"] / max(base, 1e-9),
            "met": ours["acc1"] >= 2 * base,
        }
    for system in ("threshold", "lambda_1", "random", "static_ig"):
        row = report.row(system)
        key = "not_below" if system == "static_ig" else "beats"
        met = ours["acc1"] >= row["acc1"] if system == "static_ig" else ours["acc1"] > row["acc1"]
        checks[f"{key}_{system}"] = {
            "ours": ours["acc1"],
            "other": row["acc1"],
            "other_turns": row["mean_turns"],
            "met": bool(met),
        }
    fixed = [r for r in report.rows if r["system"] == "fixed_turns" and r["turns"] <= ours["mean_turns"] + 1e-9]
    best_fixed = max((r["acc1"] for r in fixed), default=0.0)
    checks["beats_fixed_turns_at_no_more_turns"] = {
        "ours": ours["acc1"],
        "other": best_fixed,
        "met": ours["acc1"] > best_fixed,
    }
    return checks


def training_seconds(name: str, settings: tuple[str, ...]) -> dict:
    from assistant.priors.sru import encoder_checkpoint_path

    encoder = read_sidecar(encoder_checkpoint_path(name)) or {}
    out = {"encoder": encoder.get("metrics", {}).get("train_seconds")}
    pace = default_pace(name)
    for candidates in settings:
        for variant in ("learned", "lambda_1"):
            sidecar = read_sidecar(policy_path(name, candidates, variant, pace=pace)) or {}
            out[f"policy-{candidates}-{variant}-{pace}"] = sidecar.get("config", {}).get("seconds")
    return out


def run(context: BenchContext) -> BenchJob:
    """Prepare each domain (train what is missing, timed), evaluate every system, check the targets."""
    from assistant.evaluation.plots import plot_accuracy_vs_turns

    tables, figures, parts = [], [], []
    training = []
    domains = list(context["domains"])
    for d, name in enumerate(domains):
        yield Progress(d, len(domains), f"preparing {name} (trains what is missing)")
        start = time.perf_counter()
        trained = yield from prepare(name)
        training.append(
            {
                "domain": name,
                "trained_now": ", ".join(trained) or "nothing",
                "prepare_seconds": round(time.perf_counter() - start, 1),
                **{k: v for k, v in training_seconds(name, SETTINGS.get(name, ("all",))).items()},
            }
        )
        registry = ModelRegistry(name)
        for candidates in SETTINGS.get(name, ("all",)):
            yield Progress(d, len(domains), f"evaluating {name} ({candidates})")
            report = yield from evaluate_job(registry, candidates, context["episodes"], context.seed)
            rows = []
            for r in report.rows:
                row = {
                    "system": r["system"],
                    "turns_fixed": r.get("turns"),
                    "acc1": round(r["acc1"], 4),
                    "acc3": round(r["acc3"], 4),
                    "mean_turns": round(r["mean_turns"], 2),
                    **interval_columns(r),
                }
                if "vs_ours" in r:
                    row["mcnemar_p_vs_ours"] = r["vs_ours"].get("p_value")
                rows.append(row)
            checks = targets(name, candidates, report)
            missed = [k for k, v in checks.items() if not v["met"]]
            key = f"{name}_{candidates}"
            tables.append(
                Table(
                    key,
                    f"{name}, {candidates} candidates: {context['episodes']} test episodes, seed {context.seed}",
                    rows,
                    note=f"threshold {report.meta.get('threshold')}, lambda {report.meta.get('lambda')}; "
                    f"targets missed: {', '.join(missed) or 'none'}",
                )
            )
            plot_accuracy_vs_turns(report, context.figure_path(key))
            figures.append(Figure(key, f"{name} ({candidates}): Acc@1 against questions asked"))
            ours = report.row("ours")
            parts.append(f"{name}/{candidates} ours Acc@1 {ours['acc1']:.3f} in {ours['mean_turns']:.2f} turns")
    tables.append(
        Table(
            "training",
            "Preparing the domains (seconds; cached models are reused)",
            training,
            timing=tuple(k for row in training for k in row if k not in ("domain", "trained_now")),
        )
    )
    return BenchOutput(tables, figures, "; ".join(parts))


BENCHMARK = Benchmark(
    name="engine_quality",
    title="Clarifier quality against IC Table 1's baselines (Acc@1, Acc@3, questions)",
    run=run,
    quick={"domains": ["faq"], "episodes": 300},
    full={"domains": ["birds", "faq", "banking"], "episodes": 2000},
)


@click.command(name="bench_engine_quality", context_settings=HELP)
@click.option("--quick", is_flag=True, help="300 episodes, faq only")
@click.option("--domains", multiple=True, callback=comma_list, help="repeatable, or comma-separated")
@click.option("--episodes", type=int, default=2000)
@click.option("--seed", type=int, default=0)
def command(quick: bool, domains: list[str], episodes: int, seed: int) -> dict:
    os.environ.setdefault("CLARIFY_HOME", str(Path("bench-results/home").resolve()))  # as benchmarks/__main__
    domains = domains or (["faq"] if quick else list(SETTINGS))
    episodes = 300 if quick else episodes
    result: dict = {"benchmark": "engine_quality", "episodes": episodes, "seed": seed, "domains": {}}
    for name in domains:
        start = time.perf_counter()
        trained = run_job(prepare(name))
        prepare_seconds = time.perf_counter() - start
        registry = ModelRegistry(name)
        entry: dict[str, Any] = {
            "trained_now": trained,
            "prepare_seconds": round(prepare_seconds, 1),
            "training_seconds": training_seconds(name, SETTINGS.get(name, ("all",))),
            "settings": {},
        }
        for candidates in SETTINGS.get(name, ("all",)):
            t0 = time.perf_counter()
            report = run_job(evaluate_job(registry, candidates, episodes, seed))
            seconds = time.perf_counter() - t0
            entry["settings"][candidates] = {
                "rows": report.rows,
                "threshold": report.meta.get("threshold"),
                "lambda": report.meta.get("lambda"),
                "evaluation_seconds": round(seconds, 1),
                "seconds_per_1000_episodes_per_system": round(1000 * seconds / episodes / len(report.rows), 2),
                "targets": targets(name, candidates, report),
            }
            print(f"{name} ({candidates}):\n{report.to_markdown()}\n", flush=True)
        result["domains"][name] = entry
    print(json.dumps(result, indent=2))
    parts = []
    for name, entry in result["domains"].items():
        for candidates, s in entry["settings"].items():
            ours = next(r for r in s["rows"] if r["system"] == "ours")
            missed = [k for k, v in s["targets"].items() if not v["met"]]
            parts.append(
                f"{name}/{candidates} ours Acc@1 {ours['acc1']:.3f} Acc@3 {ours['acc3']:.3f} in {ours['mean_turns']:.2f} turns"
                + (f" (missed: {', '.join(missed)})" if missed else " (all targets met)")
            )
    print("engine_quality: " + "; ".join(parts))
    return result


def main(argv: list[str] | None = None) -> dict:
    return run_command(command, argv)


if __name__ == "__main__":
    main()
