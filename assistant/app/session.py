"""One conversation end to end: query -> clarifying questions -> shortlist -> pairwise comparisons -> answer.

A ``Session`` drives the clarifier (assistant.clarification.clarifier) and then the pairwise ranker
(assistant.ranking.RankingSession) and logs every user action to the domain's SQLite file as it happens
(``assistant.store.SessionLog``), so that a crash loses at most the action in progress and an
interrupted session can be resumed by replaying its log. The log is append-only: an undo is an action
too, so the transcript keeps what really happened.

Phases: ``clarifying`` (a question is pending) -> ``comparing`` (a pair is pending) -> ``decided`` (an
answer is proposed: "Accept this answer?") -> ``finished`` (accepted) or ``rejected``. A rejected answer
is not a dead end: the person picks another shortlisted answer (``choose``, finished), asks more questions
with the rejected label excluded (``ask_more``, back to clarifying) or gives up (``give_up``, failed).
"Neither is relevant" rules both candidates of a pair out; when every candidate is ruled out the session
goes back to asking with their labels excluded. ``done`` ends the comparisons early with a proposal, never
an acceptance. ``undo`` takes back the last action in every phase, also after the end: the state is rebuilt
from the entries before it, exactly as a resume replays them.
``out_of_scope``: nothing fits the question (``assistant.app.session_ending``; logged as out of scope).

The GUI and the terminal render a session and send it the user's actions; neither holds logic.
"""

from __future__ import annotations

from dataclasses import asdict, replace

import numpy as np

from assistant.app.comparison import answer_from_ranking, comparison_phase, exclude_labels, label_key, question_index
from assistant.app.registry import ModelRegistry
from assistant.app.session_ending import OutOfScopeEnding
from assistant.app.session_records import (
    USER_ACTIONS,
    FinalAnswer,
    OutOfScopeView,
    Phase,
    QuestionView,
    SessionConfig,
    check_session_exists,
    explain_stop,
    list_sessions,
    open_session_log,
    resumable,
)
from assistant.clarification.clarifier import AnswerKind, Conversation, ShortlistItem
from assistant.errors import ConfigError, SessionStateError
from assistant.store import KnowledgeBase, SessionLog, SessionSummary

__all__ = [
    "FinalAnswer",
    "OutOfScopeView",
    "QuestionView",
    "Session",
    "SessionConfig",
    "ShortlistItem",
    "check_session_exists",
    "list_sessions",
    "open_session_log",
]


