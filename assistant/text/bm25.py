"""The one BM25 of the project (bm25s, Lucene variant): the BM25 text prior, the crowd export's tag
ranking and the community-QA candidate retrieval all index their texts here."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

import numpy as np

from assistant.errors import ConfigError

Tokenizer = Callable[[Sequence[str]], list[list[str]]]


def check_bm25_parameters(k1: float, b: float) -> None:
    """Raise ConfigError unless k1 >= 0 and 0 <= b <= 1 (the usual BM25 parameters)."""
    if not (k1 >= 0 and 0 <= b <= 1):
        raise ConfigError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")


def _bm25s():
    """bm25s, imported on first use (it is slow to import). bm25s sets its own logger to DEBUG, so once any
    library configures the root logger every index built prints "Building index from tokens": quieten it."""
    import bm25s

    logging.getLogger("bm25s").setLevel(logging.WARNING)
    return bm25s


def bm25_tokens(texts: Sequence[str], stopwords: str | None = "english") -> list[list[str]]:
    """bm25s' own tokeniser: lowercase words of two or more characters, English stopwords removed."""
    return _bm25s().tokenize(list(texts), stopwords=stopwords, return_ids=False, show_progress=False)


class BM25Index:
    """BM25 over ``documents`` (each a list of tokens); ``k1`` and ``b`` are the usual parameters.

    >>> index = BM25Index(bm25_tokens(["red wine", "blue cheese", "red cheese"]))
    >>> index.top(bm25_tokens(["red cheese"])[0], 1).tolist()
    [2]
    """

    def __init__(self, documents: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75) -> None:
        check_bm25_parameters(k1, b)
        self.size = len(documents)
        self.retriever = _bm25s().BM25(k1=k1, b=b)
        self.retriever.index([list(doc) for doc in documents], show_progress=False)
        self.vocabulary = self.retriever.vocab_dict

    def scores(self, query: Sequence[str]) -> np.ndarray:
        """[D] float32 score of every document for one tokenised query (0 when no token is indexed)."""
        known = [t for t in query if t in self.vocabulary]
        if not known:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self.retriever.get_scores(known), dtype=np.float32)

    def top(self, query: Sequence[str], k: int) -> np.ndarray:
        """Indices of the ``k`` best documents for one tokenised query, best first (ties in bm25s' order, also
        when no token is indexed and every score is 0)."""
        k = min(k, self.size)
        if k < 1:
            return np.zeros(0, dtype=np.int64)
        known = [t for t in query if t in self.vocabulary]
        documents, _ = self.retriever.retrieve([known], k=k, show_progress=False)
        return np.asarray(documents[0], dtype=np.int64)
