"""A topic made ready for ranking: sentences, TF-IDF statistics, candidates, features, priors and (when the
topic has references) the gold utility of every candidate against each reference.

``prepare_topic`` is a job (yields Progress). For the evaluation, ``cached_topic`` keeps the expensive parts
(tokens, candidates, gold, sentence embeddings) under $CLARIFY_HOME/cache/summaries/, keyed by data set,
topic, number of candidates and seed, so that a rerun reads files.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from assistant import paths
from assistant.errors import ConfigError
from assistant.progress import Job, Progress
from assistant.summarization.candidates import MAX_WORDS, CandidateSet, build_candidates, strong_candidates
from assistant.summarization.documents import Topic
from assistant.summarization.features import BigramSpace, TermStats, bigram_plus, pooled_embeddings
from assistant.summarization.priors import PRIORS, ReaperStats, minilm_prior, reaper_prior
from assistant.summarization.rouge import CandidateRouge, normalise
from assistant.summarization.text import SentenceTable, tokenize
from models.checkpoint import write_npz_atomic

CACHE_VERSION = 2


def cache_dir() -> Path:
    path = paths.home() / "cache" / "summaries"
    path.mkdir(parents=True, exist_ok=True)
    return path


def sentence_encoder(encoder=None):
    """The MiniLM sentence encoder with the embedding cache of this package (or ``encoder`` as given)."""
    if encoder is not None:
        return encoder
    from assistant.text.embeddings import CachingSentenceEncoder

    return CachingSentenceEncoder(cache_dir() / "sentence-embeddings.npz")


@dataclass
class PreparedTopic:
    """Everything the ranker needs about one topic. Shapes: N candidates, S sentences, R references."""

    topic: Topic
    table: SentenceTable
    stats: TermStats
    candidates: CandidateSet
    bigrams: BigramSpace
    reaper: ReaperStats
    features: dict[str, np.ndarray] = field(default_factory=dict)  # "bigram" [N, 205], "minilm" [N, 384]
    priors: dict[str, np.ndarray] = field(default_factory=dict)  # "reaper" [N], "minilm" [N]
    gold: np.ndarray | None = None  # [R, N] in [0, 10]
    embeddings: np.ndarray | None = None  # [S, 384]
    question_embedding: np.ndarray | None = None
    query_cosine: np.ndarray | None = None  # [S] TF-IDF cosine of each sentence to the question, if any
    max_words: int = MAX_WORDS

    def summary_sentences(self, index: int) -> list[str]:
        return [self.table.texts[i] for i in self.candidates.summaries[index]]

    def summary_text(self, index: int) -> str:
        return self.table.summary_text(self.candidates.summaries[index])


def query_cosine(stats: TermStats, question: str) -> np.ndarray | None:
    from assistant.summarization.text import stopwords

    if not question.strip():
        return None
    stop = stopwords()
    return stats.query_cosine([w for w in tokenize(question) if w not in stop])


def prepare_topic(
    topic: Topic,
    n_random: int = 1000,
    seed: int = 0,
    strong: bool = True,
    priors: tuple[str, ...] = PRIORS,
    minilm_features: bool = True,
    gold: bool = True,
    encoder=None,
    max_words: int = MAX_WORDS,
    summaries: list[tuple[int, ...]] | None = None,
    kinds: list[str] | None = None,
    embeddings: np.ndarray | None = None,
) -> Job[PreparedTopic]:
    """Build candidates (or take ``summaries``), features and priors for ``topic``; gold when it has references.

    ``embeddings`` [S (+ 1 with a question), D]: the sentences' (and the question's) MiniLM vectors when
    already known (the evaluation's cache); otherwise ``encoder`` computes them."""
    bad = [p for p in priors if p not in PRIORS]
    if bad:
        raise ConfigError(f"unknown prior {', '.join(bad)}: use {' or '.join(PRIORS)}")
    yield Progress(0, 4, "splitting and tokenising sentences")
    table = SentenceTable.from_documents(topic.documents)
    stats = TermStats.from_table(table)
    qcos = query_cosine(stats, topic.question)
    yield Progress(1, 4, "building candidate summaries")
    if summaries is None:
        relevance = stats.doc_cosine if qcos is None else 0.5 * (stats.doc_cosine + qcos)
        chosen = strong_candidates(table, relevance, stats.similarity, max_words) if strong else []
        candidates = build_candidates(table, n_random, np.random.default_rng(seed), chosen, max_words)
    else:
        candidates = CandidateSet(list(summaries), list(kinds or ["random"] * len(summaries)), len(table))
    space = BigramSpace.from_table(table)
    prepared = PreparedTopic(topic, table, stats, candidates, space, ReaperStats.from_table(table), max_words=max_words)
    prepared.query_cosine = qcos
    prepared.features["bigram"] = bigram_plus(table, candidates, space, max_words)
    prepared.priors["reaper"] = reaper_prior(table, prepared.reaper, candidates, qcos)
    if minilm_features or "minilm" in priors:
        yield Progress(2, 4, "embedding sentences (MiniLM)")
        texts = table.texts + ([topic.question] if topic.question.strip() else [])
        if embeddings is not None and len(embeddings) == len(texts):
            vectors = np.asarray(embeddings)
        else:
            enc = sentence_encoder(encoder)
            encode_job = getattr(enc, "encode_job", None)  # the cached encoder reports its progress
            vectors = (yield from encode_job(texts)) if encode_job is not None else np.asarray(enc.encode(texts))
        prepared.embeddings = np.asarray(vectors[: len(table)], dtype=np.float64)
        if topic.question.strip():
            prepared.question_embedding = np.asarray(vectors[-1], dtype=np.float64)
        prepared.features["minilm"] = pooled_embeddings(candidates, prepared.embeddings)
        prepared.priors["minilm"] = minilm_prior(table, candidates, prepared.embeddings, prepared.question_embedding)
    if gold and topic.references:
        yield Progress(3, 4, "scoring candidates with ROUGE")
        utility = CandidateRouge(table.tokens).utility(candidates.summaries, topic.references)
        prepared.gold = np.stack([normalise(u) for u in utility])
    yield Progress(4, 4, "candidates ready")
    return prepared


def cached_embeddings(dataset: str, topic: Topic, texts: list[str], encoder=None) -> np.ndarray:
    """[len(texts), D] MiniLM vectors of a topic's sentences (and question), cached on disk per topic: the
    evaluations embed the same DUC sentences again and again."""
    path = cache_dir() / dataset / f"{topic.id}-embeddings-v{CACHE_VERSION}.npz"
    if path.is_file():
        try:
            with np.load(path, allow_pickle=False) as data:
                if len(data["vectors"]) == len(texts):
                    return data["vectors"]
        except (OSError, ValueError, KeyError):
            pass  # rebuilt below
    if encoder is None:
        from models.pretrained import SentenceEncoder

        encoder = SentenceEncoder()
    vectors = np.asarray(encoder.encode(texts), dtype=np.float32)
    write_npz_atomic(path, vectors=vectors)
    return vectors


def cached_topic(
    dataset: str, topic: Topic, n_random: int, seed: int, encoder=None, minilm: bool = True
) -> Job[PreparedTopic]:
    """``prepare_topic`` for the evaluation (random candidates only, BO's protocol), cached on disk.

    The cache file (one per data set, topic, number of candidates and seed) holds what is slow to make: the
    candidates and their gold utilities; the sentences' MiniLM vectors have a file of their own per topic
    (``cached_embeddings``). Features and priors are recomputed from them (a fraction of a second)."""
    path = cache_dir() / dataset / f"{topic.id}-n{n_random}-s{seed}-v{CACHE_VERSION}.npz"
    cached: dict[str, np.ndarray] = {}
    if path.is_file():
        try:
            with np.load(path, allow_pickle=False) as data:
                cached = {k: data[k] for k in data.files}
        except (OSError, ValueError):
            cached = {}  # a damaged cache is rebuilt: it holds nothing that cannot be recomputed
    summaries = None
    if "flat" in cached:
        flat, offsets = cached["flat"].tolist(), cached["offsets"].tolist()
        summaries = [tuple(flat[a:b]) for a, b in itertools.pairwise(offsets)]
    prepared = yield from prepare_topic(
        topic,
        n_random,
        seed,
        strong=False,
        gold="gold" not in cached,
        encoder=encoder,
        summaries=summaries,
        priors=("reaper", "minilm") if minilm else ("reaper",),
        minilm_features=minilm,
        embeddings=cached_embeddings(dataset, topic, _embedded_texts(topic), encoder) if minilm else None,
    )
    if "gold" in cached:
        prepared.gold = cached["gold"]
    if summaries is None:
        lengths = [len(s) for s in prepared.candidates.summaries]
        out: dict[str, Any] = {  # "gold" may be None
            "flat": np.array([i for s in prepared.candidates.summaries for i in s], dtype=np.int32),
            "offsets": np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
            "gold": prepared.gold,
        }
        write_npz_atomic(path, **out)
    return prepared


def _embedded_texts(topic: Topic) -> list[str]:
    texts = [s for d in topic.documents for s in d.sentences]
    return texts + ([topic.question] if topic.question.strip() else [])


def describe(prepared: PreparedTopic) -> dict:
    return {
        "topic": prepared.topic.id,
        "sentences": len(prepared.table),
        "candidates": len(prepared.candidates),
        "references": 0 if prepared.gold is None else int(prepared.gold.shape[0]),
        "kinds": json.dumps(sorted(set(prepared.candidates.kinds))),
    }
