"""Issue 10's figures: the clarifier on crowd and on vague first queries, the early-stop share, the
hand-written desk queries, and the dev comparison of the two paces that chose each domain's default.

For each domain and candidate setting: `clarify evaluate` on 2,000 test episodes (seed 0) with the crowd's
held-out queries and with vague versions of the same queries (same targets, same simulated answers), and
on the desk queries of benchmarks/desk_queries/<domain>.tsv (400 episodes). Then the issue's targets on
vague queries: ours within 2 points of the best fixed number of questions at no more than half its
questions, at least 10 points above no interaction, and at most 5% early stops.

``--paces``: ours at both paces on dev vague episodes (never test), and the default each would choose:
"thorough" when its extra questions buy at least ``POINTS_PER_QUESTION`` points of Acc@1 each.

    python -m benchmarks vague [--quick] [--domains faq banking birds] [--episodes 2000] [--paces]
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import numpy as np

from assistant.app.registry import PACES, ModelRegistry, candidate_labels
from assistant.app.research import DEV_SEED_OFFSET, dev_mix_episodes, evaluate_job, evaluation_setup
from assistant.evaluation.clarifier import evaluate
from assistant.progress import run_job

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
    out = {}
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


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="300 episodes, faq only")
    parser.add_argument("--domains", nargs="*", default=None)
    parser.add_argument("--episodes", type=int, default=2000)
    parser.add_argument("--desk-episodes", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--paces", action="store_true", help="compare the paces on dev instead")
    args = parser.parse_args(argv)
    os.environ.setdefault("CLARIFY_HOME", str(Path("bench-results/home").resolve()))
    domains = args.domains or (["faq"] if args.quick else list(SETTINGS))
    episodes = 300 if args.quick else args.episodes
    result: dict = {"benchmark": "vague", "episodes": episodes, "seed": args.seed, "domains": {}}
    lines = []
    for name in domains:
        registry = ModelRegistry(name)
        entry: dict = {}
        for candidates in SETTINGS.get(name, ("all",)):
            if args.paces:
                entry[candidates] = pace_comparison(registry, candidates, min(episodes, 1000), args.seed)
                lines.append(f"{name}/{candidates}: {json.dumps(entry[candidates])}")
                continue
            reports = {
                q: run_job(evaluate_job(registry, candidates, episodes, args.seed, queries=q))
                for q in ("crowd", "vague")
            }
            desk = DESK / f"{name}.tsv"
            if desk.is_file() and candidates == SETTINGS[name][0]:
                reports["desk"] = run_job(
                    evaluate_job(registry, candidates, args.desk_episodes, args.seed, queries=str(desk))
                )
            entry[candidates] = {
                q: {"rows": r.rows, "meta": {k: v for k, v in r.meta.items() if k != "protocol"}}
                for q, r in reports.items()
            }
            entry[candidates]["vague_targets"] = vague_targets(reports["vague"])
            for q, r in reports.items():
                print(f"{name} ({candidates}, {q} queries):\n{r.to_markdown()}\n", flush=True)
            ours = {q: r.row("ours") for q, r in reports.items()}
            missed = [k for k, v in entry[candidates]["vague_targets"].items() if not v["met"]]
            lines.append(
                f"{name}/{candidates} ours Acc@1 / questions: "
                + ", ".join(f"{q} {o['acc1']:.3f}/{o['mean_turns']:.2f}" for q, o in ours.items())
                + f"; early stops on vague {ours['vague']['early_stop_share']:.1%}"
                + (f" (missed: {', '.join(missed)})" if missed else " (vague targets met)")
            )
        result["domains"][name] = entry
    print(json.dumps(result, indent=2, default=lambda o: o.tolist() if isinstance(o, np.ndarray) else str(o)))
    print("vague: " + "; ".join(lines))
    return result


if __name__ == "__main__":
    main()
