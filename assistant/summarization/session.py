"""The interactive summary session: two candidate summaries at a time, GPPL learns what the person wants.

``SummarySession`` wraps ``assistant.ranking.RankingSession`` (GPPL + IMP by default, the chosen prior as
the GP prior mean) over the candidates of a ``PreparedTopic``: ``next_pair()`` / ``answer('left' | 'right' |
'tie')`` / ``undo()`` / ``best()`` with ``confidence``; ``write_better()`` trains the RL summarizer on the
learned reward and returns its summary. It is saved as JSON (``to_dict`` / ``from_dict``): the documents,
the settings and the answers; resuming rebuilds the same candidates from the seed and replays the answers.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from assistant.errors import ConfigError
from assistant.progress import Job, Progress
from assistant.ranking.ranking_session import Candidate, RankingSession
from assistant.summarization.documents import Topic
from assistant.summarization.prepare import PreparedTopic, prepare_topic
from assistant.summarization.rl import LearnedReward, RLSettings, RLSummarizer

SESSION_FORMAT = 1


@dataclass
class SummarySettings:
    """What a summary session is built with (all saved with it)."""

    candidates: int = 300
    prior: str = "reaper"
    features: str = "bigram"
    acquisition: str = "imp"
    budget: int = 20
    threshold: float = 0.95
    seed: int = 0
    max_words: int = 100
    output_scale: float = 4.0
    prior_scale: float = 1.0
    lengthscale_factor: float = 1.0


class SummarySession:
    """Pairwise comparisons of candidate summaries of one topic (see the module docstring)."""

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
        yield Progress(1, 1, "fitting the ranker")
        return cls(prepared, s)

    # ---- the comparison loop (RankingSession's) -------------------------------------------------------------
    def next_pair(self) -> tuple[int, int] | None:
        return self.ranking.next_pair()

    def answer(self, preferred: str) -> None:
        self.ranking.answer(preferred)

    def undo(self) -> bool:
        return self.ranking.undo()

    @property
    def stopped(self) -> bool:
        return self.ranking.stopped

    @property
    def confidence(self) -> float:
        return self.ranking.confidence

    @property
    def comparisons(self) -> int:
        return len(self.ranking.history)

    def text(self, index: int) -> str:
        return self.prepared.summary_text(index)

    def kind(self, index: int) -> str:
        return self.prepared.candidates.kinds[index]

    def best_index(self) -> int:
        return self.ranking.best_index

    def best_text(self) -> str:
        return self.text(self.best_index())

    # ---- "write me a better one" -----------------------------------------------------------------------------
    def reward(self) -> LearnedReward:
        """The learned ranking function as a reward for any summary of this topic."""
        if self.settings.acquisition == "unc":
            raise ConfigError("write_better needs the GPPL ranker (any acquisition but unc)")
        return LearnedReward(self.prepared, self.ranking.model, self.settings.prior, self.settings.features)

    def write_better(self, episodes: int = 2000, seed: int | None = None) -> Job[str]:
        """Train the RL summarizer on the learned reward; returns (and keeps) its summary's text."""
        agent = RLSummarizer(
            self.prepared, self.reward(), RLSettings(episodes=episodes), self.settings.seed if seed is None else seed
        )
        self.rl_summary = yield from agent.train()
        return self.prepared.table.summary_text(self.rl_summary)

    def rl_score(self) -> tuple[float, float] | None:
        """(learned reward of the RL summary, of the current best candidate), or None before write_better."""
        if self.rl_summary is None:
            return None
        reward = self.reward()
        values = reward([self.rl_summary, self.prepared.candidates.summaries[self.best_index()]])
        return float(values[0]), float(values[1])

    # ---- saving and resuming ----------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": SESSION_FORMAT,
            "kind": "summary",
            "topic": self.prepared.topic.to_dict(),
            "settings": asdict(self.settings),
            "history": [{"left": r.left, "right": r.right, "preferred": r.preferred} for r in self.ranking.history],
            "rl_summary": list(self.rl_summary) if self.rl_summary is not None else None,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], encoder=None) -> Job[SummarySession]:
        """Rebuild a saved session: the same candidates (same seed), then its answers replayed."""
        if not isinstance(data, dict) or data.get("format") != SESSION_FORMAT or data.get("kind") != "summary":
            raise ConfigError(f"not a saved summary session of format {SESSION_FORMAT}")
        try:
            topic = Topic.from_dict(data["topic"])
            settings = SummarySettings(**data["settings"])
            history = [(int(h["left"]), int(h["right"]), str(h["preferred"])) for h in data["history"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"saved summary session is incomplete or malformed ({exc!r})") from exc
        session = yield from cls.create(topic, settings, encoder)
        for left, right, preferred in history:
            if session.next_pair() != (left, right):
                raise ConfigError("the saved session does not replay: its candidates changed (another version?)")
            session.answer(preferred)
        if data.get("rl_summary"):
            session.rl_summary = tuple(int(i) for i in data["rl_summary"])
        return session


def summarize_answers(
    question: str, query: str, answers: list[str], settings: SummarySettings | None = None, encoder=None
) -> Job[SummarySession]:
    """A query-focused summary session over a FAQ's answers (the FAQ question and the user's query are the
    question, the answers the documents); for the FAQ flow's "Summarize these answers"."""
    texts = [a for a in answers if a.strip()]
    if len(texts) < 2:
        raise ConfigError("summarising answers needs at least two non-empty answers")
    from assistant.summarization.documents import from_texts

    focus = " ".join(x.strip() for x in (question, query) if x and x.strip())
    topic = from_texts(texts, [f"answer {i + 1}" for i in range(len(texts))], focus, id="faq-answers")
    return (yield from SummarySession.create(topic, settings, encoder))


def candidate_count_hint(prepared: PreparedTopic) -> dict[str, int]:
    kinds = prepared.candidates.kinds
    return {k: int(np.sum([x == k for x in kinds])) for k in dict.fromkeys(kinds)}
