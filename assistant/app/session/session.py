"""One conversation end to end: query -> clarifying questions -> shortlist -> pairwise comparisons -> answer.

A ``Session`` drives the clarifier (assistant.clarification.clarifier) and then the pairwise ranker
(assistant.ranking.RankingSession), and logs every action of the person's, with the decisions that follow it,
to the domain's SQLite file (``assistant.store.SessionLog``) before it changes anything: a crash loses at
most the action in progress, and an interrupted session is resumed by replaying its log
(``assistant.app.session.session_state``). The log is append-only: an undo is an action too, so the transcript
keeps what really happened.

Phases (``Phase``): clarifying (a question is pending) -> comparing (a pair is pending) -> decided (an
answer is proposed: "Accept this answer?") -> finished (accepted) or rejected. A rejected answer is not a
dead end: the person picks another compared answer (``choose``, finished), asks more questions with the
rejected label excluded (``ask_more``, back to clarifying) or gives up (``give_up``, failed). "Neither is
relevant" rules both candidates of a pair out; when every candidate is ruled out the session goes back to
asking with their labels excluded. ``done`` ends the comparisons early with a proposal, never an
acceptance. ``undo`` takes back the last action in every phase, also after the end. When nothing fits the
question (out of scope) the person can say it differently, see the closest answers anyway
(``show_closest``) or hand the question on (``hand_off``: exported as an unanswered question).

An action is applied, its entries written in one transaction, and only then kept: when the write fails
(the knowledge base stays busy, the disk is full) the session is exactly as it was before the action, and
when another program wrote to the same session meanwhile, nothing is written and the session reloads what
is stored (``SessionChangedError``). A log that two programs made contradictory before these checks is
replayed without the entries that no longer apply (``repaired`` says which).

The GUI and the terminal render a session and send it the person's actions; neither holds logic.
"""

from __future__ import annotations

from dataclasses import asdict, replace

from assistant.app.session.domain_models import DomainModels
from assistant.app.session.events import (
    Accept,
    Answer,
    Choose,
    Compare,
    Done,
    GiveUp,
    HandOff,
    LoggedEvent,
    More,
    Query,
    Reject,
    SessionEvent,
    ShowClosest,
    Skip,
    Stop,
    Undo,
    Words,
    event_from_entry,
    read_event,
)
from assistant.app.session.phases import Phase, ProposalReason
from assistant.app.session.saved import list_sessions  # no model needed: `clarify sessions` imports only that
from assistant.app.session.session_records import (
    FinalAnswer,
    OutOfScopeView,
    QuestionView,
    SessionConfig,
    check_session_exists,
    open_knowledge_base,
    resumable,
)
from assistant.app.session.session_state import SessionState
from assistant.clarification.answer_list import ANSWER_LIST
from assistant.clarification.query_check import check_added_words
from assistant.clarification.records import AnswerKind, ShortlistItem, StopReason
from assistant.errors import ClarifyError, ConfigError, SessionChangedError, SessionStateError
from assistant.ranking import RankingStopReason
from assistant.store import EntryKind, KnowledgeBase, SessionLog, SessionStatus, SessionSummary

__all__ = [  # the session's vocabulary, for the GUI and the terminal (docs/glossary.md)
    "AnswerKind",
    "EntryKind",
    "FinalAnswer",
    "OutOfScopeView",
    "Phase",
    "ProposalReason",
    "QuestionView",
    "RankingStopReason",
    "Session",
    "SessionConfig",
    "SessionStatus",
    "ShortlistItem",
    "StopReason",
    "check_session_exists",
    "list_sessions",
    "open_knowledge_base",
]


