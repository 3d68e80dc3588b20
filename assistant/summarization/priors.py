"""Prior scores of candidate summaries, used as the GP prior mean (BO's warm start).

* ``reaper_prior``: the REAPER-style heuristic (Ryang & Abekawa 2012, as in BO's code):
  0.9 * sum over the summary's sentences of (TF-IDF cosine to the document set + 1 / position)
  - 0.1 * sum over its sentence pairs of their TF-IDF cosine (redundancy). The cosines are BO's (the
  "Japan version" of their ``State.getSimilarity``): a TF-IDF model fitted on just the two texts compared
  (sklearn's smoothed idf over two documents: 1 for a shared word, ln(3/2) + 1 for the others), over
  stemmed tokens without stopwords. ``ReaperStats`` computes all of them at once in closed form.
* ``minilm_prior``: reference-free, in the spirit of SUPERT (Gao et al. 2020): a pseudo-reference of salient
  sentences (the first ``lead`` sentences of each document, SUPERT's choice), then the F1 of a soft
  sentence alignment with MiniLM cosines: precision = mean over the summary's sentences of their best
  cosine to the pseudo-reference, recall = mean over the pseudo-reference of its best cosine to the summary.
  With a question, the cosine of the pooled summary to the question is added (query focus).

Shapes: S sentences, N candidates, D embedding dims.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from assistant.summarization.candidates import CandidateSet
from assistant.summarization.text import SentenceTable

PRIORS = ("reaper", "minilm")
RELATEDNESS_WEIGHT = 0.9
_UNSHARED_IDF = float(np.log(1.5) + 1.0)  # sklearn's smoothed idf of a word in one of two documents


@dataclass
class ReaperStats:
    """BO's two-text TF-IDF cosines: of each sentence with the whole document set [S], and of every pair of
    sentences [S, S] (diagonal 0). Tokens: stemmed, stopwords and one-letter tokens removed (sklearn's
    default token pattern keeps words of two characters or more)."""

    doc_cosine: np.ndarray
    similarity: np.ndarray

    @classmethod
    def from_table(cls, table: SentenceTable) -> ReaperStats:
        vocab: dict[str, int] = {}
        rows, cols, vals = [], [], []
        for i, words in enumerate(table.content):
            for word, count in Counter(w for w in words if len(w) > 1).items():
                rows.append(i)
                cols.append(vocab.setdefault(word, len(vocab)))
                vals.append(count)
        n = len(table)
        counts = sp.csr_matrix((vals, (rows, cols)), shape=(n, max(len(vocab), 1)), dtype=np.float64)
        present = (counts > 0).astype(np.float64)
        k2 = _UNSHARED_IDF**2
        sq_norm = np.asarray(counts.multiply(counts).sum(axis=1)).ravel()  # [S]
        # sentence vs the documents: the sentence's words are in both texts (idf 1), the documents' other
        # words only in one (idf k): |d|^2 = k^2 |D|^2 - (k^2 - 1) sum over the sentence's words of D_w^2
        whole = np.asarray(counts.sum(axis=0)).ravel()  # [V]
        doc_sq = k2 * float(whole @ whole) - (k2 - 1) * (present @ (whole * whole))
        dot = counts @ whole
        denom = np.sqrt(sq_norm * np.clip(doc_sq, 0, None))
        doc_cosine = np.divide(dot, denom, out=np.zeros(n), where=denom > 0)
        # two sentences: shared words idf 1, the others k in their own text
        shared_sq = (counts.multiply(counts) @ present.T).toarray()  # [i, j]: sum over words of i also in j of C_i^2
        left = k2 * sq_norm[:, None] - (k2 - 1) * shared_sq
        denom = np.sqrt(np.clip(left * left.T, 0, None))
        pair_dot = (counts @ counts.T).toarray()
        similarity = np.divide(pair_dot, denom, out=np.zeros((n, n)), where=denom > 0)
        np.fill_diagonal(similarity, 0.0)
        return cls(doc_cosine, similarity)


def sentence_relatedness(
    table: SentenceTable, stats: ReaperStats, query_cosine: np.ndarray | None = None
) -> np.ndarray:
    """[S] REAPER's per-sentence relatedness: cosine to the documents (or the question) + 1 / position."""
    cos = stats.doc_cosine if query_cosine is None else 0.5 * (stats.doc_cosine + query_cosine)
    return cos + 1.0 / table.position


def reaper_prior(
    table: SentenceTable, stats: ReaperStats, candidates: CandidateSet, query_cosine: np.ndarray | None = None
) -> np.ndarray:
    """[N] the heuristic score of every candidate."""
    a = candidates.incidence
    related = a @ sentence_relatedness(table, stats, query_cosine)
    redundancy = 0.5 * _pairs(a, stats.similarity)  # each pair counted twice by a^T sim a
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
