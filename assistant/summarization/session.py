"""The interactive summary session: two candidate summaries at a time, GPPL learns what the person wants.

``SummarySession`` wraps ``assistant.ranking.RankingSession`` (GPPL + IMP by default, the chosen prior as
the GP prior mean) over the candidates of a ``PreparedTopic``: ``next_pair()`` / ``answer('left' | 'right' |
'tie')`` / ``undo()`` / ``best_index()`` with ``confidence``; ``write_better()`` trains the RL summarizer on
the learned reward and returns its summary; ``accept()`` ends the session.

Saving, as for a clarifying conversation, is an append-only log: ``config()`` is what the session is
rebuilt from (the documents, the question, the settings), every action is handed to ``recorder(kind,
payload)`` as it happens ('compare', 'undo', 'better', 'accept'; the app writes them to the domain's
session log), and ``replay(entries)`` applies a saved log to a session rebuilt from its config: the same
seed gives the same candidates, so the answers land on the same pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

from assistant.errors import ConfigError, SessionStateError
from assistant.progress import Job, Progress
from assistant.ranking.ranking_session import Candidate, RankingSession
from assistant.summarization.documents import Topic, from_texts
from assistant.summarization.prepare import PreparedTopic, prepare_topic
from assistant.summarization.rewards import LearnedReward
from assistant.summarization.rl import RLSettings, RLSummarizer

Recorder = Callable[[str, dict], None]


@dataclass
class SummarySettings:
    """What a summary session is built with (all saved with it). The ranker's scales are those tuned on
    DUC 2001 (``assistant.summarization.ranker.SummaryRankerSettings``)."""

    candidates: int = 300
    prior: str = "reaper"
    features: str = "bigram"
    acquisition: str = "imp"
    budget: int = 20
    threshold: float = 0.95
    seed: int = 0
    max_words: int = 100
    output_scale: float = 64.0
    prior_scale: float = 0.5
    lengthscale_factor: float = 0.5

    @classmethod
    def from_dict(cls, data: dict) -> SummarySettings:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


def topic_title(topic: Topic) -> str:
    """How a summary session is listed: its documents and its question."""
    names = ", ".join(d.name for d in topic.documents[:3]) + (" …" if len(topic.documents) > 3 else "")
    return f"{topic.id}: {names}" + (f" — {topic.question}" if topic.question else "")


class SummarySession:
    """Pairwise comparisons of candidate summaries of one topic (see the module docstring)."""

    kind = "summary"

    def __init__(self, prepared: PreparedTopic, settings: SummarySettings | None = None) -> None:
        self.settings = settings or SummarySettings()
        s = self.settings
        if s.features not in prepared.features:
            raise ConfigError(f"features {s.features!r} were not prepared for this topic")
        if s.prior not in prepared.priors:
            raise ConfigError(f"prior {s.prior!r} was not prepared for this topic")
        self.prepared = prepared
        x, p = prepared.features[s.features], prepared.priors[s.prior]
        kinds = prepared.candidates.kinds
        self.ranking = RankingSession(
            [Candidate(str(i), kinds[i], prepared.summary_text(i), x[i], p[i]) for i in range(len(kinds))],
            model="bt" if s.acquisition == "unc" else "gppl",
            acquisition=s.acquisition,
            seed=s.seed,
            threshold=s.threshold,
            budget=s.budget,
            model_options={}
            if s.acquisition == "unc"
            else {
                "output_scale": s.output_scale,
                "prior_scale": s.prior_scale,
                "lengthscale_factor": s.lengthscale_factor,
            },
        )
        self.rl_summary: tuple[int, ...] | None = None
        self.accepted = False
        self.recorder: Recorder | None = None

    @classmethod
    def create(cls, topic: Topic, settings: SummarySettings | None = None, encoder=None) -> Job[SummarySession]:
        """Prepare ``topic`` (candidates, features, priors) and open a session on it."""
        s = settings or SummarySettings()
        need_minilm = s.prior == "minilm" or s.features == "minilm"
        prepared = yield from prepare_topic(
            topic,
            n_random=s.candidates,
            seed=s.seed,
            strong=True,
            gold=False,
            encoder=encoder,
            priors=("reaper", "minilm") if need_minilm else ("reaper",),
            minilm_features=need_minilm,
            max_words=s.max_words,
        )
        yield Progress(1, 1, "weighing the summaries")
        return cls(prepared, s)

    # ---- the comparison loop (RankingSession's) -------------------------------------------------------------
    def next_pair(self) -> tuple[int, int] | None:
        return None if self.accepted else self.ranking.next_pair()

    def answer(self, preferred: str) -> None:
        pair = self.next_pair()
        if pair is None:
            raise SessionStateError("no comparison is pending: the session has stopped comparing")
        self.ranking.answer(preferred)
        self._record("compare", {"left": pair[0], "right": pair[1], "preferred": preferred})

    def undo(self) -> bool:
        if self.accepted or not self.ranking.undo():
            return False
        self._record("undo", {})
        return True

    @property
    def stopped(self) -> bool:
        return self.ranking.stopped

    @property
    def confidence(self) -> float:
        return self.ranking.confidence

    @property
    def comparisons(self) -> int:
        return len(self.ranking.history)

    @property
    def status(self) -> str:
        return "finished" if self.accepted else "active"

    def text(self, index: int) -> str:
        return self.prepared.summary_text(index)

    def kind_of(self, index: int) -> str:
        return self.prepared.candidates.kinds[index]

    def best_index(self) -> int:
        return self.ranking.best_index

    def best_text(self) -> str:
        return self.text(self.best_index())

    @property
    def rl_text(self) -> str | None:
        return None if self.rl_summary is None else self.prepared.table.summary_text(self.rl_summary)

    # ---- "write me a better one" -----------------------------------------------------------------------------
    def reward(self) -> LearnedReward:
        """The learned ranking function as a reward for any summary of this topic."""
        if self.settings.acquisition == "unc":
            raise ConfigError("write_better needs the GPPL ranker (any acquisition but unc)")
        return LearnedReward(self.prepared, self.ranking.model, self.settings.prior, self.settings.features)

    def write_better(self, settings: RLSettings | None = None, seed: int | None = None) -> Job[str]:
        """Train the RL summarizer on the learned reward; returns (and keeps) its summary's text."""
        settings = settings or RLSettings()
        agent = RLSummarizer(self.prepared, self.reward(), settings, self.settings.seed if seed is None else seed)
        summary = yield from agent.train()
        self.rl_summary = summary
        self._record("better", {"summary": list(summary), "comparisons": self.comparisons})
        return self.prepared.table.summary_text(summary)

    def rl_score(self) -> tuple[float, float] | None:
        """(learned reward of the RL summary, of the current best candidate), or None before write_better."""
        if self.rl_summary is None:
            return None
        values = self.reward()([self.rl_summary, self.prepared.candidates.summaries[self.best_index()]])
        return float(values[0]), float(values[1])

    def accept(self, which: str = "best") -> str:
        """End the session with the best candidate ('best') or the RL summary ('rl'); returns its text."""
        if which == "rl" and self.rl_summary is None:
            raise SessionStateError("there is no written summary to accept yet: write a better one first")
        text = (self.rl_text if which == "rl" else self.best_text()) or ""  # rl_text: there is one (checked)
        self.accepted = True
        self._record("accept", {"which": which, "text": text})
        return text

    # ---- saving and resuming ----------------------------------------------------------------------------------
    def config(self) -> dict[str, Any]:
        return {"topic": self.prepared.topic.to_dict(), "settings": asdict(self.settings)}

    def _record(self, kind: str, payload: dict) -> None:
        if self.recorder is not None:
            self.recorder(kind, payload)

    @classmethod
    def from_config(cls, config: dict[str, Any], encoder=None) -> Job[SummarySession]:
        """A session rebuilt from ``config()`` (its answers not replayed yet)."""
        try:
            topic = Topic.from_dict(config["topic"])
            settings = SummarySettings.from_dict(config["settings"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"saved summary session is incomplete or malformed ({exc!r})") from exc
        return (yield from cls.create(topic, settings, encoder))

    def replay(self, entries: Sequence[tuple[str, dict]]) -> None:
        """Apply saved log entries (nothing is recorded while replaying)."""
        recorder, self.recorder = self.recorder, None
        try:
            for kind, payload in entries:
                if kind == "compare":
                    if self.next_pair() != (int(payload["left"]), int(payload["right"])):
                        raise SessionStateError(
                            "the saved session does not replay: its candidates changed (another Clarify version?)"
                        )
                    self.answer(str(payload["preferred"]))
                elif kind == "undo":
                    self.undo()
                elif kind == "better":
                    self.rl_summary = tuple(int(i) for i in payload["summary"])
                elif kind == "accept":
                    self.accepted = True
                else:
                    raise SessionStateError(f"unknown summary session entry {kind!r}")
        finally:
            self.recorder = recorder


def summarize_answers(
    question: str, query: str, answers: list[str], settings: SummarySettings | None = None, encoder=None
) -> Job[SummarySession]:
    """A query-focused summary session over a FAQ's answers (the FAQ question and the user's query are the
    question, the answers the documents); for the FAQ flow's "Summarize these answers"."""
    return (yield from SummarySession.create(answers_topic(question, query, answers), settings, encoder))


def answers_topic(question: str, query: str, answers: Sequence[str]) -> Topic:
    """The topic of "Summarize these answers": the answers as documents, question + query as the question."""
    texts = [a for a in answers if a.strip()]
    if len(texts) < 2:
        raise ConfigError("summarising answers needs at least two non-empty answers")
    focus = " ".join(x.strip() for x in (question, query) if x and x.strip())
    return from_texts(texts, [f"answer {i + 1}" for i in range(len(texts))], focus, id="faq-answers")
