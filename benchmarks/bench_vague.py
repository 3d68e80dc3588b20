"""Issue 10's figures: the clarifier on crowd and on vague first queries, the early-stop share, the
hand-written desk queries, and the dev comparison of the two paces that chose each domain's default.

For each domain and candidate setting: `clarify evaluate` on 2,000 test episodes (seed 0) with the crowd's
held-out queries and with vague versions of the same queries (same targets, same simulated answers), and
on the desk queries of benchmarks/desk_queries/<domain>.tsv (400 episodes). Then the issue's targets on
vague queries: ours within 2 points of the best fixed number of questions at no more than half its
questions, at least 10 points above no interaction, and at most 5% early stops.

``--paces``: ours at both paces on dev vague episodes (never test), and the default each would choose:
"thorough" when its extra questions buy at least ``POINTS_PER_QUESTION`` points of Acc@1 each.

    clarify bench run --only vague [--quick] [--set 'vague.domains=["faq"]'] [--set vague.episodes=1000]
    python -m benchmarks.bench_vague [--quick] [--set 'domains=["banking"]']     # this benchmark alone
    python -m benchmarks.bench_vague --paces [--domains faq,banking,birds] [--episodes 1000]
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from assistant.app.desk.domains import prepare
from assistant.app.lifecycle.registry import ModelRegistry, candidate_labels
from assistant.app.lifecycle.training_jobs import DEV_SEED_OFFSET, dev_mix_episodes
from assistant.app.research.research import evaluate_job, evaluation_setup
from assistant.clarification.stopping import PACES
from assistant.evaluation.bench import BenchContext, BenchJob, Benchmark, BenchOutput, Figure, Table
from assistant.evaluation.clarifier import evaluate
from assistant.progress import Progress, run_job
from benchmarks.common import HELP, comma_list, interval_columns, run_command, run_main

SETTINGS = {"faq": ("all",), "banking": ("all",), "birds": ("captioned", "all")}
DESK = Path(__file__).parent / "desk_queries"
# What a person accepts: a question is worth asking when it adds this many points of Acc@1.
POINTS_PER_QUESTION = 2.0


def vague_targets(report) -> dict:
    ours = report.row("ours")
    fixed = [r for r in report.rows if r["system"] == "fixed_turns"]
    best = max(fixed, key=lambda r: (r["acc1"], -r["turns"]))
    none = report.row("no_interaction_neural")
    return {
        "within_2_points_of_best_fixed": {
            "ours": ours["acc1"],
            "best_fixed": best["acc1"],
            "best_fixed_turns": best["turns"],
            "met": ours["acc1"] >= best["acc1"] - 0.02,
        },
        "at_most_half_its_questions": {
            "ours": ours["mean_turns"],
            "half": best["turns"] / 2,
            "met": ours["mean_turns"] <= best["turns"] / 2,
        },
        "10_points_above_no_interaction": {
            "ours": ours["acc1"],
            "none": none["acc1"],
            "met": ours["acc1"] >= none["acc1"] + 0.10,
        },
        "early_stops_at_most_5%": {"value": ours["early_stop_share"], "met": ours["early_stop_share"] <= 0.05},
    }


def pace_comparison(registry: ModelRegistry, candidates: str, episodes: int, seed: int) -> dict:
    """Ours at both paces on dev vague episodes, and the default the rule picks."""
    agent = registry.agent_domain
    dev = dev_mix_episodes(agent, episodes, seed + DEV_SEED_OFFSET + 1, candidate_labels(registry.domain, candidates))
    out: dict[str, Any] = {}
    for pace in PACES:
        setup = evaluation_setup(registry, candidates, pace=pace)
        row = run_job(evaluate(setup, dev, (), systems=("ours",))).row("ours")
        out[pace] = {k: row[k] for k in ("acc1", "acc3", "mean_turns", "early_stop_share")}
    extra = out["thorough"]["mean_turns"] - out["quick"]["mean_turns"]
    gain = 100 * (out["thorough"]["acc1"] - out["quick"]["acc1"])
    per_question = gain / extra if extra > 1e-9 else 0.0
    out["points_per_extra_question"] = per_question
    out["chosen"] = "thorough" if per_question >= POINTS_PER_QUESTION else "quick"
    return out


def _rows(kind: str, report) -> list[dict]:
    """A table's rows for one kind of query: every system, the fixed-question baseline as its best row."""
    fixed = [r for r in report.rows if r["system"] == "fixed_turns"]
    best = max(fixed, key=lambda r: (r["acc1"], -r["turns"])) if fixed else None
    rows = []
    for r in report.rows:
        if r["system"] == "fixed_turns" and r is not best:
            continue
        rows.append(
            {
                "queries": kind,
                "system": "best fixed_turns" if r is best else r["system"],
                "turns_fixed": best.get("turns") if best is not None and r is best else None,
                "acc1": round(r["acc1"], 4),
                "acc3": round(r["acc3"], 4),
                "mean_turns": round(r["mean_turns"], 2),
                "early_stop_share": round(r["early_stop_share"], 4) if "early_stop_share" in r else None,
                **interval_columns(r),
            }
        )
    return rows


