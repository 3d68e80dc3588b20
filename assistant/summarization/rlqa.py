"""RLQA (Chali, Hasan & Mojahid 2015): build the summary sentence by sentence with a SARSA(lambda) learner,
linear function approximation over sentence features, and optional user choice among the top-5 sentences.

Features of adding sentence j to the draft (``SentenceFeatures``, [S, 9]): unigram and bigram overlap with
the question, LCS with the question (normalised by the question length), TF-IDF cosine to the documents,
length / limit, 1 / position, redundancy (the highest TF-IDF cosine with a draft sentence), MiniLM cosine
to the question, and a bias. Without a question (DUC is generic), the question is the topic's 20 most
frequent content words. Q(draft, j) = w . phi(draft, j).

Reward of a step = the gain in ROUGE relevance of the draft (mean ROUGE-1 + ROUGE-2 recall against the
references) minus ``redundancy_weight`` x the sentence's redundancy. Training topics have references; the
learned weights then summarise unseen topics greedily, without references or interaction. With
``simulated_user``, each training step shows the top-5 sentences and the simulated user picks the one with
the highest ROUGE gain; the learner updates on that choice (the person's choices train the weights).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from assistant.errors import ConfigError
from assistant.progress import Job, Progress, metrics_of
from assistant.summarization.features import TermStats
from assistant.summarization.rouge import CandidateRouge
from assistant.summarization.text import SentenceTable, stopwords, tokenize

FEATURE_NAMES = (
    "q_unigram",
    "q_bigram",
    "q_lcs",
    "doc_cosine",
    "length",
    "position",
    "redundancy",
    "q_embedding",
    "bias",
)
TOP_K = 5


def _lcs(a: Sequence[str], b: Sequence[str]) -> int:
    if not a or not b:
        return 0
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


@dataclass
class RLQATopic:
    """One topic ready for the learner: its table, static features [S, 9] (redundancy column filled per
    step), similarities, and a ROUGE scorer when it has references."""

    table: SentenceTable
    static: np.ndarray
    similarity: np.ndarray
    references: list[list[str]] = field(default_factory=list)
    rouge: CandidateRouge | None = None
    max_words: int = 100

    @classmethod
    def build(
        cls,
        table: SentenceTable,
        question: str,
        references=(),
        embeddings=None,
        question_embedding=None,
        max_words: int = 100,
    ) -> RLQATopic:
        stats = TermStats.from_table(table)
        stop = stopwords()
        q = [w for w in tokenize(question) if w not in stop] if question.strip() else []
        if not q:  # generic topic: its most frequent content words stand for the question
            q = [
                w
                for w, _ in sorted(
                    Counter(w for s in table.content for w in s).items(), key=lambda kv: (-kv[1], kv[0])
                )[:20]
            ]
        q_set, q_bi = set(q), set(itertools.pairwise(q))
        rows = []
        for words in table.content:
            bi = set(itertools.pairwise(words))
            rows.append(
                [
                    len(q_set & set(words)) / max(len(q_set), 1),
                    len(q_bi & bi) / max(len(q_bi), 1),
                    _lcs(q, words) / max(len(q), 1),
                ]
            )
        static = np.zeros((len(table), len(FEATURE_NAMES)))
        static[:, :3] = rows
        static[:, 3] = stats.doc_cosine
        static[:, 4] = table.words / max_words
        static[:, 5] = 1.0 / table.position
        if embeddings is not None:
            e = np.asarray(embeddings, dtype=np.float64)
            target = question_embedding if question_embedding is not None else e.mean(0)
            static[:, 7] = e @ (np.asarray(target) / max(np.linalg.norm(target), 1e-12))
        static[:, 8] = 1.0
        refs = [list(r) for r in references]
        return cls(table, static, stats.similarity, refs, CandidateRouge(table.tokens) if refs else None, max_words)

    def relevance(self, summaries: Sequence[tuple[int, ...]]) -> np.ndarray:
        """[N] mean over references of ROUGE-1 + ROUGE-2 recall."""
        total = np.zeros(len(summaries))
        for ref in self.references:
            assert self.rouge is not None  # built whenever there are references
            s = self.rouge.scores(summaries, ref)
            total += s["rouge1"]["r"] + s["rouge2"]["r"]
        return total / max(len(self.references), 1)


class Draft:
    """A summary under construction over one ``RLQATopic``."""

    def __init__(self, topic: RLQATopic) -> None:
        self.topic = topic
        self.chosen: list[int] = []
        self.words = 0
        self.redundancy = np.zeros(len(topic.table))

    def available(self) -> np.ndarray:
        free = np.ones(len(self.topic.table), dtype=bool)
        free[self.chosen] = False
        return np.flatnonzero(free & (self.topic.table.words <= self.topic.max_words - self.words))

    def features(self, idx: np.ndarray) -> np.ndarray:
        phi = self.topic.static[idx].copy()
        phi[:, 6] = self.redundancy[idx]
        return phi

    def add(self, j: int) -> None:
        self.chosen.append(int(j))
        self.words += int(self.topic.table.words[j])
        self.redundancy = np.maximum(self.redundancy, self.topic.similarity[j])

    @property
    def summary(self) -> tuple[int, ...]:
        return tuple(sorted(self.chosen))


@dataclass
class RLQASettings:
    """The learner's settings. ``learning_rate`` and ``trace_decay`` (lambda) were chosen by 4-fold
    cross-validation on DUC 2001's 28 topics (ROUGE-2 recall, greedy summaries of the held-out fold): the
    earlier 0.05 and 0.8 overshot, and trained weights summarised worse than the untrained ones (0.058 against
    0.068); 0.002 and 0 (one-step TD) gave 0.068, 0.072 with the simulated top-5 user (`clarify summarize
    rlqa-tune`). ``choice_rate`` is the
    step a person's pick takes in ``RLQASession`` (larger: one pick should visibly change the next offers)."""

    epochs: int = 30
    learning_rate: float = 0.002
    trace_decay: float = 0.0
    epsilon: float = 0.1
    redundancy_weight: float = 0.1
    choice_rate: float = 0.05


