"""BO's community-QA ranking protocol: per question ~100 candidates, gold utilities and prior scores.

For each evaluable question: its own answers plus answers of *other* questions retrieved with BM25 (bm25s)
for the question text, up to ``n_candidates``. Gold utility g = ROUGE-L F1 (rouge-score's summary-level
``rougeLsum``; sentences split here, so no NLTK data is needed) of each candidate against the accepted or
best-labelled answer, which is itself a candidate (g = 1). Prior = cosine of the MiniLM embeddings of
question and candidate.

Embeddings (per text) and the candidate lists with their utilities are cached under
$CLARIFY_HOME/cache/ranking/, so a rerun only reads files. Questions are split once, by a fixed seed
independent of the evaluation seed, into train (40%, to pre-train the deep ranker), dev (20%, to choose
hyperparameters) and test (40%, to report).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from assistant import paths
from assistant.errors import ConfigError
from assistant.evaluation.cqa.data import CQADataset
from assistant.progress import Job, Progress
from assistant.text.bm25 import BM25Index, bm25_tokens

CACHE_VERSION = 1
SPLIT_SEED = 2020
SPLIT_FRACTIONS = {"train": 0.4, "dev": 0.2, "test": 0.4}
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


@dataclass
class RankingProblem:
    """One question's candidates. Shapes: utilities, prior [N]; embeddings [N, 384]; question_embedding [384]."""

    question_id: str
    question: str
    texts: list[str]
    utilities: np.ndarray
    prior: np.ndarray
    embeddings: np.ndarray
    question_embedding: np.ndarray

    @property
    def best(self) -> int:
        return int(np.argmax(self.utilities))


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``: line breaks and sentence-final punctuation followed by a capital or digit."""
    out: list[str] = []
    for line in text.splitlines():
        out.extend(s.strip() for s in _SENTENCE_END.split(line) if s.strip())
    return out


class RougeL:
    """ROUGE-L F1 with rouge-score's summary-level LCS (``rougeLsum``) over our own sentence split."""

    def __init__(self) -> None:
        from rouge_score import rouge_scorer

        self._scorer = rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=False)

    def __call__(self, reference: str, candidate: str) -> float:
        ref = "\n".join(split_sentences(reference))
        cand = "\n".join(split_sentences(candidate))
        if not ref.strip() or not cand.strip():
            return 0.0
        return float(self._scorer.score(ref, cand)["rougeLsum"].fmeasure)


def split_indices(n: int, seed: int = SPLIT_SEED) -> dict[str, np.ndarray]:
    """Fixed train/dev/test indices (40/20/40) of ``n`` questions, each sorted."""
    order = np.random.default_rng(seed).permutation(n)
    n_train = round(SPLIT_FRACTIONS["train"] * n)
    n_dev = round(SPLIT_FRACTIONS["dev"] * n)
    return {
        "train": np.sort(order[:n_train]),
        "dev": np.sort(order[n_train : n_train + n_dev]),
        "test": np.sort(order[n_train + n_dev :]),
    }


def cache_dir() -> Path:
    path = paths.home() / "cache" / "ranking"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _candidate_lists(dataset: CQADataset, n_candidates: int, positions: Sequence[int] | None = None) -> Job[list[dict]]:
    """Per evaluable thread (those at ``positions`` among the evaluable ones, default all): its answers plus
    BM25-retrieved answers of other threads, with ROUGE-L utilities."""
    corpus: list[str] = []
    owner: list[int] = []
    for t_index, thread in enumerate(dataset.threads):
        corpus.extend(thread.answers)
        owner.extend([t_index] * len(thread.answers))
    owner_arr = np.array(owner)
    offsets = np.concatenate([[0], np.cumsum([len(t.answers) for t in dataset.threads])])
    index = BM25Index(bm25_tokens(corpus))
    rouge = RougeL()
    evaluable = [i for i, t in enumerate(dataset.threads) if t.evaluable]
    if positions is not None:
        evaluable = [evaluable[k] for k in positions]
    out: list[dict] = []
    for done, t_index in enumerate(evaluable):
        thread = dataset.threads[t_index]
        own = list(range(offsets[t_index], offsets[t_index + 1]))
        need = max(0, n_candidates - len(own))
        others: list[int] = []
        if need:
            k = min(len(corpus), need + len(own) + 10)
            docs = index.top(bm25_tokens([thread.question])[0], k)
            others = [int(d) for d in docs if owner_arr[d] != t_index][:need]
        cands = own + others
        assert thread.best is not None  # an evaluable thread has its best answer
        reference = corpus[own[thread.best]]
        utilities = [1.0 if c == own[thread.best] else rouge(reference, corpus[c]) for c in cands]
        out.append({"thread": t_index, "candidates": cands, "utilities": utilities})
        yield Progress(done + 1, len(evaluable), "candidates and ROUGE-L")
    return out


