"""The entries of a conversation's log as typed events (after Rasa's ``rasa/shared/core/events.py``).

One frozen record per ``EntryKind``: ``to_json()`` is the payload the log stores (the keys, their order and
their values exactly as ``Session`` wrote them before the events were typed, issue 38: a stored session replays
the same), ``from_json()`` reads a stored payload (older logs' shapes too) and says plainly what is wrong
with a damaged one (``DamagedEntryError``), and ``apply_to(state)`` is what the entry changes in a
``SessionState`` (``assistant.app.session.session_state``): that is the whole of replaying it.

The schema (docs/architecture.md, "The session log") is these classes: a payload holds the fields in their
order under their names (``Answer.listed`` as "list"), tuples as lists, an ``OMIT`` field only while it is
set; a field with a default may be missing from older logs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, Self

from assistant.app.session.event_fields import DamagedEntryError, Fields, unknown_kind
from assistant.app.session.phases import ProposalReason
from assistant.clarification.records import AnswerKind, StopReason
from assistant.store import EntryKind

if TYPE_CHECKING:
    from assistant.ranking import RankingSession

__all__ = ["DamagedEntryError", "LoggedEvent", "SessionEvent", "Unreadable", "event_from_entry", "read_event"]


# field metadata: "omit": the payload leaves the field out while it is None or empty; "key": its JSON key where
# that is not its name; "logged": False for what a live event holds beyond its payload
OMIT = {"omit": True}


class SessionChanges(Protocol):
    """What the events change in a conversation's state (``SessionState`` is one; named here, not imported, so
    that the state's module can import the events)."""

    def apply_answer(self, answer: Answer) -> None: ...
    def add_words_to_query(self, words: str) -> None: ...
    def stop_asking(self, reason: StopReason) -> None: ...
    def start_comparing(self, stop: Stop, ranking: RankingSession | None) -> None: ...
    def back_to_questions(self, exclude: tuple[str, ...]) -> None: ...
    def compare(self, comparison: Compare) -> None: ...
    def propose(self, reason: str) -> None: ...
    def finish(self, candidate: str | None) -> None: ...
    def reject_proposal(self, reject: Reject) -> None: ...
    def nothing_to_compare(self) -> None: ...
    def end_without_answer(self) -> None: ...
    def conclude_out_of_scope(self, after_no: bool = False) -> None: ...
    def note_handed_off(self) -> None: ...
    def leave_comparing(self) -> None: ...
    def undo_last_action(self) -> None: ...


def _plain(value: Any) -> Any:
    """``value`` as the JSON module writes it: tuples as lists."""
    return [_plain(v) for v in value] if isinstance(value, tuple) else value


@dataclass(frozen=True)
class SessionEvent:
    """One entry of a conversation's log. Subclasses set ``kind`` and implement the three methods."""

    kind: ClassVar[EntryKind]

    def to_json(self) -> dict[str, Any]:
        """The payload the log stores: the fields in order, as JSON (``OMIT`` ones only while set)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.metadata.get("logged", True) and not (f.metadata.get("omit") and (value is None or value == ())):
                out[f.metadata.get("key", f.name)] = _plain(value)
        return out

    @classmethod
    def from_json(cls, payload: Fields) -> Self:
        """The event a stored payload describes (``Fields`` raises ``DamagedEntryError`` for a damaged one)."""
        logged = (f for f in fields(cls) if f.metadata.get("logged", True))
        return cls(**{f.name: payload.read(f.metadata.get("key", f.name), str(f.type), f.default) for f in logged})

    def apply_to(self, state: SessionChanges) -> None:
        """Change ``state`` for this entry (live or replayed); no logging, no decisions."""
        raise NotImplementedError

    def as_logged(self) -> SessionEvent:
        """The event as a replay reads it back from the log (what a live one holds beyond its payload goes)."""
        return self


@dataclass(frozen=True)
class Query(SessionEvent):
    """The person's question as typed (the first entry; the state starts from it, so applying it is nothing)."""

    kind = EntryKind.QUERY
    text: str

    def apply_to(self, state: SessionChanges) -> None:
        pass


@dataclass(frozen=True)
class Answer(SessionEvent):
    """An answer to question ``question`` (its index then; ``tag`` and ``text`` find it again after the domain's
    questions changed), ``option`` of its options (None for "not sure" and "not visible"); ``listed``: the
    labels a "Which of these is it?" question listed (a replay asks the same list)."""

    kind = EntryKind.ANSWER
    question: int
    text: str | None
    option: int | None
    answer: AnswerKind = AnswerKind.OPTION
    tag: str | None = field(default=None, metadata=OMIT)
    option_text: str | None = field(default=None, metadata=OMIT)
    listed: tuple[str, ...] | None = field(default=None, metadata={**OMIT, "key": "list"})

    def apply_to(self, state: SessionChanges) -> None:
        state.apply_answer(self)


