"""Ranking quality on community-QA data (BO's protocol): `clarify rank evaluate` on every data set at hand.

Bundled beer and coffee always; SemEval-2016 and WikiQA when the shared data folder has them (skipped with
a message otherwise). Test split (40% of the questions; hyperparameters were fixed on the dev split), 10
interactions, simulated user noise t = 0.3, seed 0. Checks the issue's targets:

* GPPL+IMP after 10 interactions beats the prior by >= 25 accuracy points, and beats random, UNPA, EIG, TP;
* MCD+EI after 4 interactions beats the non-Bayesian deep ranker with UNC and GPPL+EI.

Run: python -m benchmarks.bench_ranking_quality [--quick] [--datasets beer,coffee] [--t 0.3] [--split test]
[--tune]. ``--split dev`` evaluates on the dev questions instead: a second, independent sample for data sets
whose dev split did not choose the defaults (all but beer). ``--tune`` instead grids GPPL's scales with IMP
on the dev split (what chose the defaults).
"""

from __future__ import annotations

import itertools
import json
import os
import sys
from typing import Any

import click
import numpy as np

from assistant.errors import DataMissingError
from assistant.evaluation.bench import BenchContext, BenchJob, Benchmark, BenchOutput, DataSet, Figure, Table
from assistant.evaluation.cqa.protocol import RankerSettings, evaluate, final_table
from assistant.progress import Progress, run_job
from benchmarks.common import HELP, run_command


def _row(result: dict, model: str, strategy: str, k: int) -> dict | None:
    for r in result["rows"]:
        if r["model"] == model and r["strategy"] == strategy and r["interactions"] == k:
            return r
    return None


def _row_of(result: dict, model: str, strategy: str, k: int) -> dict:
    """``_row`` where the evaluation always has that row (the combos it was asked for)."""
    row = _row(result, model, strategy, k)
    if row is None:
        raise KeyError(f"no row for {model}+{strategy} after {k} comparisons")
    return row


def check_targets(result: dict) -> dict:
    """The issue's targets, each True / False (None when a needed row is missing)."""
    n = result["interactions"]
    prior = _row(result, "prior", "none", 0)
    imp = _row(result, "gppl", "imp", n)
    out: dict = {}
    if imp and prior:
        out["gppl_imp_gain_points"] = round(100 * (imp["accuracy"] - prior["accuracy"]), 1)
        out["gppl_imp_beats_prior_by_25"] = out["gppl_imp_gain_points"] >= 25
        for other in ("random", "unpa", "eig", "tp"):
            r = _row(result, "gppl", other, n)
            out[f"gppl_imp_beats_{other}"] = None if r is None else imp["accuracy"] > r["accuracy"]
    k = min(4, n)
    mcd, deep, gppl4 = _row(result, "mcd", "imp", k), _row(result, "deep", "unc", k), _row(result, "gppl", "imp", k)
    if mcd:
        out["mcd_ei_beats_deep_unc_at_4"] = None if deep is None else mcd["accuracy"] > deep["accuracy"]
        out["mcd_ei_beats_gppl_ei_at_4"] = None if gppl4 is None else mcd["accuracy"] > gppl4["accuracy"]
    return out


def tune(dataset: str, t: float, seed: int, quick: bool) -> dict:
    """Grid over GPPL's output scale, prior scale and length-scale factor with IMP on the dev split."""
    grid: dict[str, list[Any]] = {
        "gppl_output_scale": [1.0, 4.0, 16.0],
        "gppl_prior_scale": [0.5, 1.0, 2.0],
        "gppl_lengthscale_factor": [0.5, 1.0, 2.0],
    }
    if quick:
        grid = {k: v[1:2] + v[:1] for k, v in grid.items()}
    trials = []
    seeds = [seed] if quick else [seed, seed + 1, seed + 2]  # three oracle seeds: less noise on ~50 questions
    for values in itertools.product(*grid.values()):
        settings = RankerSettings(**dict(zip(grid, values)))
        acc, ndcg = [], []
        for s in seeds:
            result = run_job(evaluate(dataset, 10, ["imp"], ["gppl"], seed=s, t=t, split="dev", settings=settings))
            last = _row_of(result, "gppl", "imp", 10)
            acc.append(last["accuracy"])
            ndcg.append(last["ndcg5"])
        trials.append({**dict(zip(grid, values)), "accuracy": float(np.mean(acc)), "ndcg5": float(np.mean(ndcg))})
        print(json.dumps(trials[-1]), file=sys.stderr)
    best = max(trials, key=lambda r: (r["accuracy"], r["ndcg5"]))
    return {"dataset": dataset, "split": "dev", "t": t, "seeds": seeds, "trials": trials, "best": best}


