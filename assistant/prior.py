"""Priors p(y | x0): how likely each label is given the user's initial query, before any question.

A prior scores queries against every label of its domain; the clarifier turns the scores into a log
distribution over its *candidate* labels (all labels, or a subset), so one trained model serves every
candidate set.

Implementations: the trained SRU encoder (assistant.encoder), the pooled MiniLM sentence encoder, BM25
(the no-interaction baseline), and ``UniformPrior``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Prior(Protocol):
    """Scores queries against labels. ``scores(texts)`` is [N, Y] float32 logits: p(y|x) = softmax_y."""

    name: str

    def scores(self, texts: Sequence[str]) -> np.ndarray: ...


@runtime_checkable
class TagScorer(Protocol):
    """Scores the text "tag # answer" against labels: S(tag#r, y), for the learned answer model.

    ``tag_scores()`` is [Q, R, Y] float32, 0 on padded options.
    """

    def tag_scores(self) -> np.ndarray: ...


def log_softmax(scores: np.ndarray, axis: int = -1) -> np.ndarray:
    """Numerically stable log-softmax."""
    shifted = scores - scores.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def restrict(scores: np.ndarray, candidates: np.ndarray | None) -> np.ndarray:
    """log p(y|x) over ``candidates`` (label indices; None = all labels) from [N, Y] or [Y] scores."""
    picked = scores if candidates is None else scores[..., candidates]
    return log_softmax(np.asarray(picked, dtype=np.float64)).astype(np.float32)


class UniformPrior:
    """Every label equally likely, whatever the query (used by the query-free static IG baseline)."""

    name = "uniform"

    def __init__(self, num_labels: int) -> None:
        self.num_labels = num_labels

    def scores(self, texts: Sequence[str]) -> np.ndarray:
        return np.zeros((len(texts), self.num_labels), dtype=np.float32)
