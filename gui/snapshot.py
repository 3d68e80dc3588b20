"""Immutable views of a ``Session`` for the widgets.

A session lives in the session thread (it owns that thread's SQLite connection), so the widgets never
touch it: after every action the session thread reads what the pages show into a ``SessionSnapshot``
(plain data, safe to hand to the GUI thread) and the pages render that. Nothing here decides anything;
it only copies what the session already says: every probability comes from the session's one view
(``assistant.app.session.view.SessionView``, issue 32), which the terminal renders too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from assistant.app.session.events import Back, More, SessionEvent, Unreadable
from assistant.app.session.phases import Phase, SessionStatus

if TYPE_CHECKING:  # the session's modules load with the models, in the session thread (the window opens first)
    from assistant.app.session.session import Session
    from assistant.app.session.session_records import FinalAnswer, OutOfScopeView, QuestionView
    from assistant.app.session.session_state import QuestionExplanation
    from assistant.app.session.view import SessionView

POSTERIOR_SIZE = 10


@dataclass(frozen=True)
class SessionSnapshot:
    """Everything the Ask, Compare and History pages show about one session at one moment."""

    session_id: int
    domain: str
    query: str
    phase: Phase
    status: SessionStatus
    questions_answered: int
    question: QuestionView | None
    explanation: QuestionExplanation | None
    confidence: float | None
    threshold: float
    comparisons: int
    budget: int
    proposed: FinalAnswer | None
    final: FinalAnswer | None
    stop_reason: str | None
    stop_explanation: str | None
    can_undo: bool
    can_ask_more: bool
    can_add_words: bool
    # every probability shown, from the one belief, and the rows, titles and texts every face renders: the
    # posterior (``entries``), the pair, the compared answers (``answers``), the answers on offer after a
    # rejection (``alternatives``), the answers to summarize (module docstring)
    view: SessionView
    transcript: tuple[SessionEvent | Unreadable, ...] = field(default=())  # the log's entries, typed
    candidate_titles: dict[str, str] = field(default_factory=dict)  # candidate ids and label keys -> names
    decided_reason: str | None = None
    rejected: FinalAnswer | None = None
    rejection_reason: str = ""
    ruled_out_labels: tuple[str, ...] = ()  # names of shortlisted labels the answers ruled out
    nothing_fits: OutOfScopeView | None = None  # the out-of-scope ending (phase "out_of_scope")
    handed_off: bool = False

    @property
    def active(self) -> bool:
        return self.phase not in (Phase.FINISHED, Phase.FAILED)


def _transcript(session: Session) -> tuple[tuple[SessionEvent | Unreadable, ...], dict[str, str]]:
    """The session's log as events, and the names of everything the log names by id: the candidates of the
    comparisons, and the labels that "ask me more" and "none of those fits" set aside."""
    logged = session.transcript()
    titles = session.candidate_titles(logged)
    for entry in logged:
        if isinstance(entry.event, More | Back):
            for key in entry.event.exclude:
                titles.setdefault(key, _label_name(session, key))
    return tuple(entry.event for entry in logged), titles


def take_snapshot(session: Session, domain: str) -> SessionSnapshot:
    """Read everything the pages show from ``session`` (call it in the session's own thread)."""
    from assistant.app.session.view import session_view

    question = session.question
    view = session_view(session, POSTERIOR_SIZE)
    config = session.config
    transcript, titles = _transcript(session)
    return SessionSnapshot(
        session_id=int(session.id),
        domain=domain,
        query=session.query,
        phase=session.phase,
        status=session.status,
        questions_answered=int(session.conversation.turn),
        question=question,
        explanation=session.explain() if question is not None else None,
        confidence=session.confidence,
        threshold=float(config.ranking_threshold),
        comparisons=int(session.comparisons),
        budget=int(config.ranking_budget),
        proposed=session.proposed,
        final=session.final,
        stop_reason=session.stop_reason,
        stop_explanation=view.stop_explanation,
        can_undo=session.can_undo,
        can_ask_more=session.can_ask_more,
        can_add_words=session.can_add_words,
        view=view,
        transcript=transcript,
        candidate_titles=titles,
        decided_reason=session.decided_reason,
        rejected=session.rejected,
        rejection_reason=session.rejection_reason,
        ruled_out_labels=tuple(_label_name(session, key) for key in session.ruled_out_labels),
        nothing_fits=session.nothing_fits,
        handed_off=session.handed_off,
    )


def _label_name(session: Session, key: str, missing: str = "an answer no longer in this domain") -> str:
    try:
        return str(session.domain.labels[session.domain.label_index(key)].name)
    except Exception:  # a label gone since the session was logged: its key means nothing to a person
        return missing
