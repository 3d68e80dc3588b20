"""DASL's answer-selection problem: one question, its candidate answers with graded relevance and their
embeddings; MRR over a set of them, and the per-seed 80 / 10 / 10 split of questions (pool / dev / test).
The loaders that build them from community-QA data sets are in ``assistant.evaluation.learning.data``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from assistant.errors import ConfigError

SPLIT_SEED = 2020
SPLIT_FRACTIONS = (0.8, 0.1, 0.1)


@dataclass(frozen=True)
class LearningProblem:
    """One question. Shapes: grades [N] int; embeddings [N, 384]; question_embedding [384]."""

    id: str
    question: str
    texts: tuple[str, ...]
    grades: np.ndarray
    question_embedding: np.ndarray
    embeddings: np.ndarray

    @property
    def correct(self) -> np.ndarray:
        """[N] bool: the best-graded answers (the ones MRR counts as correct)."""
        return self.grades == self.grades.max()


def mrr(scores: Sequence[np.ndarray], problems: Sequence[LearningProblem]) -> float:
    """Mean reciprocal rank of the first correct answer when each question's candidates are sorted by score.

    Ties count against the model (a correct answer tied with a wrong one ranks below it)."""
    if not problems:
        return float("nan")
    out = []
    for s, p in zip(scores, problems):
        s = np.asarray(s, dtype=np.float64)
        best_correct = s[p.correct].max()
        out.append(1.0 / (1 + int(np.sum(s[~p.correct] >= best_correct))))
    return float(np.mean(out))


def split_questions(n: int, seed: int) -> dict[str, np.ndarray]:
    """80 / 10 / 10 indices (train = the pool to label, dev, test) of ``n`` questions for evaluation ``seed``."""
    if n < 10:
        raise ConfigError(f"the 80/10/10 split needs at least 10 questions, the data set has {n}")
    order = np.random.default_rng([SPLIT_SEED, seed]).permutation(n)
    n_train = round(SPLIT_FRACTIONS[0] * n)
    n_dev = max(1, round(SPLIT_FRACTIONS[1] * n))
    return {
        "train": np.sort(order[:n_train]),
        "dev": np.sort(order[n_train : n_train + n_dev]),
        "test": np.sort(order[n_train + n_dev :]),
    }