@dataclass(frozen=True)
class Words(SessionEvent):
    """Words the person added to the query ("it was in gmail")."""

    kind = EntryKind.WORDS
    text: str

    def apply_to(self, state: SessionChanges) -> None:
        state.add_words_to_query(self.text)


@dataclass(frozen=True)
class Skip(SessionEvent):
    """Stop asking and compare the shortlist now."""

    kind = EntryKind.SKIP

    def apply_to(self, state: SessionChanges) -> None:
        state.stop_asking(StopReason.USER)


@dataclass(frozen=True)
class Stop(SessionEvent):
    """The questions stopped (``reason``) and the comparisons start: the compared labels with their exact
    probabilities (``labels``, so that a replay builds the same priors), the shortlisted labels the answers ruled
    out, and the candidates as [id, label key, title shown]. Logs written before the entries kept labels hold the
    whole ranking session instead (``ranking``). ``fitted``: the live ranking session this entry describes, never
    logged (a replay builds it from the entry; building it twice would fit the ranker twice)."""

    kind = EntryKind.STOP
    reason: str = StopReason.CONFIDENT  # a StopReason; older logs' reasons are shown, replaying says what is wrong
    coverage: float | None = field(default=None, metadata=OMIT)
    top: float | None = field(default=None, metadata=OMIT)
    labels: tuple[tuple[str, float], ...] = ()
    ruled_out: tuple[str, ...] = ()
    candidates: tuple[tuple[str, ...], ...] = ()
    ranking: dict | None = field(default=None, metadata=OMIT)
    fitted: RankingSession | None = field(default=None, compare=False, repr=False, metadata={"logged": False})

    def apply_to(self, state: SessionChanges) -> None:
        state.start_comparing(self, self.fitted)

    def as_logged(self) -> Stop:
        return Stop(self.reason, self.coverage, self.top, self.labels, self.ruled_out, self.candidates, self.ranking)

    def candidate_labels(self) -> dict[str, tuple[str, str | None]]:
        """{candidate id: (label key, title shown or None)} of the candidates compared (older logs: their whole
        ranking session, whose candidates' label keys were their ids up to '#')."""
        if self.ranking is not None:
            saved = self.ranking.get("candidates", [])
            return {
                str(c.get("id")): (str(c.get("label_key") or str(c.get("id")).split("#", 1)[0]), None)
                for c in saved
                if isinstance(c, dict)
            }
        return {row[0]: (row[1], row[2] if len(row) > 2 else None) for row in self.candidates if len(row) > 1}


@dataclass(frozen=True)
class More(SessionEvent):
    """More questions although the assistant stopped (``exclude``: after a rejection, the rejected label)."""

    kind = EntryKind.MORE
    exclude: tuple[str, ...] = field(default=(), metadata=OMIT)

    def apply_to(self, state: SessionChanges) -> None:
        state.back_to_questions(self.exclude)


@dataclass(frozen=True)
class Back(SessionEvent):
    """Every compared candidate was ruled out: back to the questions without their labels (``exclude``)."""

    kind = EntryKind.BACK
    exclude: tuple[str, ...]
    reason: str | None = None

    def apply_to(self, state: SessionChanges) -> None:
        state.back_to_questions(self.exclude)


@dataclass(frozen=True)
class Compare(SessionEvent):
    """One comparison: ``preferred`` is 'left', 'right', 'tie' or 'neither' (neither is relevant)."""

    kind = EntryKind.COMPARE
    left: str
    right: str
    preferred: str

    def apply_to(self, state: SessionChanges) -> None:
        state.compare(self)


@dataclass(frozen=True)
class Decided(SessionEvent):
    """The session proposes an answer ("Accept this answer?"): ``reason`` is the ranker's stop reason, or
    'best_answer' when one entry was left and its best answer comes first."""

    kind = EntryKind.DECIDED
    reason: str = ProposalReason.USER

    def apply_to(self, state: SessionChanges) -> None:
        state.propose(self.reason)


@dataclass(frozen=True)
class Done(SessionEvent):
    """The person ended the comparisons: the current best (``label``, ``candidate``) is proposed."""

    kind = EntryKind.DONE
    label: str | None = None
    candidate: str | None = None

    def apply_to(self, state: SessionChanges) -> None:
        state.propose(ProposalReason.USER)