class Session(SessionState):
    """See the module docstring. Create with ``Session.start`` or ``Session.resume``."""

    def __init__(self, registry: DomainModels, kb: KnowledgeBase, session_id: int, query: str, config: SessionConfig):
        clarifier = registry.clarifier(config.candidates, config.pace, config.shortlist_size)
        super().__init__(clarifier, registry.text_encoder, query, config, registry.domain.title)
        self.registry = registry
        self.kb = kb
        self.log = SessionLog(kb)
        self.id = session_id
        self.repaired: list[str] = []  # log entries a replay left out (written by two programs at once)
        self._length = 0  # the entries of the log as this session last read or wrote it

    # ---- creating, resuming, listing -------------------------------------------------------------------
    @classmethod
    def start(
        cls, registry: DomainModels, query: str, config: SessionConfig | None = None, kb: KnowledgeBase | None = None
    ) -> Session:
        """Open a new session for ``query``; the query and the first decisions are logged at once."""
        config = config or SessionConfig()
        config = replace(config, text_prior=registry.text_prior, pace=config.pace or registry.default_pace)
        kb = kb or KnowledgeBase.open(registry.name)
        session = cls(registry, kb, 0, query, config)  # validates the query before anything is written
        entries = [Query(session.query), *session.decide()]
        session.id = session.log.create(session.query, asdict(config), entries=_stored(entries))
        session._length = len(entries)
        return session

    @classmethod
    def resume(cls, registry: DomainModels, session_id: int, kb: KnowledgeBase | None = None) -> Session:
        """Rebuild session ``session_id`` by replaying its log, then carry on where it stopped."""
        kb = kb or KnowledgeBase.open(registry.name)
        record, config = resumable(kb, registry.name, registry.text_prior, session_id)
        session = cls(registry, kb, session_id, record.query, config)
        session.reload()
        session._commit([])  # models may have changed since: decide afresh (and log what follows)
        return session

    @staticmethod
    def saved(kb: KnowledgeBase, status: str | None = None) -> list[SessionSummary]:
        """Past sessions, newest first (optionally only one status, e.g. 'active' to resume)."""
        return SessionLog(kb).list(status)

    def reload(self) -> None:
        """Rebuild the state from the log as it is stored now (another program may have written to it). An
        entry that no longer applies (two programs answered the same question) is left out and named in
        ``repaired``."""
        stored = self.log.entries(self.id)
        self._reset()
        self.repaired = []
        for position, (kind, payload) in enumerate(stored):
            if kind == EntryKind.QUERY:
                continue
            before = list(self._applied)
            try:
                self.apply(event_from_entry(kind, payload))
            except (ClarifyError, KeyError, TypeError, ValueError) as exc:  # contradictory or damaged
                self.replay(before)
                self.repaired.append(f"entry {position} ({kind}) was left out: {exc}")
        self._length = len(stored)
        self.decide_pending()

    def decide_pending(self) -> None:
        """The pending question after a replay (a replay applies entries only; the question is not one). When
        the clarifier would stop instead (the models changed since), ``decide`` takes and logs that."""
        if self.phase == Phase.CLARIFYING and self._pending_question is None:
            question = self.conversation.next_question(override_stop=self._override_stop)
            if question is None:
                self.conversation.stopped, self.conversation.stop_reason = False, None
            else:
                self._pending_question, self._override_stop = question, False

    def transcript(self) -> list[LoggedEvent]:
        """The session's log as typed events, each with its position and time (for a chat-style view and for
        audits); an entry that is none of the events is there as ``Unreadable``."""
        return [
            LoggedEvent(position, at, read_event(kind, payload))
            for position, kind, payload, at in self.log.timed_entries(self.id)
        ]

    def candidate_titles(self, transcript: list[LoggedEvent] | None = None) -> dict[str, str]:
        """{candidate id: the name of the label it answers} for every candidate the session compared (the
        transcript's comparisons name candidates by id)."""
        titles: dict[str, str] = {}
        for logged in self.transcript() if transcript is None else transcript:
            if isinstance(logged.event, Stop):
                for cid, (key, shown) in logged.event.candidate_labels().items():
                    try:
                        titles[cid] = shown or self.domain.labels[self.domain.label_index(key)].name
                    except ClarifyError:  # a label deleted since
                        titles[cid] = key
        return titles

    # ---- the person's actions (each logged, with the decisions that follow, before it is kept) ------------
    def answer(self, option: int | None = None, kind: AnswerKind | str = AnswerKind.OPTION) -> None:
        """Answer the pending question with an option index, or kind 'not_sure' / 'not_visible'."""
        view = self._need(Phase.CLARIFYING)
        assert view is not None  # _need raised when no question is pending
        kind = AnswerKind(kind)
        options = view.options
        if kind.picks_an_option and (option is None or not 0 <= option < len(options)):
            raise ConfigError(f"choose one of the {len(options)} options of {view.text!r}")
        # the tag survives rewording and hidden questions
        tag = self.domain.questions[view.index].tag if view.index >= 0 else None
        listed = self.conversation.pending_list if view.index == ANSWER_LIST else None
        keys = None
        if listed is not None:  # the labels it listed: a replay asks the same list
            labels, candidates = self.domain.labels, self.conversation.clarifier.candidates
            keys = tuple(labels[int(candidates[i])].key for i in listed.positions)
        option_text = options[option] if option is not None else None
        self._act(Answer(view.index, view.text, option, kind, tag, option_text, keys))

    def add_words(self, words: str) -> None:
        """The person says more about what they look for ("it was in gmail"): the prior is recomputed on the
        longer query and the answers so far stay. Allowed while clarifying, and after the assistant stopped
        until the first comparison (the questions then resume if the assistant is no longer sure)."""
        if not self.can_add_words:
            raise SessionStateError("words can be added while questions are asked or before the first comparison")
        if not words or not words.strip():
            raise ConfigError("there are no words to add: type what else you can say about it")
        # the query with them must fit what the priors read (a replay of a saved log never checks again)
        self._act(Words(check_added_words(self.query, words)))

    def skip_to_shortlist(self) -> None:
        """Stop asking and compare the shortlist now."""
        self._need(Phase.CLARIFYING)
        self._act(Skip())

    def ask_more(self) -> None:
        """More questions although the agent stopped: before the first comparison, or after a rejection (then
        without the rejected answer's label)."""
        if not self.can_ask_more:
            raise SessionStateError("more questions can be asked before the first comparison or after a rejection")
        rejected = self.rejected if self.phase == Phase.REJECTED else None
        self._act(More((rejected.label_key,) if rejected else ()))

    def prefer(self, choice: str) -> None:
        """Answer the pending comparison: 'left', 'right', 'tie' or 'neither' (neither is relevant)."""
        pair = self.pair
        if pair is None:
            raise SessionStateError(f"no comparison is pending (the session is {self.phase})")
        self._act(Compare(pair[0].id, pair[1].id, choice))

    def done(self) -> FinalAnswer:
        """End the comparisons now: the current best is proposed ("Accept this answer?"), not accepted."""
        if self.phase != Phase.COMPARING:
            raise SessionStateError(f"there are no comparisons to end while {self.phase}")
        answer = self._proposal()
        self._act(Done(answer.label_key, answer.candidate_id))
        return answer

    def accept(self) -> FinalAnswer:
        """Accept the proposed answer."""
        if self.phase != Phase.DECIDED:
            raise SessionStateError(f"there is no proposed answer to accept while {self.phase}")
        answer = self._proposal()
        self._act(Accept(answer.label_key, answer.text, answer.candidate_id))
        return self._final()

    def reject(self, reason: str = "") -> None:
        """The proposed answer is not it: then ``choose`` another, ``ask_more`` or ``give_up``."""
        if self.phase != Phase.DECIDED:
            raise SessionStateError(f"there is no proposed answer to reject while {self.phase}")
        answer = self._proposal()
        self._act(Reject(reason, answer.label_key, answer.candidate_id))

    def choose(self, candidate_id: str) -> FinalAnswer:
        """After a rejection: take another compared candidate as the answer."""
        if self.phase != Phase.REJECTED:
            raise SessionStateError(f"another answer can be picked only after a rejection, not while {self.phase}")
        chosen = next((c for c in self.alternatives if c.id == candidate_id), None)
        if chosen is None:
            raise ConfigError(f"{candidate_id!r} is not one of the other shortlisted answers")
        self._act(Choose(candidate_id, chosen.label_key))
        return self._final()

    def give_up(self) -> None:
        """After a rejection: end without an answer (the session is logged as failed)."""
        if self.phase != Phase.REJECTED:
            raise SessionStateError(f"giving up is for after a rejection, not while {self.phase}")
        self._act(GiveUp())

    def show_closest(self) -> None:
        """Out of scope, but the person wants to see the closest answers anyway: compare the shortlist."""
        self._need(Phase.OUT_OF_SCOPE)
        self._act(ShowClosest())

    def hand_off(self, note: str = "") -> None:
        """Out of scope, or after a rejection: pass the question on to a person (it waits in the inbox; after a
        rejection this ends the conversation without an answer, as giving up does)."""
        if self.handed_off:
            raise SessionStateError("this question was already handed on")
        if self.phase not in (Phase.OUT_OF_SCOPE, Phase.REJECTED):
            raise SessionStateError(
                f"a question is handed on when nothing fits or after a rejection, not while {self.phase}"
            )
        closest = [item.label.key for item in self.conversation.shortlist(self.config.shortlist_size)]
        if self.rejected is not None and self.phase == Phase.REJECTED:
            closest = [self.rejected.label_key, *(k for k in closest if k != self.rejected.label_key)]
        self._act(HandOff(self.query, " ".join(note.split()), tuple(closest)))

    def undo(self) -> None:
        """Take back the last action (an answer, a comparison, a decision), stepping back across phases."""
        if not self.can_undo:
            raise SessionStateError("there is nothing to undo yet")
        self._act(Undo(self.phase))

    # ---- applying and logging -----------------------------------------------------------------------------
    def _proposal(self) -> FinalAnswer:
        """The proposed answer (the callers checked the phase, which always has one)."""
        answer = self.proposed
        if answer is None:
            raise SessionStateError(f"there is no proposed answer while {self.phase}")
        return answer

    def _final(self) -> FinalAnswer:
        """The accepted answer, right after an action that accepted one."""
        if self.final is None:
            raise SessionStateError(f"no answer was accepted (the session is {self.phase})")
        return self.final

    def _need(self, phase: Phase) -> QuestionView | None:
        if self.phase != phase:
            raise SessionStateError(
                f"this action needs the {phase.replace('_', ' ')} phase; the session is {self.phase}"
            )
        if phase == Phase.CLARIFYING and self.question is None:
            raise SessionStateError("no question is pending")
        return self.question

    def _act(self, event: SessionEvent) -> None:
        """A live action of the person's: applied with the decisions that follow, then logged; kept only once
        logged (see the module docstring)."""
        before = list(self._applied)
        try:
            self.apply(event)
        except BaseException:
            self.replay(before)
            self.decide_pending()
            raise
        self._commit([event], before)

    def _commit(self, entries: list[SessionEvent], before: list[SessionEvent] | None = None) -> None:
        """Take the decisions that follow ``entries`` (applied already) and log them all in one transaction;
        when that fails, go back to the state after ``before`` (the entries applied until then)."""
        before = list(self._applied[: len(self._applied) - len(entries)]) if before is None else before
        try:
            entries = [*entries, *self.decide()]
            if entries:
                final = self.final.label_key if self.final is not None else None
                stored = _stored(entries)
                self._length = self.log.append_entries(self.id, stored, self.status, final, expected=self._length)
        except SessionChangedError:
            self.reload()
            raise
        except BaseException:
            self.replay(before)
            self.decide_pending()
            raise


def _stored(events: list[SessionEvent]) -> list[tuple[str, dict]]:
    """(kind, payload) of ``events`` as the log stores them."""
    return [(event.kind, event.to_json()) for event in events]
