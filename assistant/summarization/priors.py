"""Prior scores of candidate summaries, used as the GP prior mean (BO's warm start).

* ``reaper_prior``: the REAPER-style heuristic (Ryang & Abekawa 2012, as in BO's code):
  0.9 * sum over the summary's sentences of (TF-IDF cosine to the document set + 1 / position)
  - 0.1 * sum over its sentence pairs of their TF-IDF cosine (redundancy).
* ``minilm_prior``: reference-free, in the spirit of SUPERT (Gao et al. 2020): a pseudo-reference of salient
  sentences (the first ``lead`` sentences of each document, SUPERT's choice), then the F1 of a soft
  sentence alignment with MiniLM cosines: precision = mean over the summary's sentences of their best
  cosine to the pseudo-reference, recall = mean over the pseudo-reference of its best cosine to the summary.
  With a question, the cosine of the pooled summary to the question is added (query focus).

Shapes: S sentences, N candidates, D embedding dims.
"""

from __future__ import annotations

import numpy as np

from assistant.summarization.candidates import CandidateSet
from assistant.summarization.features import TermStats
from assistant.summarization.text import SentenceTable

PRIORS = ("reaper", "minilm")
RELATEDNESS_WEIGHT = 0.9


def sentence_relatedness(table: SentenceTable, stats: TermStats, query_cosine: np.ndarray | None = None) -> np.ndarray:
    """[S] REAPER's per-sentence relatedness: cosine to the documents (or the question) + 1 / position."""
    cos = stats.doc_cosine if query_cosine is None else 0.5 * (stats.doc_cosine + query_cosine)
    return cos + 1.0 / table.position


def reaper_prior(
    table: SentenceTable, stats: TermStats, candidates: CandidateSet, query_cosine: np.ndarray | None = None
) -> np.ndarray:
    """[N] the heuristic score of every candidate."""
    a = candidates.incidence
    related = a @ sentence_relatedness(table, stats, query_cosine)
    sim = stats.similarity.copy()
    np.fill_diagonal(sim, 0.0)
    redundancy = 0.5 * _pairs(a, sim)  # each pair counted twice by a^T sim a
    return RELATEDNESS_WEIGHT * related - (1 - RELATEDNESS_WEIGHT) * redundancy


def _pairs(a, sim: np.ndarray) -> np.ndarray:
    """Row-wise a_i^T sim a_i without densifying a (large candidate sets)."""
    prod = a @ sim  # [N, S] dense
    return np.asarray(a.multiply(prod).sum(axis=1)).ravel()


def pseudo_reference(table: SentenceTable, lead: int = 3) -> np.ndarray:
    """Indices of the salient sentences: the first ``lead`` of each document."""
    return np.flatnonzero(table.position <= lead)


def minilm_prior(
    table: SentenceTable,
    candidates: CandidateSet,
    embeddings: np.ndarray,
    question_embedding: np.ndarray | None = None,
    lead: int = 3,
) -> np.ndarray:
    """[N] SUPERT-like score: soft-alignment F1 with the pseudo-reference (+ question cosine)."""
    e = np.asarray(embeddings, dtype=np.float64)
    ref = pseudo_reference(table, lead)
    sim = e @ e[ref].T  # [S, R]
    members = candidates.members()  # [N, K], -1 padded
    valid = members >= 0
    gathered = sim[np.where(valid, members, 0)]  # [N, K, R]
    gathered[~valid] = -np.inf
    best_per_ref = gathered.max(axis=1)  # [N, R]
    recall = best_per_ref.mean(axis=1)
    best_per_sentence = np.where(valid, gathered.max(axis=2), 0.0)
    precision = best_per_sentence.sum(axis=1) / np.maximum(valid.sum(axis=1), 1)
    f1 = 2 * precision * recall / np.maximum(precision + recall, 1e-12)
    if question_embedding is not None:
        from assistant.summarization.features import pooled_embeddings

        f1 = f1 + pooled_embeddings(candidates, e) @ np.asarray(question_embedding, dtype=np.float64)
    return f1
