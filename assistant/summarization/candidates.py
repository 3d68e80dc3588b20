"""Candidate summaries: BO's random ones and a few strong ones, so that a person never sees only random text.

BO's protocol (5.3, after Gao et al. 2018): draw sentences uniformly at random among those that still fit
until none fits the limit (100 words by default). A summary is a sorted tuple of sentence indices (read in
document order); duplicates are dropped. Strong candidates: the lead (first sentences of the first
document), greedy MMR on TF-IDF cosine (to the question when there is one, else to the whole document
set), and sumy's LexRank and TextRank rankings filled greedily up to the limit.

Shapes: ``incidence`` [N, S] sparse 0/1, one row per candidate over the S sentences.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from assistant.errors import ConfigError
from assistant.summarization.text import SentenceTable, stopwords

MAX_WORDS = 100
STRONG_KINDS = ("lead", "mmr", "lexrank", "textrank")


@dataclass
class CandidateSet:
    """Summaries (sorted sentence-index tuples) and how each was made ('random', 'mmr', ...)."""

    summaries: list[tuple[int, ...]]
    kinds: list[str]
    num_sentences: int

    def __len__(self) -> int:
        return len(self.summaries)

    @property
    def incidence(self) -> sp.csr_matrix:
        """[N, S] 0/1: which sentences each summary holds."""
        if getattr(self, "_incidence", None) is None:
            rows = np.repeat(np.arange(len(self.summaries)), [len(s) for s in self.summaries])
            cols = np.fromiter((i for s in self.summaries for i in s), dtype=np.int64, count=len(rows))
            shape = (len(self.summaries), self.num_sentences)
            self._incidence = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=shape)
        return self._incidence

    def members(self) -> np.ndarray:
        """[N, K] sentence indices of each summary, padded with -1 (K = the longest summary)."""
        k = max((len(s) for s in self.summaries), default=0)
        out = np.full((len(self.summaries), max(k, 1)), -1, dtype=np.int64)
        for i, s in enumerate(self.summaries):
            out[i, : len(s)] = s
        return out


def random_summary(words: np.ndarray, rng: np.random.Generator, max_words: int = MAX_WORDS) -> tuple[int, ...]:
    """One BO random summary: uniform draws among the sentences that still fit, until none fits."""
    return random_summaries(words, 1, rng, max_words)[0]


def random_summaries(
    words: np.ndarray, n: int, rng: np.random.Generator, max_words: int = MAX_WORDS
) -> list[tuple[int, ...]]:
    """``n`` BO random summaries drawn side by side (not necessarily distinct).

    Each step gives every unfinished summary one uniform draw among its sentences that still fit (the argmax
    of uniform keys over them), so a batch costs a few [n, S] array passes instead of n Python loops.
    """
    words = np.asarray(words, dtype=np.int64)
    used = np.zeros((n, len(words)), dtype=bool)
    remaining = np.full(n, max_words, dtype=np.int64)
    active = np.arange(n)
    while len(active):
        fits = ~used[active] & (words[None, :] <= remaining[active, None])
        has = fits.any(axis=1)
        active = active[has]
        if not len(active):
            break
        keys = rng.random((len(active), len(words)))
        keys[~fits[has]] = -1.0
        pick = keys.argmax(axis=1)
        used[active, pick] = True
        remaining[active] -= words[pick]
    return [tuple(int(i) for i in np.flatnonzero(row)) for row in used]


def sample_random(
    table: SentenceTable, n: int, rng: np.random.Generator, max_words: int = MAX_WORDS, max_tries: int | None = None
) -> list[tuple[int, ...]]:
    """Up to ``n`` distinct random summaries (fewer when the documents do not allow that many)."""
    if n < 1:
        raise ConfigError(f"the number of candidate summaries must be >= 1, got {n}")
    if not np.any(table.words <= max_words):
        raise ConfigError(f"every sentence is longer than {max_words} words: raise the summary length limit")
    seen: dict[tuple[int, ...], None] = {}
    tries = 0
    limit = max_tries if max_tries is not None else 3 * n + 100
    while len(seen) < n and tries < limit:
        batch = min(max(n - len(seen), 16), limit - tries)
        for summary in random_summaries(table.words, batch, rng, max_words):
            if len(seen) < n:
                seen.setdefault(summary, None)
        tries += batch
    return list(seen)


def fill(order: Sequence[int] | np.ndarray, words: np.ndarray, max_words: int = MAX_WORDS) -> tuple[int, ...]:
    """Take sentences in ``order`` while they fit (skipping those that do not)."""
    chosen, total = [], 0
    for i in order:
        if total + words[i] <= max_words:
            chosen.append(int(i))
            total += int(words[i])
    return tuple(sorted(chosen))


def greedy_mmr(
    relevance: np.ndarray, similarity: np.ndarray, words: np.ndarray, max_words: int = MAX_WORDS, lam: float = 0.7
) -> tuple[int, ...]:
    """Maximal marginal relevance: lam * relevance - (1 - lam) * max similarity to the chosen ones."""
    chosen: list[int] = []
    total = 0
    penalty = np.zeros(len(relevance))
    available = words <= max_words
    while True:
        score = np.where(available & (words <= max_words - total), lam * relevance - (1 - lam) * penalty, -np.inf)
        best = int(np.argmax(score))
        if not np.isfinite(score[best]):
            break
        chosen.append(best)
        total += int(words[best])
        available[best] = False
        penalty = np.maximum(penalty, similarity[best])
    return tuple(sorted(chosen))


class _Tokens:
    """sumy's tokenizer interface over our tokens (sumy's own needs NLTK data that is not installed)."""

    language = "english"

    def __init__(self, tokens: dict[str, list[str]]) -> None:
        self.tokens = tokens

    def to_words(self, text: str) -> list[str]:
        return self.tokens.get(text, [])


def sumy_ranking(table: SentenceTable, method: str) -> list[int]:
    """Sentence indices from best to worst by sumy's LexRank or TextRank."""
    from sumy.models.dom import ObjectDocumentModel, Paragraph, Sentence
    from sumy.summarizers.lex_rank import LexRankSummarizer
    from sumy.summarizers.text_rank import TextRankSummarizer

    first: dict[str, int] = {}
    for i, text in enumerate(table.texts):
        first.setdefault(text, i)
    tokenizer = _Tokens({t: table.tokens[i] for t, i in first.items()})
    sentences = [Sentence(t, tokenizer) for t in first]
    document = ObjectDocumentModel([Paragraph(sentences)])
    summarizer = (LexRankSummarizer if method == "lexrank" else TextRankSummarizer)()
    summarizer.stop_words = stopwords()
    ranked: list[int] = []

    def keep_ranked(infos):  # sumy passes the rated sentences best first to a callable count
        ranked.extend(first[str(info.sentence)] for info in infos)
        return infos

    summarizer(document, keep_ranked)
    return ranked


