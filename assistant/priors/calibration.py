"""Calibrating and measuring text priors: Acc@k and NLL of scores, the softmax temperature tuned on dev
queries, and the short-query temperature (people type far shorter queries than the crowd's)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def ranking_metrics(
    scores: np.ndarray, labels: np.ndarray, candidates: np.ndarray | None = None, ks: Sequence[int] = (1, 3)
) -> dict[str, float]:
    """Acc@k and mean NLL of ``scores`` [N, Y] for true ``labels`` [N], among ``candidates`` (None = all).

    A label tied with the true one counts as ranked above it (ties never flatter a prior: BM25 gives 0 to
    every label of a query without known words).
    """
    scores = np.asarray(scores, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.int64)
    if candidates is not None:
        candidates = np.asarray(candidates, dtype=np.int64)
        position = -np.ones(scores.shape[1], dtype=np.int64)
        position[candidates] = np.arange(len(candidates))
        keep = position[labels] >= 0
        scores, labels = scores[keep][:, candidates], position[labels[keep]]
    if len(labels) == 0:
        return {**{f"acc{k}": float("nan") for k in ks}, "nll": float("nan"), "n": 0.0}
    true = scores[np.arange(len(labels)), labels][:, None]
    rank = (scores > true).sum(axis=1) + (scores == true).sum(axis=1) - 1
    shifted = scores - scores.max(axis=1, keepdims=True)
    log_z = np.log(np.exp(shifted).sum(axis=1))
    nll = float(np.mean(log_z - shifted[np.arange(len(labels)), labels]))
    return {**{f"acc{k}": float(np.mean(rank < k)) for k in ks}, "nll": nll, "n": float(len(labels))}


def tune_temperature(scores: np.ndarray, labels: np.ndarray) -> float:
    """The T minimising dev NLL of softmax(scores / T) (a grid over 0.01..100; 1.0 without dev data)."""
    if len(labels) == 0:
        return 1.0
    grid = np.geomspace(0.01, 100.0, 161)
    nll = [ranking_metrics(scores / t, labels, ks=())["nll"] for t in grid]
    return float(grid[int(np.argmin(nll))])


# Queries of at most this many words get their own softmax temperature (see ``short_query_windows``).
SHORT_QUERY_WORDS = 3


def short_query_windows(texts: Sequence[str], labels: np.ndarray, seed: int = 0) -> tuple[list[str], np.ndarray]:
    """A window of 1 to ``SHORT_QUERY_WORDS`` consecutive words of each longer query, with its label.

    People type "cannot log in" or "red crest", shorter than the crowd's dev queries, and one temperature
    tuned on the dev queries is far too sharp for them (pooled MiniLM on FAQ: T at the grid's floor, 0.01,
    so that "gmail" gave one FAQ 100%). Short queries get a temperature tuned on these windows instead;
    longer ones keep the dev-tuned one, so that neither kind is miscalibrated for the other.
    """
    rng = np.random.default_rng(seed)
    out_texts, out_labels = [], []
    for text, label in zip(texts, labels):
        words = text.split()
        if len(words) > 1:
            size = int(rng.integers(1, min(SHORT_QUERY_WORDS, len(words) - 1) + 1))
            start = int(rng.integers(0, len(words) - size + 1))
            out_texts.append(" ".join(words[start : start + size]))
            out_labels.append(label)
    return out_texts, np.asarray(out_labels, dtype=np.int64)


def split_by_length(
    texts: Sequence[str], labels: np.ndarray
) -> tuple[tuple[list[str], np.ndarray], tuple[list[str], np.ndarray]]:
    """((longer texts, labels), (short texts, labels)): queries of more / at most ``SHORT_QUERY_WORDS`` words,
    each kind for its own temperature."""
    labels = np.asarray(labels, dtype=np.int64)
    short = np.array([len(t.split()) <= SHORT_QUERY_WORDS for t in texts], dtype=bool)
    pick = lambda keep: ([t for t, k in zip(texts, keep) if k], labels[keep])  # noqa: E731
    return pick(~short), pick(short)


def query_temperatures(texts: Sequence[str], temperature: float, short_temperature: float | None) -> np.ndarray:
    """[N, 1] the temperature of each query: ``short_temperature`` for queries of at most
    ``SHORT_QUERY_WORDS`` words (when set), ``temperature`` otherwise."""
    out = np.full((len(texts), 1), temperature, dtype=np.float64)
    if short_temperature is not None:
        short = np.array([len(t.split()) <= SHORT_QUERY_WORDS for t in texts], dtype=bool)
        out[short] = short_temperature
    return out
