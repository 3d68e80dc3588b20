"""Relevance of tags to labels, used to choose which tags to show crowd workers for each label.

A scorer is any callable ``scorer(documents, tags) -> [len(documents), len(tags)]`` array (higher = more
relevant): the documents describe the labels (name, text, training queries; see ``label_queries_text``), the
tags are the question tags. ``BM25Scorer`` (the default) indexes the tags with BM25 (via ``bm25s``) and
queries them with each label's document; a trained encoder can replace it later without touching the
exporter.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from assistant.errors import ConfigError
from assistant.store import Domain
from assistant.text.bm25 import BM25Index, check_bm25_parameters
from assistant.text.lemmas import noun_lemma
from assistant.text.tokens import STOPWORDS, words


class RelevanceScorer(Protocol):
    """scorer(documents, tags) -> float array [len(documents), len(tags)]; higher means more relevant."""

    def __call__(self, documents: Sequence[str], tags: Sequence[str]) -> np.ndarray: ...


def tokens(text: str) -> list[str]:
    """Content words of ``text``, plurals singular (tags and label texts are tokenised the same way)."""
    return [noun_lemma(w.replace("'", "")) for w in words(text.replace("_", " ")) if w not in STOPWORDS]


def label_queries_text(domain: Domain, split: str = "train") -> list[str]:
    """One text per label for ranking tags: its name, its description and its queries in ``split`` (what
    people say about the label; ``assistant.text.label_text.label_documents`` is the encoders' version)."""
    texts: list[list[str]] = [[label.name, label.text] for label in domain.labels]
    query_texts, query_labels = domain.queries(split)
    for text, y in zip(query_texts, query_labels):
        texts[int(y)].append(text)
    return ["\n".join(t for t in parts if t) for parts in texts]


class BM25Scorer:
    """BM25 (Lucene variant, ``bm25s``) over the tags, queried with each label's document.

    A word used often in a label's texts weighs more in its query, so tags matching what users say about a
    label rank first; ``k1`` and ``b`` are the usual BM25 parameters.
    """

    name = "bm25"

    def __init__(self, k1: float = 1.5, b: float = 0.75) -> None:
        check_bm25_parameters(k1, b)
        self.k1 = k1
        self.b = b

    def __call__(self, documents: Sequence[str], tags: Sequence[str]) -> np.ndarray:
        corpus = [tokens(tag) for tag in tags]
        if not any(corpus):
            return np.zeros((len(documents), len(tags)), dtype=np.float32)
        index = BM25Index(corpus, k1=self.k1, b=self.b)
        return np.stack([index.scores(tokens(document)) for document in documents]).reshape(len(documents), -1)


def rank(scores: np.ndarray, allowed: np.ndarray | None = None, top: int = 50) -> list[list[int]]:
    """For each row of ``scores`` [D, T], the indices of its ``top`` best columns (ties: lower index first).

    ``allowed`` [D, T] bool excludes pairs (e.g. already annotated ones).
    """
    if top < 1:
        raise ConfigError(f"the number of tags per label must be at least 1, got {top}")
    scores = np.asarray(scores, dtype=np.float64)
    ranked = []
    for d in range(scores.shape[0]):
        candidates = np.arange(scores.shape[1]) if allowed is None else np.flatnonzero(allowed[d])
        order = candidates[np.argsort(-scores[d, candidates], kind="stable")]
        ranked.append(order[:top].tolist())
    return ranked
