"""`clarify learn evaluate`: DASL's protocol, every strategy on the same splits and seeds.

Per seed: an 80/10/10 split of the questions (pool to label / dev / test), a random initial labelled set
of ``initial_fraction`` of the pool (the same for every strategy of that seed), then ``rounds`` rounds of
``round_fraction`` each; MRR on the test questions after every round. "full" trains on the whole pool.

Outputs: rows {dataset, model, method (dasl|dal|bald|coreset|random|full), labelled_fraction, mrr, seed}
(full rows at labelled_fraction 1.0; active rows also carry round and pseudo_labelled), and DASL's
Table 1: ``needed`` = {dataset, model, method, fraction}, the smallest labelled fraction at which the
method's seed-mean MRR reaches the seed-mean full-data MRR (null when it never does within the rounds).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch

from assistant.errors import ConfigError
from assistant.evaluation.cqa.data import canonical_name
from assistant.evaluation.learning.data import load_problems
from assistant.learning.acquisition import ACQUISITIONS, make_acquisition
from assistant.learning.loop import LoopConfig, active_learning_run, full_data_run, within_step
from assistant.learning.models import MODELS, TrainConfig, make_selector
from assistant.learning.pace import SelfPacedPace
from assistant.learning.problems import split_questions
from assistant.progress import Job

METHODS = tuple(ACQUISITIONS)


@dataclass(frozen=True)
class EvaluationConfig:
    """The protocol's sizes (fractions of the pool) and the models' settings (chosen on dev splits)."""

    initial_fraction: float = 0.05
    round_fraction: float = 0.05
    rounds: int = 17
    samples: int = 100
    bald_temperature: float = 1.0
    pace: SelfPacedPace = field(default_factory=SelfPacedPace)
    train: TrainConfig = field(default_factory=TrainConfig)

    def __post_init__(self) -> None:
        if not (0 < self.initial_fraction <= 1 and 0 < self.round_fraction <= 1):
            raise ConfigError("initial_fraction and round_fraction must lie in (0, 1]")

    def loop(self, pool_size: int) -> LoopConfig:
        return LoopConfig(
            initial=max(1, round(self.initial_fraction * pool_size)),
            per_round=max(1, round(self.round_fraction * pool_size)),
            rounds=self.rounds,
            samples=self.samples,
            bald_temperature=self.bald_temperature,
        )


def parse_methods(methods: str | Sequence[str]) -> list[str]:
    items = [m.strip().lower() for m in (methods.split(",") if isinstance(methods, str) else methods) if m.strip()]
    bad = [m for m in items if m not in METHODS]
    if bad or not items:
        raise ConfigError(f"unknown method {', '.join(bad) or '(none given)'}: choose from {', '.join(METHODS)}")
    return list(dict.fromkeys(items))


def fraction_needed(rows: Sequence[dict], tolerance: float = 0.0) -> list[dict]:
    """DASL Table 1: per (dataset, model, method) the smallest labelled fraction whose seed-mean MRR reaches
    (1 - tolerance) x the seed-mean full-data MRR; None if no round reached it."""
    out = []
    groups = list(dict.fromkeys((r["dataset"], r["model"]) for r in rows))
    for dataset, model in groups:
        mine = [r for r in rows if (r["dataset"], r["model"]) == (dataset, model)]
        full = [r["mrr"] for r in mine if r["method"] == "full"]
        if not full:
            continue
        target = (1.0 - tolerance) * float(np.mean(full))
        for method in dict.fromkeys(r["method"] for r in mine if r["method"] != "full"):
            curve: dict[float, list[float]] = {}
            for r in mine:
                if r["method"] == method:
                    curve.setdefault(round(r["labelled_fraction"], 6), []).append(r["mrr"])
            reached = [f for f in sorted(curve) if np.mean(curve[f]) >= target]
            out.append(
                {"dataset": dataset, "model": model, "method": method, "fraction": reached[0] if reached else None}
            )
        out.append({"dataset": dataset, "model": model, "method": "full", "fraction": 1.0})
    return out


def curve_means(rows: Sequence[dict], up_to: float = 0.5) -> list[dict]:
    """Per (dataset, model, method) the mean over the labelled fractions <= ``up_to`` of the seed-mean test MRR:
    the area under the early part of the learning curve, steadier than a first crossing when curves are
    noisy (one lucky round decides ``fraction_needed``)."""
    out = []
    for dataset, model, method in dict.fromkeys((r["dataset"], r["model"], r["method"]) for r in rows):
        if method == "full":
            continue
        curve: dict[float, list[float]] = {}
        for r in rows:
            if (r["dataset"], r["model"], r["method"]) == (dataset, model, method) and r["labelled_fraction"] <= up_to:
                curve.setdefault(round(r["labelled_fraction"], 6), []).append(r["mrr"])
        if curve:
            value = float(np.mean([np.mean(v) for v in curve.values()]))
            out.append({"dataset": dataset, "model": model, "method": method, "up_to": up_to, "mean_mrr": value})
    return out


def evaluate(
    dataset: str,
    model: str = "deep",
    methods: str | Sequence[str] = METHODS,
    seeds: int = 4,
    config: EvaluationConfig | None = None,
    data_dir: str | Path | None = None,
    candidates: int = 20,
    encoder=None,
    max_questions: int | None = None,
    first_seed: int = 0,
) -> Job[dict]:
    """Run the protocol on ``dataset`` for seeds ``first_seed .. first_seed + seeds - 1``; yields Progress,
    returns {"rows", "needed", ...} (see the module doc). Seeds are independent: runs of disjoint seed
    ranges concatenate to the run of their union."""
    if model not in MODELS:
        raise ConfigError(f"unknown model {model!r}: use one of {', '.join(MODELS)}")
    if seeds < 1:
        raise ConfigError(f"--seeds must be at least 1, got {seeds}")
    methods = parse_methods(methods)
    config = config or EvaluationConfig()
    name = canonical_name(dataset)
    problems = yield from load_problems(name, data_dir, candidates, encoder)
    if max_questions is not None:
        problems = problems[:max_questions]
    rows: list[dict] = []
    total = seeds * (1 + len(methods))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # small ops; two threads were slower on a shared two-core machine
    try:
        for seed in range(first_seed, first_seed + seeds):
            split = split_questions(len(problems), seed)
            pool, dev, test = ([problems[i] for i in split[k]] for k in ("train", "dev", "test"))
            loop = config.loop(len(pool))

            def make(model_seed: int):
                return make_selector(model, config.train, model_seed)

            step = (seed - first_seed) * (1 + len(methods))
            full = yield from within_step(full_data_run(make, pool, dev, test, seed), step, total, f"seed {seed} full")
            rows.append(_row(name, model, "full", 1.0, full["mrr"], seed, labelled=len(pool)))
            for m, method in enumerate(methods):
                acquisition = make_acquisition(method, config.pace)
                run = active_learning_run(make, pool, dev, test, acquisition, loop, seed)
                for r in (yield from within_step(run, step + 1 + m, total, f"seed {seed} {method}")):
                    rows.append(_row(name, model, method, r["labelled_fraction"], r["mrr"], seed, **_extra(r)))
    finally:
        torch.set_num_threads(threads)
    return {
        "dataset": name,
        "model": model,
        "seeds": seeds,
        "questions": len(problems),
        "pool": len(split["train"]),
        "dev": len(split["dev"]),
        "test": len(split["test"]),
        "config": asdict(config),
        "blas": f"OPENBLAS_THREAD_TIMEOUT={os.environ.get('OPENBLAS_THREAD_TIMEOUT', 'unset')}, torch threads 1",
        "rows": rows,
        "needed": fraction_needed(rows),
        "curve_means": curve_means(rows),
    }


def _row(dataset: str, model: str, method: str, fraction: float, value: float, seed: int, **extra) -> dict:
    return {
        "dataset": dataset,
        "model": model,
        "method": method,
        "labelled_fraction": float(fraction),
        "mrr": float(value),
        "seed": seed,
        **extra,
    }


def _extra(row: dict) -> dict:
    keys = ("round", "labelled", "pseudo_labelled", "pseudo_accuracy", "dev_mrr", "seconds")
    return {k: row[k] for k in keys if k in row}


def summary_table(result: dict) -> str:
    """Plain text: seed-mean MRR per method at a few labelled fractions, and the fraction needed."""
    rows = result["rows"]
    needed = {n["method"]: n["fraction"] for n in result["needed"]}
    early = {c["method"]: c["mean_mrr"] for c in curve_means(rows)}
    fractions = sorted({round(r["labelled_fraction"], 3) for r in rows if r["method"] != "full"})
    shown = fractions[:: max(1, len(fractions) // 6)][:6] + fractions[-1:] if fractions else []
    shown = sorted(set(shown))
    header = f"{'method':<8} " + " ".join(f"{f:>6.0%}" for f in shown) + f" {'needed':>11} {'mean<=50%':>9}"
    lines = [header]
    for method in dict.fromkeys(r["method"] for r in rows):
        cells = []
        for f in shown if method != "full" else []:
            values = [r["mrr"] for r in rows if r["method"] == method and round(r["labelled_fraction"], 3) == f]
            cells.append(f"{np.mean(values):6.3f}" if values else " " * 6)
        if method == "full":
            mean = np.mean([r["mrr"] for r in rows if r["method"] == "full"])
            cells = [f"{mean:6.3f}".rjust(6 * len(shown) + len(shown) - 1)] if shown else [f"{mean:6.3f}"]
        value = needed.get(method)
        reached = f"{100 * value:.0f}%" if value else "not reached"
        mean = f"{early[method]:.3f}" if method in early else ""
        lines.append(f"{method:<8} " + " ".join(cells) + f" {reached:>11} {mean:>9}")
    return "\n".join(lines)