class RLQALearner:
    """SARSA(lambda) with linear Q over ``FEATURE_NAMES``; ``weights`` are what it learns."""

    def __init__(self, settings: RLQASettings | None = None, seed: int = 0) -> None:
        self.settings = settings or RLQASettings()
        self.rng = np.random.default_rng(seed)
        self.weights = np.zeros(len(FEATURE_NAMES))
        self.weights[3] = 1.0  # start from "relevant to the documents"

    def ranked(self, draft: Draft) -> tuple[np.ndarray, np.ndarray]:
        """(available sentences best first, their Q values)."""
        idx = draft.available()
        q = draft.features(idx) @ self.weights
        order = np.argsort(-q, kind="stable")
        return idx[order], q[order]

    def top(self, draft: Draft, k: int = TOP_K) -> list[int]:
        return [int(i) for i in self.ranked(draft)[0][:k]]

    def update(self, phi: np.ndarray, delta: float, trace: np.ndarray) -> np.ndarray:
        trace = self.settings.trace_decay * trace + phi
        self.weights += self.settings.learning_rate * delta * trace
        return trace

    def train_episode(self, topic: RLQATopic, simulated_user: bool = False) -> float:
        """One episode on a topic with references; returns its final relevance."""
        if topic.rouge is None:
            raise ConfigError("training needs topics with reference summaries")
        s = self.settings
        draft = Draft(topic)
        trace = np.zeros_like(self.weights)
        before = 0.0
        while True:
            idx, _q = self.ranked(draft)
            if len(idx) == 0:
                break
            if simulated_user:  # the user picks the top-5 sentence with the highest ROUGE gain
                shown = idx[:TOP_K]
                gains = topic.relevance([tuple(sorted([*draft.chosen, int(j)])) for j in shown])
                pick = int(np.argmax(gains))
            elif self.rng.random() < s.epsilon:
                pick = int(self.rng.integers(len(idx)))
            else:
                pick = 0
            j = int(idx[pick])
            phi = draft.features(np.array([j]))[0]
            redundancy = draft.redundancy[j]
            draft.add(j)
            after = float(topic.relevance([draft.summary])[0])
            reward = after - before - s.redundancy_weight * redundancy
            before = after
            nxt_idx, nxt_q = self.ranked(draft)
            target = reward + (float(nxt_q[0]) if len(nxt_idx) else 0.0)
            trace = self.update(phi, target - float(phi @ self.weights), trace)
        return before

    def train(self, topics: Sequence[RLQATopic], simulated_user: bool = False) -> Job[np.ndarray]:
        total = self.settings.epochs * len(topics)
        step = 0
        for _ in range(self.settings.epochs):
            scores = []
            for topic in topics:
                scores.append(self.train_episode(topic, simulated_user))
                step += 1
            yield Progress(step, total, "training RLQA", metrics_of(relevance=float(np.mean(scores))))
        return self.weights.copy()

    def summarize(self, topic: RLQATopic) -> tuple[int, ...]:
        """Greedy summary with the learned weights (no references, no interaction)."""
        draft = Draft(topic)
        while True:
            idx, _ = self.ranked(draft)
            if len(idx) == 0:
                return draft.summary
            draft.add(int(idx[0]))


