"""Priors p(y | x0): how likely each label is given the user's initial query, before any question.

A prior scores queries against every label of its domain; the clarifier turns the scores into a log
distribution over its *candidate* labels (all labels, or a subset), so one trained model serves every
candidate set.

Implementations: the trained SRU encoder (``priors.sru``), the pooled MiniLM sentence encoder
(``priors.minilm``), BM25 (``priors.bm25``, the no-interaction baseline), ``UniformPrior``, and the
``CombinedPrior`` (``priors.combined``) that joins a text prior with the tags a query mentions.

Every prior is fitted on the *agent's view* of a domain (``assistant.simulation.protocol``: what the
agent may learn from; for most domains the stored domain itself), which its caller passes in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from assistant.errors import ConfigError, EmptyQueryError
from assistant.store import Domain


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


def centroid_applicable(domain: Domain) -> bool:
    """Whether every label has training queries (then a query-centroid term is fair for every label)."""
    return len(domain.labels_with_queries("train")) == domain.num_labels


def check_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise ConfigError("scores() takes a list of texts, not one string")
    texts = [str(t) for t in texts]
    if any(not t.strip() for t in texts):
        raise EmptyQueryError("a query is empty: type a few words describing what you are looking for")
    return texts


def scatter_tag_scores(domain: Domain, slots: np.ndarray, values: np.ndarray) -> np.ndarray:
    """[K, Y] scores of (q, r) slots -> [Q, R, Y] float32, 0 on padded options."""
    out = np.zeros((domain.num_questions, domain.max_options, domain.num_labels), dtype=np.float32)
    if len(slots):
        out[slots[:, 0], slots[:, 1]] = values
    return out