def build_problems(
    dataset: CQADataset,
    n_candidates: int = 100,
    encoder=None,
    use_cache: bool = True,
    positions: Sequence[int] | None = None,
) -> Job[list[RankingProblem]]:
    """The ranking problems of every evaluable thread of ``dataset`` (order of the dataset's threads), or of
    those at ``positions`` among the evaluable threads (in that order): a quick evaluation of 20 test
    questions need not score 100 candidates of all 272 beer questions with ROUGE-L first.

    ``encoder``: anything with ``encode(list[str]) -> [n, dim]`` unit vectors (default: MiniLM's
    ``SentenceEncoder``). Results are cached per data set, ``n_candidates`` (and ``positions``) when
    ``use_cache``; a cache of all threads serves any ``positions``.
    """
    if n_candidates < 2:
        raise ConfigError(f"n_candidates must be at least 2, got {n_candidates}")
    if not dataset.evaluable:
        raise ConfigError(f"data set {dataset.name!r} has no question with a best answer and another answer")
    source_key = hashlib.sha1(
        json.dumps([[t.question, list(t.answers), t.best] for t in dataset.threads]).encode()
    ).hexdigest()[:12]
    lists_path = cache_dir() / f"{dataset.name}-candidates-{n_candidates}-{source_key}-v{CACHE_VERSION}.json"
    if positions is not None:
        positions = [int(k) for k in positions]
        if any(not 0 <= k < len(dataset.evaluable) for k in positions):
            raise ConfigError(
                f"positions must be among the {len(dataset.evaluable)} evaluable threads of {dataset.name!r}"
            )
    if use_cache and lists_path.is_file():
        lists = json.loads(lists_path.read_text())
        lists = lists if positions is None else [lists[k] for k in positions]
    else:
        part_path = lists_path
        if positions is not None:
            part = hashlib.sha1(json.dumps(positions).encode()).hexdigest()[:12]
            part_path = lists_path.with_name(f"{lists_path.stem}-part-{part}.json")
        if use_cache and part_path.is_file():
            lists = json.loads(part_path.read_text())
        else:
            lists = yield from _candidate_lists(dataset, n_candidates, positions)
            if use_cache:
                part_path.write_text(json.dumps(lists))
    from assistant.text.embeddings import CachingSentenceEncoder
    from models.pretrained import SentenceEncoder

    if encoder is None:
        encoder = SentenceEncoder()
    corpus = [a for t in dataset.threads for a in t.answers]
    used = sorted({c for entry in lists for c in entry["candidates"]})
    questions = [dataset.threads[e["thread"]].question for e in lists]
    texts = questions + [corpus[c] for c in used]
    if use_cache:
        path = cache_dir() / f"{dataset.name}-embeddings-{type(encoder).__name__}.npz"
        vectors = yield from CachingSentenceEncoder(path, encoder).encode_job(texts)
    else:
        vectors = yield from _embed_plain(texts, encoder)
    q_vecs = vectors[: len(questions)]
    row_of = {c: len(questions) + k for k, c in enumerate(used)}
    problems = []
    for q_vec, entry in zip(q_vecs, lists):
        thread = dataset.threads[entry["thread"]]
        emb = vectors[[row_of[c] for c in entry["candidates"]]]
        problems.append(
            RankingProblem(
                question_id=thread.id,
                question=thread.question,
                texts=[corpus[c] for c in entry["candidates"]],
                utilities=np.asarray(entry["utilities"], dtype=np.float64),
                prior=(emb @ q_vec).astype(np.float64),
                embeddings=emb,
                question_embedding=q_vec,
            )
        )
    return problems


def _embed_plain(texts: Sequence[str], encoder) -> Job[np.ndarray]:
    vectors = encoder.encode(list(texts))
    yield Progress(1, 1, "embedding texts")
    return np.asarray(vectors, dtype=np.float32)