class RLQASession:
    """The person's sentence-by-sentence mode: ``options()`` the top-5 next sentences, ``choose(j)`` one of
    them (or ``choose(None)``: let Clarify pick), ``undo()``; each choice nudges the weights towards it.

    Saved like a summary session: ``config()`` (the documents, the limit, the starting weights), every
    action handed to ``recorder(kind, payload)`` ('choose', 'undo'), ``replay(entries)`` to resume."""

    kind = "sentences"

    def __init__(self, topic: RLQATopic, learner: RLQALearner | None = None, source=None) -> None:
        self.topic = topic
        self.learner = learner or RLQALearner()
        self.initial_weights = self.learner.weights.copy()
        self.source = source  # the Topic the sentences come from (saved with the session)
        self.draft = Draft(topic)
        self.history: list[tuple[int, np.ndarray]] = []
        self.recorder = None

    @property
    def done(self) -> bool:
        return len(self.draft.available()) == 0

    @property
    def status(self) -> str:
        return "finished" if self.done else "active"

    def options(self) -> list[int]:
        return self.learner.top(self.draft)

    def option_texts(self) -> list[str]:
        return [self.topic.table.texts[j] for j in self.options()]

    def choose(self, sentence: int | None = None) -> int:
        options = self.options()
        if not options:
            raise ConfigError("the summary is complete: no further sentence fits")
        j = options[0] if sentence is None else int(sentence)
        if j not in options:
            raise ConfigError(f"sentence {j} is not among the offered ones {options}")
        self.history.append((j, self.learner.weights.copy()))
        if j != options[0]:  # the person preferred j over the learner's choice: move Q towards j (perceptron step)
            phi = self.draft.features(np.array([j, options[0]]))
            self.learner.weights += self.learner.settings.choice_rate * (phi[0] - phi[1])
        self.draft.add(j)
        self._record("choose", {"sentence": j, "auto": sentence is None})
        return j

    def undo(self) -> bool:
        if not self.history:
            return False
        _, weights = self.history.pop()
        self.learner.weights = weights
        chosen = [j for j, _ in self.history]
        self.draft = Draft(self.topic)
        for j in chosen:
            self.draft.add(j)
        self._record("undo", {})
        return True

    def summary_text(self) -> str:
        return self.topic.table.summary_text(self.draft.summary)

    @property
    def words(self) -> int:
        return int(self.draft.words)

    def config(self) -> dict:
        topic = self.source.to_dict() if self.source is not None else None
        return {"topic": topic, "max_words": self.topic.max_words, "weights": self.initial_weights.tolist()}

    def _record(self, kind: str, payload: dict) -> None:
        if self.recorder is not None:
            self.recorder(kind, payload)

    def replay(self, entries) -> None:
        """Apply saved log entries (nothing is recorded while replaying)."""
        recorder, self.recorder = self.recorder, None
        try:
            for kind, payload in entries:
                if kind == "choose":
                    self.choose(None if payload.get("auto") else int(payload["sentence"]))
                elif kind == "undo":
                    self.undo()
                else:
                    raise ConfigError(f"unknown sentence-by-sentence session entry {kind!r}")
        finally:
            self.recorder = recorder
