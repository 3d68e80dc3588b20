"""Sentences and tokens of a document set, from libraries: pysbd splits sentences, rouge-score tokenises and
stems (Porter, the tokenisation its ROUGE uses), sumy's English list gives the stopwords.

``SentenceTable`` flattens a topic's documents into one indexed list of sentences (shapes: [S] arrays), each
with its document, its 1-based position in the document, its word count (whitespace words, the unit of the
100-word limit), its ROUGE tokens and its content tokens (ROUGE tokens without stopwords).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from assistant.errors import ConfigError


@lru_cache(maxsize=1)
def _tokenizer():
    from rouge_score import tokenizers

    return tokenizers.DefaultTokenizer(use_stemmer=True)


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    """sumy's English stopwords, stemmed like the tokens they are compared with."""
    from sumy.utils import get_stop_words

    words = set()
    for word in get_stop_words("english"):
        words.update(_tokenizer().tokenize(word))
    return frozenset(words)


def tokenize(text: str) -> list[str]:
    """rouge-score's tokens: lowercased alphanumeric words, Porter-stemmed when longer than three letters."""
    return list(_tokenizer().tokenize(text))


def word_count(text: str) -> int:
    """Whitespace words: the unit of the summary length limit."""
    return len(text.split())


@dataclass(frozen=True)
class Document:
    """One source document: a name and its sentences in order."""

    name: str
    sentences: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "sentences", tuple(s for s in (x.strip() for x in self.sentences) if s))


@dataclass
class SentenceTable:
    """All sentences of a document set, indexed 0..S-1 in document order."""

    texts: list[str]
    doc_index: np.ndarray  # [S] int
    position: np.ndarray  # [S] int, 1-based position in its document
    words: np.ndarray  # [S] int, whitespace word count
    tokens: list[list[str]]  # ROUGE tokens (stemmed)
    content: list[list[str]] = field(default_factory=list)  # tokens without stopwords
    doc_names: list[str] = field(default_factory=list)

    @classmethod
    def from_documents(cls, documents: Sequence[Document]) -> SentenceTable:
        texts: list[str] = []
        doc_index: list[int] = []
        position: list[int] = []
        for d, doc in enumerate(documents):
            for p, sentence in enumerate(doc.sentences):
                texts.append(sentence)
                doc_index.append(d)
                position.append(p + 1)
        if not texts:
            raise ConfigError("the documents contain no sentences: give at least one non-empty text")
        stop = stopwords()
        tokens = [tokenize(t) for t in texts]
        return cls(
            texts=texts,
            doc_index=np.array(doc_index, dtype=np.int64),
            position=np.array(position, dtype=np.int64),
            words=np.array([word_count(t) for t in texts], dtype=np.int64),
            tokens=tokens,
            content=[[w for w in ts if w not in stop] for ts in tokens],
            doc_names=[d.name for d in documents],
        )

    def __len__(self) -> int:
        return len(self.texts)

    def summary_text(self, indices: Sequence[int]) -> str:
        """The sentences ``indices`` joined in the given order."""
        return " ".join(self.texts[i] for i in indices)