def strong_candidates(
    table: SentenceTable,
    relevance: np.ndarray,
    similarity: np.ndarray,
    max_words: int = MAX_WORDS,
    kinds: Sequence[str] = STRONG_KINDS,
) -> list[tuple[tuple[int, ...], str]]:
    """(summary, kind) for each strong method; ``relevance`` [S] and ``similarity`` [S, S] feed MMR."""
    out = []
    for kind in kinds:
        if kind == "lead":
            summary = fill(np.flatnonzero(table.doc_index == 0), table.words, max_words)
        elif kind == "mmr":
            summary = greedy_mmr(relevance, similarity, table.words, max_words)
        elif kind in ("lexrank", "textrank"):
            summary = fill(sumy_ranking(table, kind), table.words, max_words)
        else:
            raise ConfigError(f"unknown strong candidate kind {kind!r}: use {', '.join(STRONG_KINDS)}")
        if summary:
            out.append((summary, kind))
    return out


def build_candidates(
    table: SentenceTable,
    n_random: int,
    rng: np.random.Generator,
    strong: Sequence[tuple[tuple[int, ...], str]] = (),
    max_words: int = MAX_WORDS,
) -> CandidateSet:
    """The strong candidates first (deduplicated), then up to ``n_random`` random ones."""
    summaries: dict[tuple[int, ...], str] = {}
    for summary, kind in strong:
        summaries.setdefault(tuple(summary), kind)
    for summary in sample_random(table, n_random, rng, max_words):
        summaries.setdefault(summary, "random")
    return CandidateSet(list(summaries), list(summaries.values()), len(table))