@click.command(name="bench_ranking_quality", help=__doc__, context_settings=HELP)
@click.option("--quick", is_flag=True, help="20 questions per data set, GPPL and BT only")
@click.option("--datasets", default="beer,coffee,semeval,wikiqa")
@click.option("--t", type=float, default=0.3, help="noise level of the simulated user")
@click.option("--seed", type=int, default=0)
@click.option("--interactions", type=int, default=10)
@click.option("--all-mcd-strategies", is_flag=True, help="MCD with every strategy and both deep rankers with random")
@click.option("--data-dir", default=None)
@click.option("--split", type=click.Choice(["test", "dev"]), default="test", help="the questions to evaluate on")
@click.option("--tune", "tune_only", is_flag=True, help="grid GPPL's hyperparameters on the dev split instead")
def command(
    quick: bool,
    datasets: str,
    t: float,
    seed: int,
    interactions: int,
    all_mcd_strategies: bool,
    data_dir: str | None,
    split: str,
    tune_only: bool,
) -> dict:
    import torch

    torch.set_num_threads(1)  # small MLP steps: one thread is faster on a busy 2-core machine
    names = [d.strip() for d in datasets.split(",") if d.strip()]
    if tune_only:
        tuned = {"tuning": [tune(d, t, seed, quick) for d in names]}
        print(json.dumps(tuned, indent=2))
        print("; ".join(f"{r['dataset']}: best {r['best']}" for r in tuned["tuning"]))
        return tuned

    combos = [("gppl", s) for s in ("imp", "tp", "eig", "unpa", "random")] + [("bt", "unc"), ("bt", "random")]
    if not quick:
        # The deep rankers cost ~0.15 s a step: by default only the pairs the targets compare.
        if all_mcd_strategies:
            combos += [("mcd", s) for s in ("imp", "tp", "eig", "unpa", "random")] + [
                ("deep", "unc"),
                ("deep", "random"),
            ]
        else:
            combos += [("mcd", "imp"), ("deep", "unc")]
    result: dict = {
        "t": t,
        "seed": seed,
        "interactions": interactions,
        "split": split,
        "blas": f"OPENBLAS_THREAD_TIMEOUT={os.environ.get('OPENBLAS_THREAD_TIMEOUT', 'unset')}, torch threads 1",
        "datasets": {},
        "skipped": {},
    }
    summary = []
    for dataset in names:
        try:
            merged = run_job(
                evaluate(
                    dataset,
                    interactions,
                    seed=seed,
                    t=t,
                    data_dir=data_dir,
                    max_questions=20 if quick else None,
                    combos=combos,
                    split=split,
                )
            )
        except DataMissingError as exc:
            result["skipped"][dataset] = str(exc)
            print(f"skipped {dataset}: {exc}", file=sys.stderr)
            continue
        merged["targets"] = check_targets(merged)
        result["datasets"][dataset] = merged
        print(f"== {dataset} ({split}, t = {t})\n{final_table(merged)}", file=sys.stderr)
        prior = _row_of(merged, "prior", "none", 0)["accuracy"]
        imp = _row_of(merged, "gppl", "imp", interactions)["accuracy"]
        summary.append(f"{dataset} prior {100 * prior:.1f}% -> GPPL+IMP@{interactions} {100 * imp:.1f}%")
    print(json.dumps(result, indent=2))
    print("; ".join(summary) + f" (t = {t}); skipped: {', '.join(result['skipped']) or 'none'}")
    return result


def main(argv: list[str] | None = None) -> dict:
    return run_command(command, argv)


COLUMNS = (
    "prior",
    "gppl+imp@4",
    "gppl+imp@10",
    "gppl+eig@10",
    "gppl+unpa@10",
    "gppl+tp@10",
    "gppl+random@10",
    "bt+unc@10",
    "mcd+imp@4",
    "deep+unc@4",
    "pairwisegp+eubo@10",
)


def _summary_row(dataset: str, merged: dict, peer: dict | None) -> dict:
    """One row of the README's table: top-1 accuracy (%) per system after k comparisons."""
    row: dict = {"dataset": dataset, "questions": merged["questions"]}
    for column in COLUMNS:
        if column == "prior":
            r = _row(merged, "prior", "none", 0)
        else:
            (model, strategy), k = column.split("@")[0].split("+"), int(column.split("@")[1])
            r = _row(
                peer if model == "pairwisegp" and peer else merged, model, strategy, min(k, merged["interactions"])
            )
        row[column] = None if r is None else round(100 * r["accuracy"], 1)
    if peer:
        row["pairwisegp_questions"] = peer["questions"]
        same = _row_of(peer, "gppl", "imp", peer["interactions"])
        row["gppl+imp@10_same_questions"] = round(100 * same["accuracy"], 1)
    return row


