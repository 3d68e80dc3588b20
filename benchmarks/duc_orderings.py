"""Why BT + UNC beats GPPL + IMP on DUC 2004 (issue 43): BO's summary-rating protocol on a few topics with
GPPL's scales, prior weight and pool varied one at a time, and BT's regularisation, beside the defaults.

    python -m benchmarks.duc_orderings --topics 6 --seed 5 [--data-dir ../shared/data] [--only NAME ...]

Prints JSON (NDCG@1% after 20 comparisons per variant and strategy, with the paired bootstrap interval of
GPPL + IMP - BT + UNC over the simulated users) and a one-line summary. Variants: see ``VARIANTS``.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from assistant.evaluation.intervals import bootstrap_interval, paired_difference
from assistant.evaluation.summaries.rating import evaluate
from assistant.progress import run_job
from assistant.summarization.ranker import SummaryRankerSettings

BASE = SummaryRankerSettings()
VARIANTS = {
    "defaults": BASE,
    "lengthscale x2": replace(BASE, gppl_lengthscale_factor=1.0),
    "lengthscale x4": replace(BASE, gppl_lengthscale_factor=2.0),
    "lengthscale x8": replace(BASE, gppl_lengthscale_factor=4.0),
    "output scale 1": replace(BASE, gppl_output_scale=1.0),
    "prior scale 1": replace(BASE, gppl_prior_scale=1.0),
    "prior scale 0": replace(BASE, gppl_prior_scale=0.0),
    "pool 1000": replace(BASE, pool_size=1000),
    "lengthscale x0.5": replace(BASE, gppl_lengthscale_factor=0.25),
    "output scale 16": replace(BASE, gppl_output_scale=16.0),
    "BT l2 10": replace(BASE, bt_l2=10.0),
    "BT prior scale 0.5": replace(BASE, bt_prior_scale=0.5),
    "BT prior scale 0": replace(BASE, bt_prior_scale=0.0),
}


def main(argv: list[str] | None = None) -> dict:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m benchmarks.duc_orderings")
    parser.add_argument("--dataset", default="duc2004")
    parser.add_argument("--topics", type=int, default=6)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--interactions", type=int, default=20)
    parser.add_argument("--data-dir", default=os.environ.get("CLARIFY_SHARED_DATA", "../shared/data"))
    parser.add_argument("--only", action="append", default=None, choices=list(VARIANTS))
    parser.add_argument("--strategies", default="imp,unc,random", help="comma-separated (imp - unc needs both)")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    strategies = [x.strip() for x in args.strategies.split(",") if x.strip()]
    out: dict = {"dataset": args.dataset, "topics": args.topics, "seed": args.seed, "variants": {}}
    for name in args.only or list(VARIANTS):
        result = run_job(
            evaluate(
                args.dataset,
                args.interactions,
                strategies,
                seed=args.seed,
                max_topics=args.topics,
                data_dir=str(Path(args.data_dir)),
                settings=VARIANTS[name],
                checkpoints=[0, args.interactions],
            )
        )
        users = result["per_user_ndcg1pct"]
        last = args.interactions
        out["variants"][name] = {
            "settings": result["settings"],
            "prior": round(float(np.mean(users["none@0"])), 4),
            **{s: bootstrap_interval(users[f"{s}@{last}"]).text() for s in strategies},
        }
        if {"imp", "unc"} <= set(strategies):
            imp, unc = np.array(users[f"imp@{last}"]), np.array(users[f"unc@{last}"])
            out["variants"][name]["imp_minus_unc"] = paired_difference(unc, imp, names=("BT+UNC", "GPPL+IMP"))
        print(json.dumps({name: out["variants"][name]}), flush=True)
    print(json.dumps(out, indent=2))
    print(
        "duc_orderings: "
        + "; ".join(f"{n}: " + ", ".join(f"{s} {v[s]}" for s in strategies) for n, v in out["variants"].items())
    )
    return out


if __name__ == "__main__":
    main()
