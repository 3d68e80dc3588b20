"""Sentence statistics and candidate features, vectorised with sparse matrices.

* ``TermStats``: TF-IDF of every sentence over content tokens (stemmed, stopwords removed; idf over the
  sentences of the topic), the whole document set as one TF-IDF vector, sentence-sentence cosines [S, S].
* ``bigram_plus``: BO's "bigram+" features (after Gao et al. 2018's APRIL state vector): for the 200 most
  frequent bigrams of the documents (stemmed tokens within a sentence, stopwords kept but not bigrams of two
  stopwords, as BO's ``getTopNgrams``), whether the summary contains each, then coverage (share of them it
  contains), redundancy (share it contains twice or more), length / limit, position (sum of 1 / position of
  its sentences) and the within-limit bit. [N, 205] = incidence [N, S] @ bigram counts [S, 200].
* ``pooled_embeddings``: the mean of the summary's MiniLM sentence embeddings, L2-normalised [N, 384].
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from assistant.summarization.candidates import MAX_WORDS, CandidateSet
from assistant.summarization.text import SentenceTable, stopwords

TOP_BIGRAMS = 200


def _normalise_rows(m: sp.csr_matrix) -> sp.csr_matrix:
    norms = np.sqrt(np.asarray(m.multiply(m).sum(axis=1)).ravel())
    return sp.diags(1.0 / np.where(norms > 0, norms, 1.0)) @ m


@dataclass
class TermStats:
    """TF-IDF statistics of one sentence table."""

    vocab: dict[str, int]
    tfidf: sp.csr_matrix  # [S, V] L2-normalised rows
    idf: np.ndarray  # [V]
    doc_cosine: np.ndarray  # [S] cosine of each sentence to the whole document set
    similarity: np.ndarray  # [S, S] sentence-sentence cosines

    @classmethod
    def from_table(cls, table: SentenceTable) -> TermStats:
        vocab: dict[str, int] = {}
        rows, cols, vals = [], [], []
        for s, words in enumerate(table.content):
            for word, count in Counter(words).items():
                rows.append(s)
                cols.append(vocab.setdefault(word, len(vocab)))
                vals.append(count)
        counts = sp.csr_matrix((vals, (rows, cols)), shape=(len(table), max(len(vocab), 1)), dtype=np.float64)
        df = np.asarray((counts > 0).sum(axis=0)).ravel()
        idf = np.log((1.0 + len(table)) / (1.0 + df)) + 1.0
        tfidf = _normalise_rows(counts @ sp.diags(idf))
        whole = np.asarray(counts.sum(axis=0)).ravel() * idf
        whole /= max(float(np.linalg.norm(whole)), 1e-12)
        return cls(vocab, sp.csr_matrix(tfidf), idf, tfidf @ whole, (tfidf @ tfidf.T).toarray())

    def query_cosine(self, tokens: list[str]) -> np.ndarray:
        """[S] cosine of each sentence to a query's content tokens (zeros for an empty query)."""
        q = np.zeros(len(self.idf))
        for word, count in Counter(tokens).items():
            if word in self.vocab:
                q[self.vocab[word]] = count * self.idf[self.vocab[word]]
        norm = np.linalg.norm(q)
        return self.tfidf @ (q / norm) if norm > 0 else np.zeros(self.tfidf.shape[0])


def sentence_bigrams(table: SentenceTable) -> list[Counter]:
    """Bigrams of each sentence's stemmed tokens, leaving out those made of two stopwords (BO)."""
    stop = stopwords()
    return [
        Counter(b for b in itertools.pairwise(words) if not (b[0] in stop and b[1] in stop)) for words in table.tokens
    ]


@dataclass
class BigramSpace:
    """The top document bigrams and each sentence's counts of them [S, B]."""

    bigrams: list[tuple[str, str]]
    counts: sp.csr_matrix

    @classmethod
    def from_table(cls, table: SentenceTable, top: int = TOP_BIGRAMS) -> BigramSpace:
        per_sentence = sentence_bigrams(table)
        total: Counter = Counter()
        for c in per_sentence:
            total.update(c)
        # Most frequent first; ties by the bigram itself so that the choice is deterministic.
        bigrams = [b for b, _ in sorted(total.items(), key=lambda kv: (-kv[1], kv[0]))[:top]]
        index = {b: i for i, b in enumerate(bigrams)}
        rows, cols, vals = [], [], []
        for s, c in enumerate(per_sentence):
            for b, k in c.items():
                if b in index:
                    rows.append(s)
                    cols.append(index[b])
                    vals.append(k)
        counts = sp.csr_matrix((vals, (rows, cols)), shape=(len(table), top), dtype=np.float64)
        return cls(bigrams, counts)


def bigram_plus_from_counts(
    counts: np.ndarray, words: np.ndarray, position_score: np.ndarray, max_words: int = MAX_WORDS
) -> np.ndarray:
    """[N, B + 5] bigram+ features from bigram counts [N, B], word counts [N] and sum of 1/position [N]."""
    counts = np.asarray(counts, dtype=np.float64)
    b = max(counts.shape[1], 1)
    present = (counts > 0).astype(np.float64)
    extra = np.stack(
        [
            present.sum(axis=1) / b,
            (counts >= 2).sum(axis=1) / b,
            words / max_words,
            position_score,
            (words <= max_words).astype(np.float64),
        ],
        axis=1,
    )
    return np.hstack([present, extra])


def bigram_plus(
    table: SentenceTable, candidates: CandidateSet, space: BigramSpace | None = None, max_words: int = MAX_WORDS
) -> np.ndarray:
    """[N, 205] BO's bigram+ features of every candidate."""
    space = space or BigramSpace.from_table(table)
    a = candidates.incidence
    counts = (a @ space.counts).toarray()
    return bigram_plus_from_counts(counts, a @ table.words.astype(np.float64), a @ (1.0 / table.position), max_words)


def pooled_embeddings(candidates: CandidateSet, sentence_embeddings: np.ndarray) -> np.ndarray:
    """[N, D] mean of each candidate's sentence embeddings [S, D], L2-normalised."""
    pooled = np.asarray(candidates.incidence @ np.asarray(sentence_embeddings, dtype=np.float64))
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return pooled / np.where(norms > 0, norms, 1.0)


FEATURES = ("bigram", "minilm")
