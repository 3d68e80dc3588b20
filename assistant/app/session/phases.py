"""Where a conversation is and why an answer is proposed: the vocabulary the terminal and the pages read,
light enough for `clarify ask` and the window's start to import before a model loads (issue 33). The GUI reads
the engine's light enums through here, the session wing's face, not from the rooms that define them."""

from __future__ import annotations

from enum import StrEnum

from assistant.clarification.records import AnswerKind, StopReason
from assistant.store import EntryKind, SessionStatus

__all__ = ["AnswerKind", "EntryKind", "Phase", "ProposalReason", "SessionStatus", "StopReason"]


class Phase(StrEnum):
    """Where a conversation ``Session`` is: a question is pending; a pair is pending; an answer is proposed
    ("Accept this answer?"); the proposal was rejected (pick another, ask more or give up); accepted; given
    up; or it concluded that nothing fits (out of scope)."""

    CLARIFYING = "clarifying"
    COMPARING = "comparing"
    DECIDED = "decided"
    REJECTED = "rejected"
    FINISHED = "finished"
    FAILED = "failed"
    OUT_OF_SCOPE = "out_of_scope"

    @property
    def ended(self) -> bool:
        """Whether the session is over (an answer was accepted, or the person gave up)."""
        return self in (Phase.FINISHED, Phase.FAILED)

    @property
    def status(self) -> SessionStatus:
        """The status the session log records for a session in this phase."""
        ended = {Phase.FINISHED: SessionStatus.FINISHED, Phase.FAILED: SessionStatus.FAILED}
        return ended.get(self, SessionStatus.OUT_OF_SCOPE if self == Phase.OUT_OF_SCOPE else SessionStatus.ACTIVE)


class ProposalReason(StrEnum):
    """Why an answer is proposed, besides the ranker's own stop (a ``RankingStopReason``): the person ended
    the comparisons, or one label was left and its best answer is proposed before any comparison ("Did this
    answer it?"; its other answers are compared only if the person says no)."""

    USER = "user"
    BEST_ANSWER = "best_answer"