@dataclass(frozen=True)
class Accept(SessionEvent):
    """The person accepted the proposed answer (its label, text and candidate, for audits)."""

    kind = EntryKind.ACCEPT
    label: str | None = None
    text: str | None = None
    candidate: str | None = None

    def apply_to(self, state: SessionChanges) -> None:
        state.finish(None)


@dataclass(frozen=True)
class Reject(SessionEvent):
    """The proposed answer (``label``, ``candidate``) is not it, for ``reason`` (may be empty)."""

    kind = EntryKind.REJECT
    reason: str = ""
    label: str | None = None
    candidate: str | None = None

    def apply_to(self, state: SessionChanges) -> None:
        state.reject_proposal(self)


@dataclass(frozen=True)
class Choose(SessionEvent):
    """After a rejection the person took another compared answer."""

    kind = EntryKind.CHOOSE
    candidate: str | None
    label: str | None = None

    def apply_to(self, state: SessionChanges) -> None:
        state.finish(self.candidate)


@dataclass(frozen=True)
class NothingLeft(SessionEvent):
    """Every label is excluded: nothing is left to compare."""

    kind = EntryKind.NOTHING_LEFT

    def apply_to(self, state: SessionChanges) -> None:
        state.nothing_to_compare()


@dataclass(frozen=True)
class GiveUp(SessionEvent):
    """After a rejection the person ended without an answer."""

    kind = EntryKind.GIVE_UP

    def apply_to(self, state: SessionChanges) -> None:
        state.end_without_answer()


@dataclass(frozen=True)
class OutOfScope(SessionEvent):
    """Nothing here fits the question, ``probability`` sure."""

    kind = EntryKind.OUT_OF_SCOPE
    reason: str = StopReason.OUT_OF_SCOPE
    probability: float = 0.0
    # no entry became likely after a "no" (``way_back``); logged only then (None otherwise)
    after_no: bool | None = field(default=None, metadata=OMIT)

    def apply_to(self, state: SessionChanges) -> None:
        state.conclude_out_of_scope(bool(self.after_no))


@dataclass(frozen=True)
class ShowClosest(SessionEvent):
    """Out of scope, but the person wants to compare the closest answers anyway."""

    kind = EntryKind.SHOW_CLOSEST

    def apply_to(self, state: SessionChanges) -> None:
        state.leave_comparing()
        state.stop_asking(StopReason.CLOSEST)


@dataclass(frozen=True)
class HandOff(SessionEvent):
    """The question is passed on to a person: the query then, the person's note, the closest labels."""

    kind = EntryKind.HAND_OFF
    query: str | None = None
    note: str = ""
    closest: tuple[str, ...] = ()

    def apply_to(self, state: SessionChanges) -> None:
        state.note_handed_off()


@dataclass(frozen=True)
class Undo(SessionEvent):
    """The last action of the person's is taken back (``phase``: the phase it was taken back in)."""

    kind = EntryKind.UNDO
    phase: str | None = None

    def apply_to(self, state: SessionChanges) -> None:
        state.undo_last_action()


EVENTS: dict[EntryKind, Callable[[Fields], SessionEvent]] = {
    event.kind: event.from_json
    for event in (
        *(Query, Answer, Words, Skip, Stop, More, Back, Compare, Decided, Done, Accept, Reject, Choose),
        *(NothingLeft, GiveUp, OutOfScope, ShowClosest, HandOff, Undo),
    )
}


def event_from_entry(kind: str, payload: object) -> SessionEvent:
    """The event of one stored entry (its kind under today's or an older name); ``DamagedEntryError`` for an
    unknown kind or a payload that is not what Clarify writes."""
    try:
        entry_kind = EntryKind(kind)
    except ValueError:
        raise unknown_kind(kind) from None
    return EVENTS[entry_kind](Fields(entry_kind, payload))


@dataclass(frozen=True)
class Unreadable:
    """A stored entry that is none of the events (another program's, or damaged): a transcript shows that it is
    there; a replay leaves it out (``event_from_entry`` raised ``problem``)."""

    entry: str
    problem: str


def read_event(kind: str, payload: object) -> SessionEvent | Unreadable:
    """``event_from_entry``, or ``Unreadable`` saying why not (for transcripts, which show every entry)."""
    try:
        return event_from_entry(kind, payload)
    except DamagedEntryError as exc:
        return Unreadable(str(kind), str(exc))


@dataclass(frozen=True)
class LoggedEvent:
    """One entry of a session's transcript: where it stands in the log, when it was written, and the event."""

    position: int
    at: str
    event: SessionEvent | Unreadable

    @property
    def kind(self) -> EntryKind | str:
        event = self.event
        return event.entry if isinstance(event, Unreadable) else event.kind