def _final_rows(merged: dict) -> list[dict]:
    n = merged["interactions"]
    at = {k for k in (0, 1, 4, n) if k <= n}
    tests = {(e["model"], e["strategy"]): e for e in merged["wilcoxon"]["tests"]}
    rows = []
    for r in merged["rows"]:
        if r["interactions"] in at or r["model"] == "prior":
            test = tests.get((r["model"], r["strategy"]), {})
            rows.append(
                {
                    "model": r["model"],
                    "strategy": r["strategy"],
                    "interactions": r["interactions"],
                    "accuracy": round(r["accuracy"], 4),
                    "ndcg5": round(r["ndcg5"], 4),
                    "questions": r["questions"],
                    "ms_per_step": round(1000 * r["seconds_per_interaction"], 2),
                    "p_accuracy_vs_best": test.get("accuracy_p_value"),
                }
            )
    return rows


def run(context: BenchContext) -> BenchJob:
    import torch

    from assistant.evaluation.plots import plot_ranking_curves

    torch.set_num_threads(1)  # small MLP steps: one thread is faster on a busy 2-core machine
    combos = [tuple(c) for c in context["combos"]]
    datasets = [d for d in context["datasets"] if d in context.present]
    tables, figures, summary = [], [], []
    skipped: dict[str, str] = {}
    summary_rows = []
    n = context["interactions"]
    for i, dataset in enumerate(datasets):
        yield Progress(i, len(datasets), f"{dataset}")
        common = {
            "seed": context.seed,
            "t": context["t"],
            "data_dir": context.data_dir,
            "split": context["split"],
            "n_candidates": context["candidates"],
        }
        merged = yield from evaluate(
            dataset, n, max_questions=context["max_questions"] or None, combos=combos, **common
        )
        peer = None
        if context["pairwisegp"]:
            cap = context["pairwisegp_max_questions"].get(dataset) or context["max_questions"] or None
            peer = yield from evaluate(
                dataset, n, max_questions=cap, combos=[("gppl", "imp"), ("pairwisegp", "eubo")], **common
            )
        merged["targets"] = check_targets(merged)
        summary_rows.append(_summary_row(dataset, merged, peer))
        tables.append(
            Table(
                dataset,
                f"{dataset} ({context['split']}, t = {context['t']}): accuracy and NDCG@5 after k comparisons",
                _final_rows(merged),
                timing=("ms_per_step",),
                note="p_accuracy_vs_best: Wilcoxon signed-rank test, per question, against the best row after the last comparison",
            )
        )
        plot_ranking_curves(merged, context.figure_path(dataset))
        figures.append(Figure(dataset, f"{dataset}: NDCG@5 and accuracy against comparisons (BO Figures 3-4)"))
        prior, imp = summary_rows[-1]["prior"], summary_rows[-1]["gppl+imp@10"]
        summary.append(f"{dataset} prior {prior}% -> GPPL+IMP@{n} {imp}%")
        if peer:
            summary[-1] += f" (PairwiseGP+EUBO {summary_rows[-1]['pairwisegp+eubo@10']}% on {peer['questions']} q.)"
    note = (
        "top-1 accuracy in %; pairwisegp+eubo: BoTorch's PairwiseGP warm-started with GPPL's prior mean (0.5 x the "
        "standardised MiniLM cosine, through a mean module), default kernel and hyperpriors, fit_gpytorch_mll at every "
        "step, on the first pairwisegp_questions test questions; gppl+imp@10_same_questions is ours on those"
    )
    tables.insert(
        0,
        Table(
            "summary", "Top-1 accuracy (%) on the test questions, prior -> after k comparisons", summary_rows, note=note
        ),
    )
    return BenchOutput(tables, figures, "; ".join(summary), skipped)


def _present(name: str):
    from assistant.evaluation.cqa.data import check_dataset

    return lambda data_dir: check_dataset(name, data_dir)


_COMBOS = [["gppl", s] for s in ("imp", "tp", "eig", "unpa", "random")] + [["bt", "unc"], ["bt", "random"]]

BENCHMARK = Benchmark(
    name="ranking_quality",
    title="Pairwise ranking on community QA (BO's protocol), with PairwiseGP + EUBO as a peer row",
    run=run,
    quick={
        "datasets": ["beer"],
        "max_questions": 20,
        "combos": [["gppl", "imp"], ["gppl", "random"], ["bt", "unc"]],
        "pairwisegp_max_questions": {"beer": 8},
    },
    full={
        "datasets": ["beer", "coffee", "semeval", "wikiqa"],
        "max_questions": 0,
        "split": "test",
        "t": 0.3,
        "interactions": 10,
        "candidates": 100,
        "combos": [*_COMBOS, ["mcd", "imp"], ["deep", "unc"]],
        "pairwisegp": True,
        "pairwisegp_max_questions": {"beer": 0, "coffee": 0, "semeval": 60, "wikiqa": 60},
    },
    datasets=tuple(
        DataSet(d, _present(d), required=d in ("beer", "coffee")) for d in ("beer", "coffee", "semeval", "wikiqa")
    ),
)


if __name__ == "__main__":
    main()