def _target_rows(name: str, candidates: str, checks: dict) -> list[dict]:
    return [
        {
            "domain": name,
            "candidates": candidates,
            "target": key,
            "ours": round(check.get("ours", check.get("value")), 4),
            "compared_with": next((round(check[k], 4) for k in ("best_fixed", "half", "none") if k in check), None),
            "met": "yes" if check["met"] else "no",
        }
        for key, check in checks.items()
    ]


def run(context: BenchContext) -> BenchJob:
    """Each domain prepared (what is missing is trained), then ours and the baselines on crowd, vague and desk
    queries, and the vague-query targets."""
    from assistant.evaluation.plots import plot_accuracy_vs_turns

    tables, figures, parts, targets = [], [], [], []
    domains = list(context["domains"])
    for d, name in enumerate(domains):
        yield Progress(d, len(domains), f"preparing {name} (trains what is missing)")
        yield from prepare(name)
        registry = ModelRegistry(name)
        for candidates in SETTINGS.get(name, ("all",)):
            reports = {}
            for kind in ("crowd", "vague"):
                yield Progress(d, len(domains), f"evaluating {name} ({candidates}) on {kind} queries")
                reports[kind] = yield from evaluate_job(
                    registry, candidates, context["episodes"], context.seed, queries=kind
                )
            desk = DESK / f"{name}.tsv"
            if desk.is_file() and candidates == SETTINGS.get(name, ("all",))[0]:
                yield Progress(d, len(domains), f"evaluating {name} ({candidates}) on the desk queries")
                reports["desk"] = yield from evaluate_job(
                    registry, candidates, context["desk_episodes"], context.seed, queries=str(desk)
                )
            checks = vague_targets(reports["vague"])
            targets.extend(_target_rows(name, candidates, checks))
            key = f"{name}_{candidates}"
            sizes = ", ".join(f"{k} {r.row('ours')['episodes']}" for k, r in reports.items())
            tables.append(
                Table(
                    key,
                    f"{name}, {candidates} candidates: crowd, vague and desk first queries (seed {context.seed})",
                    [row for kind, report in reports.items() for row in _rows(kind, report)],
                    note=f"episodes: {sizes}; pace {registry.default_pace}; threshold tuned on dev vague episodes",
                )
            )
            plot_accuracy_vs_turns(reports["vague"], context.figure_path(key))
            figures.append(Figure(key, f"{name} ({candidates}), vague first queries: Acc@1 against questions asked"))
            ours = {q: r.row("ours") for q, r in reports.items()}
            missed = [k for k, v in checks.items() if not v["met"]]
            parts.append(
                f"{name}/{candidates} ours Acc@1 / questions: "
                + ", ".join(f"{q} {o['acc1']:.3f}/{o['mean_turns']:.2f}" for q, o in ours.items())
                + f"; early stops on vague {ours['vague']['early_stop_share']:.1%}"
                + (f" (missed: {', '.join(missed)})" if missed else " (vague targets met)")
            )
    tables.append(Table("targets", "The vague-query targets (issue 10)", targets))
    return BenchOutput(tables, figures, "; ".join(parts))


BENCHMARK = Benchmark(
    name="vague",
    title="The clarifier on crowd, vague and hand-written desk first queries, and the vague-query targets",
    run=run,
    quick={"domains": ["faq"], "episodes": 300},
    full={"domains": ["faq", "banking", "birds"], "episodes": 2000, "desk_episodes": 400},
)


def main(argv: list[str] | None = None) -> dict:
    """`python -m benchmarks.bench_vague [--quick] [--set domains=[...]] ...`, or ``--paces`` for the dev
    comparison of the two paces."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--paces" not in argv:
        return run_main(BENCHMARK, argv)
    return run_command(paces_command, argv)


@click.command(name="python -m benchmarks.bench_vague --paces", context_settings=HELP)
@click.option("--paces", is_flag=True, help="compare the paces on dev")
@click.option(
    "--domains", multiple=True, default=list(SETTINGS), callback=comma_list, help="repeatable, or comma-separated"
)
@click.option("--episodes", type=int, default=1000)
@click.option("--seed", type=int, default=0)
def paces_command(paces: bool, domains: list[str], episodes: int, seed: int) -> dict:
    os.environ.setdefault("CLARIFY_HOME", str(Path("bench-results/home").resolve()))
    result: dict = {"benchmark": "vague --paces", "seed": seed, "domains": {}}
    for name in domains:
        registry = ModelRegistry(name)
        result["domains"][name] = {
            c: pace_comparison(registry, c, episodes, seed) for c in SETTINGS.get(name, ("all",))
        }
    print(json.dumps(result, indent=2))
    print(
        "vague --paces: "
        + json.dumps({n: {c: v["chosen"] for c, v in e.items()} for n, e in result["domains"].items()})
    )
    return result


if __name__ == "__main__":
    main()
