"""The plain records of a conversation ``Session``: its settings, what a person sees of the pending
question, the answer it arrived at, and where sessions are listed (``assistant.app.session`` re-exports them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from assistant.errors import ConfigError
from assistant.store import KnowledgeBase, SessionLog, SessionSummary

# Entries a person makes (undo takes back the last of these); the others are the session's own decisions.
USER_ACTIONS = frozenset({"answer", "skip", "more", "compare", "done", "accept", "reject", "choose", "give_up"})


def open_session_log(domain: str) -> KnowledgeBase:
    """A connection to ``domain``'s knowledge base for this thread's sessions (SQLite connections belong to the
    thread that opened them); close it when done."""
    return KnowledgeBase.open(domain)


def list_sessions(domain: str, status: str | None = None) -> list[SessionSummary]:
    """The saved sessions of ``domain``, newest first (optionally only one status)."""
    with KnowledgeBase.open(domain) as kb:
        return SessionLog(kb).list(status)


Phase = Literal["clarifying", "comparing", "decided", "rejected", "finished", "failed"]


@dataclass(frozen=True)
class SessionConfig:
    """``shortlist_size`` labels go to the comparison phase; the ranker stops at ``ranking_threshold``
    confidence or after ``ranking_budget`` comparisons. ``text_prior`` is the model registry's, recorded when
    the session starts so that it is resumed with the same one."""

    candidates: str = "all"
    shortlist_size: int = 5
    ranking_model: str = "gppl"
    acquisition: str = "imp"
    ranking_budget: int = 8
    ranking_threshold: float = 0.9
    seed: int = 0
    text_prior: str = "sru"

    def __post_init__(self) -> None:
        if self.shortlist_size < 1:
            raise ConfigError(f"shortlist_size must be at least 1, got {self.shortlist_size}")


@dataclass(frozen=True)
class QuestionView:
    """What the user sees of the pending question."""

    index: int
    text: str
    kind: str
    options: tuple[str, ...]
    turn: int
    allows_not_visible: bool


@dataclass(frozen=True)
class FinalAnswer:
    """The answer the session arrived at: the label, the chosen candidate, the clarifier's belief in the
    label, and ``chance``: the probability that this is the best of the compared answers (the one number to
    show a person; it starts from the clarifier's belief and learns from every comparison)."""

    label_key: str
    label_name: str
    text: str
    probability: float
    comparisons: int
    candidate_id: str = ""
    chance: float | None = None
