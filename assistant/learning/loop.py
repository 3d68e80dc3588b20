"""The active + self-paced learning loop of DASL, as a job yielding Progress.

One run: a pool of training questions (their labels hidden until "a person" labels them), a dev split
(early stopping) and a test split (reporting). Round r = 0..R:

1. train a fresh model on the labelled questions (true grades) and this round's pseudo-labelled ones
   (the model's own top answer);
2. record the test MRR at the current labelled fraction (= labelled / pool size);
3. unless r = R: score the unlabelled pool (T MC-dropout passes when the acquisition reads them), let the
   acquisition pick ``per_round`` questions to label, and, for DASL, pseudo-label the unlabelled questions
   whose expected ranking loss is under the pace's threshold of round r.

``full_data_run`` trains once on the whole pool, labelled: the reference MRR of DASL's Table 1.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from assistant.errors import ConfigError
from assistant.learning.acquisition import DASL, Acquisition, PoolEstimate
from assistant.learning.models import AnswerSelector
from assistant.learning.problems import LearningProblem, mrr
from assistant.learning.uncertainty import bald_scores, expected_ranking_losses, pseudo_grades
from assistant.progress import Job, Progress, metrics_of

SelectorFactory = Callable[[int], AnswerSelector]


@dataclass(frozen=True)
class LoopConfig:
    """``initial`` labelled questions drawn at random, then ``rounds`` rounds of ``per_round`` each;
    ``samples``: T MC-dropout passes; ``bald_temperature``: the softmax temperature BALD reads scores at."""

    initial: int = 20
    per_round: int = 20
    rounds: int = 10
    samples: int = 100
    bald_temperature: float = 1.0

    def __post_init__(self) -> None:
        if self.initial < 1 or self.per_round < 1 or self.rounds < 0:
            raise ConfigError("initial and per_round must be >= 1 and rounds >= 0")
        if self.samples < 2:
            raise ConfigError(f"MC dropout needs at least 2 samples, got {self.samples}")


def estimate_pool(
    model: AnswerSelector,
    pool: Sequence[LearningProblem],
    labelled: Sequence[LearningProblem],
    acquisition: Acquisition,
    samples: int,
    seed: int,
    bald_temperature: float = 1.0,
) -> PoolEstimate:
    """What ``acquisition`` needs to know about ``pool``: MC samples (if it reads them), their expected
    ranking losses and BALD scores, and the question representations of the pool and the labelled set."""
    draws: list[np.ndarray] = model.mc_samples(pool, samples, seed) if acquisition.needs_samples else []
    u = len(pool)
    return PoolEstimate(
        losses=expected_ranking_losses(draws) if draws else np.zeros(u),
        bald=bald_scores(draws, bald_temperature) if draws else np.zeros(u),
        embeddings=model.embed(pool),
        labelled_embeddings=model.embed(labelled) if labelled else np.zeros((0, model.embed(pool[:1]).shape[1])),
        samples=draws,
    )


def active_learning_run(
    make_model: SelectorFactory,
    pool: Sequence[LearningProblem],
    dev: Sequence[LearningProblem],
    test: Sequence[LearningProblem],
    acquisition: Acquisition,
    config: LoopConfig,
    seed: int,
) -> Job[list[dict]]:
    """Rows {round, labelled, pseudo_labelled, labelled_fraction, mrr, dev_mrr, seconds} for rounds 0..R."""
    if config.initial > len(pool):
        raise ConfigError(f"the initial labelled set ({config.initial}) is larger than the pool ({len(pool)})")
    rng = np.random.default_rng([seed, 17])
    labelled = list(rng.choice(len(pool), size=config.initial, replace=False))
    unlabelled = sorted(set(range(len(pool))) - set(labelled))
    pseudo: dict[int, np.ndarray] = {}
    rows: list[dict] = []
    for r in range(config.rounds + 1):
        start = time.perf_counter()
        train = [pool[i] for i in labelled] + [pool[i] for i in pseudo]
        targets = [pool[i].grades for i in labelled] + list(pseudo.values())
        model = make_model(seed * 1000 + r)
        fitted = yield from within_step(
            model.fit(train, targets, dev), r, config.rounds + 1, f"{acquisition.name} round {r}"
        )
        row = {
            "round": r,
            "labelled": len(labelled),
            "pseudo_labelled": len(pseudo),
            "labelled_fraction": len(labelled) / len(pool),
            "mrr": mrr(model.scores(test), test),
            "dev_mrr": fitted["dev_mrr"],
        }
        if r < config.rounds and unlabelled:
            candidates = [pool[i] for i in unlabelled]
            estimate = estimate_pool(
                model,
                candidates,
                [pool[i] for i in labelled],
                acquisition,
                config.samples,
                seed * 1000 + r,
                config.bald_temperature,
            )
            chosen = acquisition(estimate, config.per_round, rng)
            pseudo = {}
            if isinstance(acquisition, DASL):
                for j in acquisition.pseudo_labelled(estimate, chosen, r):
                    pseudo[unlabelled[j]] = pseudo_grades(estimate.samples[j])
                row["pseudo_accuracy"] = float(
                    np.mean([pool[i].correct[np.argmax(g)] for i, g in pseudo.items()]) if pseudo else np.nan
                )
            picked = {unlabelled[j] for j in chosen}
            labelled += [unlabelled[j] for j in chosen]
            unlabelled = [i for i in unlabelled if i not in picked]
        row["seconds"] = time.perf_counter() - start
        rows.append(row)
        yield Progress(
            r + 1,
            config.rounds + 1,
            f"{acquisition.name} round {r}",
            metrics_of(mrr=row["mrr"], labelled_fraction=row["labelled_fraction"]),
        )
    return rows


def full_data_run(
    make_model: SelectorFactory,
    pool: Sequence[LearningProblem],
    dev: Sequence[LearningProblem],
    test: Sequence[LearningProblem],
    seed: int,
) -> Job[dict]:
    """Train on every pool question with its true grades: the full-data reference."""
    model = make_model(seed * 1000 + 999)
    fitted = yield from within_step(model.fit(list(pool), [p.grades for p in pool], dev), 0, 1, "full data")
    yield Progress(1, 1, "full data")
    return {"labelled": len(pool), "labelled_fraction": 1.0, "mrr": mrr(model.scores(test), test), **fitted}


def within_step(job: Job, step: int, total: int, message: str) -> Job:
    """Run a sub-job, passing on its progress as steps of the outer job (so that Cancel stays responsive)."""
    try:
        while True:
            inner = next(job)
            yield Progress(step, total, f"{message}: {inner.message}", inner.metrics)
    except StopIteration as stop:
        return stop.value