class Session(OutOfScopeEnding):
    """See the module docstring. Create with ``Session.start`` or ``Session.resume``."""

    def __init__(self, registry: ModelRegistry, kb: KnowledgeBase, session_id: int, query: str, config: SessionConfig):
        self.registry = registry
        self.kb = kb
        self.log = SessionLog(kb)
        self.id = session_id
        self.config = config
        clarifier = registry.clarifier(config.candidates, config.pace, config.shortlist_size)
        self.conversation: Conversation = clarifier.start(query, np.random.default_rng(config.seed))
        self.query = self.conversation.query
        # the conversation as the query left it: undo replays the log from here
        self._origin = (self.conversation.belief.log_prior.copy(), self.query, list(self.conversation.understood))
        self.ranking = None  # assistant.ranking.RankingSession while comparing
        self.phase: Phase = "clarifying"
        self.stop_reason: str | None = None
        self.decided_reason: str | None = None  # why an answer is proposed: the ranker's stop reason, or 'user'
        self.final: FinalAnswer | None = None
        self.rejected: FinalAnswer | None = None
        self.rejection_reason = ""
        self.ruled_out_labels: tuple[str, ...] = ()  # shortlisted labels the answers ruled out (not compared)
        self._pending_question: int | None = None
        self._override_stop = False
        self._applied: list[tuple[str, dict]] = []  # every entry applied so far (for undo)

    # ---- creating, resuming, listing -------------------------------------------------------------------
    @classmethod
    def start(
        cls, registry: ModelRegistry, query: str, config: SessionConfig | None = None, kb: KnowledgeBase | None = None
    ) -> Session:
        """Open a new session for ``query``; the query and the first decision are logged at once."""
        config = config or SessionConfig()
        config = replace(config, text_prior=registry.text_prior, pace=config.pace or registry.default_pace)
        kb = kb or KnowledgeBase.open(registry.name)
        session = cls(registry, kb, 0, query, config)  # validates the query before anything is written
        session.id = session.log.create(session.query, asdict(config))
        session._log("query", {"text": session.query})
        session._advance()
        return session

    @classmethod
    def resume(cls, registry: ModelRegistry, session_id: int, kb: KnowledgeBase | None = None) -> Session:
        """Rebuild session ``session_id`` by replaying its log, then carry on where it stopped."""
        kb = kb or KnowledgeBase.open(registry.name)
        record, config = resumable(kb, registry.name, registry.text_prior, session_id)
        session = cls(registry, kb, session_id, record.query, config)
        for kind, payload in session.log.entries(session_id, skip_kinds=("query",)):
            session._apply(kind, payload)
        session._advance()  # models may have changed since: decide afresh (and log what follows)
        return session

    @staticmethod
    def list(kb: KnowledgeBase, status: str | None = None) -> list[SessionSummary]:
        """Past sessions, newest first (optionally only one status, e.g. 'active' to resume)."""
        return SessionLog(kb).list(status)

    # ---- state the views render -----------------------------------------------------------------------
    @property
    def domain(self):
        return self.registry.domain

    @property
    def question(self) -> QuestionView | None:
        """The pending question (None outside the clarifying phase)."""
        if self.phase != "clarifying" or self._pending_question is None:
            return None
        return QuestionView.of(self.conversation, self._pending_question)

    def posterior(self, k: int = 10) -> list[ShortlistItem]:
        """The k most likely labels now."""
        return self.conversation.shortlist(k)

    def explain(self) -> dict | None:
        """Why the pending question: its information gain and what each answer would change."""
        view = self.question
        return None if view is None else self.conversation.explain(view.index)

    @property
    def pair(self):
        """(left, right) candidates pending comparison, or None."""
        if self.phase != "comparing" or self.ranking is None:
            return None
        pending = self.ranking.next_pair()
        if pending is None:
            return None
        return self.ranking.candidates[pending[0]], self.ranking.candidates[pending[1]]

    @property
    def confidence(self) -> float | None:
        """The ranker's P(current best is best), once comparing."""
        return None if self.ranking is None else float(self.ranking.confidence)

    @property
    def comparisons(self) -> int:
        return 0 if self.ranking is None else len(self.ranking.history)

    @property
    def proposed(self) -> FinalAnswer | None:
        """The final answer, or the ranker's current best while comparing."""
        if self.final is not None:
            return self.final
        return None if self.ranking is None else answer_from_ranking(self.ranking, self.conversation, self.domain)

    @property
    def status(self) -> str:
        return {"finished": "finished", "failed": "failed", "out_of_scope": "out_of_scope"}.get(self.phase, "active")

    @property
    def alternatives(self) -> list:
        """After a rejection: the other compared candidates, best first (pick one with ``choose``)."""
        if self.phase != "rejected" or self.ranking is None:
            return []
        rejected = self.rejected.candidate_id if self.rejected is not None else None
        return [self.ranking.candidates[i] for i in self.ranking.ranking() if self.ranking.candidates[i].id != rejected]

    def transcript(self) -> list[dict]:
        """The session's log as events (for a chat-style view and for audits)."""
        return self.log.transcript(self.id)

    # ---- user actions (each is logged before the next automatic decision) --------------------------------
    def answer(self, option: int | None = None, kind: AnswerKind = "option") -> None:
        """Answer the pending question with an option index, or kind 'not_sure' / 'not_visible'."""
        view = self._need("clarifying")
        options = view.options
        if kind in ("option", "probably") and (option is None or not 0 <= option < len(options)):
            raise ConfigError(f"choose one of the {len(options)} options of {view.text!r}")
        payload = {"question": view.index, "text": view.text, "option": option, "answer": kind}
        payload["tag"] = self.domain.questions[view.index].tag  # survives rewording and hidden questions
        if option is not None:
            payload["option_text"] = options[option]
        self._act("answer", payload)

    def add_words(self, words: str) -> None:
        """The person says more about what they look for ("it was in gmail"): the prior is recomputed on the
        longer query and the answers so far stay. Allowed while clarifying, and after the assistant stopped
        until the first comparison (the questions then resume if the assistant is no longer sure)."""
        if not self.can_add_words:
            raise SessionStateError("words can be added while questions are asked or before the first comparison")
        if not words or not words.strip():
            raise ConfigError("there are no words to add: type what else you can say about it")
        self._act("words", {"text": " ".join(words.split())})

    @property
    def stop_explanation(self) -> str | None:
        """Why the assistant stopped asking, in words (None while it asks)."""
        if self.phase == "clarifying" or self.stop_reason is None:
            return None
        return explain_stop(self.stop_reason, self.conversation, self.config.shortlist_size)

    def skip_to_shortlist(self) -> None:
        """Stop asking and compare the shortlist now."""
        self._need("clarifying")
        self._act("skip", {})

    def ask_more(self) -> None:
        """More questions although the agent stopped: before the first comparison, or after a rejection (then
        without the rejected answer's label)."""
        if not self.can_ask_more:
            raise SessionStateError("more questions can be asked before the first comparison or after a rejection")
        payload = {"exclude": [self.rejected.label_key]} if self.phase == "rejected" and self.rejected else {}
        self._act("more", payload)

    def prefer(self, choice: str) -> None:
        """Answer the pending comparison: 'left', 'right', 'tie' or 'neither' (neither is relevant)."""
        pair = self.pair if self.phase == "comparing" else None
        if pair is None:
            raise SessionStateError(f"no comparison is pending (the session is {self.phase})")
        self._act("compare", {"left": pair[0].id, "right": pair[1].id, "preferred": choice})

    def done(self) -> FinalAnswer:
        """End the comparisons now: the current best is proposed ("Accept this answer?"), not accepted."""
        if self.phase != "comparing":
            raise SessionStateError(f"there are no comparisons to end while {self.phase}")
        answer = answer_from_ranking(self.ranking, self.conversation, self.domain)
        self._act("done", {"label": answer.label_key, "candidate": answer.candidate_id})
        return answer

    def accept(self) -> FinalAnswer:
        """Accept the proposed answer."""
        if self.phase != "decided":
            raise SessionStateError(f"there is no proposed answer to accept while {self.phase}")
        answer = answer_from_ranking(self.ranking, self.conversation, self.domain)
        self._act("accept", {"label": answer.label_key, "text": answer.text, "candidate": answer.candidate_id})
        return answer

    def reject(self, reason: str = "") -> None:
        """The proposed answer is not it: then ``choose`` another, ``ask_more`` or ``give_up``."""
        if self.phase != "decided":
            raise SessionStateError(f"there is no proposed answer to reject while {self.phase}")
        answer = answer_from_ranking(self.ranking, self.conversation, self.domain)
        self._act("reject", {"reason": reason, "label": answer.label_key, "candidate": answer.candidate_id})

    def choose(self, candidate_id: str) -> FinalAnswer:
        """After a rejection: take another compared candidate as the answer."""
        if self.phase != "rejected":
            raise SessionStateError(f"another answer can be picked only after a rejection, not while {self.phase}")
        if candidate_id not in {c.id for c in self.alternatives}:
            raise ConfigError(f"{candidate_id!r} is not one of the other shortlisted answers")
        self._act("choose", {"candidate": candidate_id, "label": label_key(candidate_id)})
        return self.final

    def give_up(self) -> None:
        """After a rejection: end without an answer (the session is logged as failed)."""
        if self.phase != "rejected":
            raise SessionStateError(f"giving up is for after a rejection, not while {self.phase}")
        self._act("give_up", {})

    @property
    def can_ask_more(self) -> bool:
        """Whether ``ask_more`` is allowed now: the agent stopped and no comparison was made yet, or the
        person rejected the proposed answer."""
        if self.phase == "rejected":
            return not self.conversation.excluded.all()
        return self.phase in ("comparing", "decided") and not self.comparisons

    @property
    def can_add_words(self) -> bool:
        """Whether ``add_words`` is allowed now: while clarifying, or stopped before the first comparison."""
        return self.phase in ("clarifying", "out_of_scope") or self.can_ask_more

    @property
    def can_undo(self) -> bool:
        """Whether ``undo`` has something to take back now (any action of the person's, in every phase)."""
        return any(kind in USER_ACTIONS for kind, _ in self._applied)

    def undo(self) -> None:
        """Take back the last action (an answer, a comparison, a decision), stepping back across phases."""
        if not self.can_undo:
            raise SessionStateError("there is nothing to undo yet")
        self._act("undo", {"phase": self.phase})

    # ---- the state machine ----------------------------------------------------------------------------------
    def _need(self, phase: str):
        if self.phase != phase:
            raise SessionStateError(
                f"this action needs the {phase.replace('_', ' ')} phase; the session is {self.phase}"
            )
        if phase == "clarifying" and self.question is None:
            raise SessionStateError("no question is pending")
        return self.question

    def _act(self, kind: str, payload: dict) -> None:
        """A live user action: apply it, log it, then take and log the automatic decisions that follow."""
        self._apply(kind, payload)
        self._log(kind, payload)
        self._advance()

    def _advance(self) -> None:
        """Automatic decisions after an action: the next question, or stop -> compare, or ranker done, or
        (every candidate ruled out) back to the questions without them."""
        for _ in range(3):  # back to the questions at most once per action, then a new shortlist
            if self.phase == "clarifying":
                self._pending_question = self.conversation.next_question(override_stop=self._override_stop)
                self._override_stop = False
                if self._pending_question is None and self._out_of_scope_decision():
                    return
                if self._pending_question is None:
                    reason = self.stop_reason or self.conversation.stop_reason or "confident"
                    ranking = self._shortlist_ranking()
                    if ranking is None:  # every label is excluded: nothing is left to compare
                        self._decide("exhausted", {})
                        return
                    payload = {
                        "reason": reason,
                        "coverage": round(self.conversation.coverage(), 4),
                        "top": round(float(self.conversation.probs.max()), 4),
                        "ruled_out": list(self.ruled_out_labels),
                        "ranking": ranking.to_dict(),
                    }
                    self._apply("stop", payload, ranking)
                    self._log("stop", payload)
            if self.phase == "comparing" and self.ranking.stop_reason == "all ruled out":
                keys = sorted({label_key(c.id) for c in self.ranking.candidates})
                self._decide("back", {"exclude": keys, "reason": "all ruled out"})
                continue
            if self.phase == "comparing" and self.ranking.stopped:
                self._decide("decided", {"reason": self.ranking.stop_reason})
            return

    def _decide(self, kind: str, payload: dict) -> None:
        """An automatic decision: applied and logged like an action (a replay applies it from the log)."""
        self._apply(kind, payload)
        self._log(kind, payload)

    def _apply(self, kind: str, payload: dict, ranking=None) -> None:
        """Change the state for one log entry (live or replayed); no logging, no automatic decisions.

        ``ranking``: for a live 'stop', the RankingSession its payload was saved from (a replay rebuilds it
        from the payload; building it twice would fit the ranker twice)."""
        if kind == "undo":
            self._undo_step()
            return
        self._applied.append((kind, payload))
        if kind == "answer":
            question = question_index(self.domain, payload)
            if question is not None:
                self.conversation.answer(question, payload.get("option"), payload.get("answer", "option"))
            self._override_stop = False
        elif kind == "words":
            if self.phase != "clarifying":
                self._leave_comparing()
            self.conversation.add_words(payload["text"])
            self.query = self.conversation.query
            self._override_stop = False
        elif kind == "skip":
            self.conversation.force_stop()
            self.stop_reason = "user"
        elif kind == "stop":
            from assistant.ranking import RankingSession

            self.conversation.force_stop()
            self.ranking = ranking if ranking is not None else RankingSession.from_dict(payload["ranking"])
            self.stop_reason = payload.get("reason", "confident")
            self.ruled_out_labels = tuple(payload.get("ruled_out", ()))
            self.phase = "comparing"
            self._pending_question = None
        elif self._apply_ending(kind, payload):
            pass
        elif kind in ("more", "back"):
            exclude_labels(self.conversation, payload.get("exclude", ()))
            self._leave_comparing()
            self._override_stop = True
        elif kind == "compare":
            self.ranking.answer(payload["preferred"])
        elif kind in ("decided", "done"):
            self.phase = "decided"
            self.decided_reason = payload.get("reason", "user")
        elif kind in ("accept", "choose"):
            self.final = answer_from_ranking(
                self.ranking, self.conversation, self.domain, payload.get("candidate") if kind == "choose" else None
            )
            self.phase = "finished"
        elif kind == "reject":
            self.rejected = answer_from_ranking(self.ranking, self.conversation, self.domain, payload.get("candidate"))
            self.rejection_reason = payload.get("reason", "")
            self.phase = "rejected"
        elif kind == "exhausted":
            self.ranking, self.rejected, self.phase = None, None, "rejected"
        elif kind == "give_up":
            self.phase = "failed"
        else:
            raise SessionStateError(f"unknown session log entry {kind!r}")

    def _undo_step(self) -> None:
        """Rebuild the state from every entry before the last action of the person's (replayed as a resume
        replays them, without taking new decisions: those that followed the earlier actions are entries too)."""
        last = max((i for i, (kind, _) in enumerate(self._applied) if kind in USER_ACTIONS), default=None)
        if last is None:
            raise SessionStateError("there is nothing to undo yet")
        entries = self._applied[:last]
        self._reset()
        for kind, payload in entries:
            self._apply(kind, payload)

    def _reset(self) -> None:
        """The state right after the query (as typed: words added later are entries too)."""
        log_prior, query, understood = self._origin
        self.conversation = Conversation(
            self.conversation.clarifier, log_prior, query, np.random.default_rng(self.config.seed), understood
        )
        self.query = query
        self.ranking = None
        self.phase = "clarifying"
        self.stop_reason = self.decided_reason = None
        self.final = self.rejected = None
        self.rejection_reason = ""
        self.ruled_out_labels = ()
        self._pending_question = None
        self._override_stop = self.handed_off = False
        self._applied = []

    def _leave_comparing(self) -> None:
        self.ranking = None
        self.stop_reason = self.decided_reason = None
        self.rejected = None
        self.phase = "clarifying"
        self.conversation.stopped = False

    def _shortlist_ranking(self):
        """The comparison phase for the labels the clarifier still considers (None: nothing left to compare)."""
        ranking, self.ruled_out_labels = comparison_phase(
            self.conversation, self.query, self.registry.text_encoder, self.config
        )
        return ranking

    def _log(self, kind: str, payload: dict) -> None:
        final = self.final.label_key if self.final is not None else None
        self.log.append(self.id, kind, payload, self.status, final)
