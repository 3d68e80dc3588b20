"""One conversation end to end: query -> clarifying questions -> shortlist -> pairwise comparisons -> answer.

A ``Session`` drives the clarifier (assistant.clarification.clarifier) and then the pairwise ranker
(assistant.ranking.RankingSession) and logs every user action to the domain's SQLite file as it happens
(``assistant.store.SessionLog``), so that a crash loses at most the action in progress and an
interrupted session can be resumed by replaying its log. The log is append-only: an undo is an action
too, so the transcript keeps what really happened.

Phases: ``clarifying`` (a question is pending) -> ``comparing`` (a pair is pending) -> ``decided`` (the
ranker has a final answer for the user to accept or reject) -> ``finished`` (accepted) or ``failed``
(rejected). ``undo`` works in every phase before the end, stepping back across phases when needed.

The GUI and the terminal render a session and send it the user's actions; neither holds logic.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Literal

import numpy as np

from assistant.app.registry import ModelRegistry, check_pace
from assistant.clarification.clarifier import AnswerKind, Conversation, QueryChange, ShortlistItem
from assistant.errors import ConfigError, SessionStateError
from assistant.store import KnowledgeBase, SessionLog, SessionSummary


def open_session_log(domain: str) -> KnowledgeBase:
    """A connection to ``domain``'s knowledge base for this thread's sessions (SQLite connections belong to the
    thread that opened them); close it when done."""
    return KnowledgeBase.open(domain)


def list_sessions(domain: str, status: str | None = None) -> list[SessionSummary]:
    """The saved sessions of ``domain``, newest first (optionally only one status)."""
    with KnowledgeBase.open(domain) as kb:
        return SessionLog(kb).list(status)


Phase = Literal["clarifying", "comparing", "decided", "finished", "failed"]


@dataclass(frozen=True)
class SessionConfig:
    """``shortlist_size`` labels go to the comparison phase; the ranker stops at ``ranking_threshold``
    confidence or after ``ranking_budget`` comparisons. ``text_prior`` is the model registry's, recorded when
    the session starts so that it is resumed with the same one. ``pace``: "quick" or "thorough" (the cost of
    a question, see ``assistant.app.registry.PACES``; None: the domain's default, recorded at the start)."""

    candidates: str = "all"
    shortlist_size: int = 5
    ranking_model: str = "gppl"
    acquisition: str = "imp"
    ranking_budget: int = 8
    ranking_threshold: float = 0.9
    seed: int = 0
    text_prior: str = "sru"
    pace: str | None = None

    def __post_init__(self) -> None:
        if self.shortlist_size < 1:
            raise ConfigError(f"shortlist_size must be at least 1, got {self.shortlist_size}")
        if self.pace is not None:
            check_pace(self.pace)


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
    """The answer the session arrived at: the label, the chosen candidate text and the clarifier's belief."""

    label_key: str
    label_name: str
    text: str
    probability: float
    comparisons: int


class Session:
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
        self.ranking = None  # assistant.ranking.RankingSession while comparing
        self.phase: Phase = "clarifying"
        self.stop_reason: str | None = None
        self.final: FinalAnswer | None = None
        self._pending_question: int | None = None
        self._override_stop = False

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
        record = SessionLog(kb).record(session_id)
        if record is None:
            raise SessionStateError(f"there is no session {session_id} in domain {registry.name!r}")
        config = SessionConfig(**record.config)
        if config.text_prior != registry.text_prior:
            raise SessionStateError(
                f"session {session_id} was started with the {config.text_prior!r} text prior, this assistant uses "
                f"{registry.text_prior!r}: resume it with the same prior (clarify ask {registry.name} --resume "
                f"{session_id} --prior {config.text_prior})"
            )
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
        q = self.conversation.question(self._pending_question)
        return QuestionView(
            self._pending_question,
            q.text,
            q.kind,
            q.options,
            self.conversation.turn + 1,
            self.domain.allows_not_visible(self._pending_question),
        )

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
        return None if self.ranking is None else self._answer_from_ranking()

    @property
    def status(self) -> str:
        return {"finished": "finished", "failed": "failed"}.get(self.phase, "active")

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
        size = self.config.shortlist_size
        covered = self.conversation.coverage()
        top = float(self.conversation.probs.max())
        reasons = {
            "confident": f"it is {covered:.0%} sure the answer is among the {size} shortlisted (best guess {top:.0%})",
            "no_informative_question": "no question left would tell the shortlisted answers apart",
            "no_question": "it has asked every question it has",
            "max_turns": f"it reached its limit of {self.conversation.clarifier.config.max_turns} questions",
            "user": "you chose to skip to the answers",
        }
        return "Stopped asking: " + reasons.get(self.stop_reason, self.stop_reason) + "."

    def skip_to_shortlist(self) -> None:
        """Stop asking and compare the shortlist now."""
        self._need("clarifying")
        self._act("skip", {})

    def ask_more(self) -> None:
        """Ask another question although the agent stopped (from the comparisons, before any comparison)."""
        if not self.can_ask_more:
            raise SessionStateError("more questions can be asked only before the first comparison")
        self._act("more", {})

    def prefer(self, choice: str) -> None:
        """Answer the pending comparison: 'left', 'right' or 'tie'."""
        pair = self.pair if self.phase == "comparing" else None
        if pair is None:
            raise SessionStateError(f"no comparison is pending (the session is {self.phase})")
        self._act("compare", {"left": pair[0].id, "right": pair[1].id, "preferred": choice})

    def accept(self) -> FinalAnswer:
        """Accept the proposed answer ("done": allowed while comparing too)."""
        if self.phase not in ("comparing", "decided"):
            raise SessionStateError(f"there is no answer to accept while {self.phase}")
        answer = self._answer_from_ranking()
        self._act("accept", {"label": answer.label_key, "text": answer.text})
        return answer

    def reject(self, reason: str = "") -> None:
        """The user rejects the proposed answer: the session is logged as a failure."""
        if self.phase in ("finished", "failed"):
            raise SessionStateError(f"the session is already {self.phase}")
        self._act("reject", {"reason": reason})

    @property
    def can_ask_more(self) -> bool:
        """Whether ``ask_more`` is allowed now: the agent stopped and no comparison was made yet."""
        return self.phase in ("comparing", "decided") and not self.comparisons

    @property
    def can_add_words(self) -> bool:
        """Whether ``add_words`` is allowed now: while clarifying, or stopped before the first comparison."""
        return self.phase == "clarifying" or self.can_ask_more

    @property
    def can_undo(self) -> bool:
        """Whether ``undo`` has something to take back now."""
        if self.phase in ("finished", "failed"):
            return False
        if self.phase == "clarifying":
            return self.conversation.can_undo
        return bool(self.comparisons or self.conversation.can_undo or self.stop_reason == "user")

    def undo(self) -> None:
        """Take back the last answer or comparison, stepping back across phases (not after the end)."""
        if self.phase in ("finished", "failed"):
            raise SessionStateError(f"the session is {self.phase}; start a new one instead")
        if not self.can_undo:
            if self.phase == "clarifying":
                raise SessionStateError("there is nothing to undo yet")
            raise SessionStateError("there is nothing to undo: ask for more questions instead")
        self._act("undo", {"phase": self.phase})

    # ---- the state machine ----------------------------------------------------------------------------------
    def _need(self, phase: str):
        if self.phase != phase:
            raise SessionStateError(f"this action needs the {phase} phase; the session is {self.phase}")
        if phase == "clarifying" and self.question is None:
            raise SessionStateError("no question is pending")
        return self.question

    def _act(self, kind: str, payload: dict) -> None:
        """A live user action: apply it, log it, then take and log the automatic decisions that follow."""
        self._apply(kind, payload)
        self._log(kind, payload)
        self._advance()

    def _advance(self) -> None:
        """Automatic decisions after an action: the next question, or stop -> compare, or ranker done."""
        if self.phase == "clarifying":
            self._pending_question = self.conversation.next_question(override_stop=self._override_stop)
            self._override_stop = False
            if self._pending_question is None:
                reason = self.stop_reason or self.conversation.stop_reason or "confident"
                ranking = self._shortlist_ranking()
                payload = {
                    "reason": reason,
                    "coverage": round(self.conversation.coverage(), 4),
                    "top": round(float(self.conversation.probs.max()), 4),
                    "ranking": ranking.to_dict(),
                }
                self._apply("stop", payload, ranking)
                self._log("stop", payload)
        if self.phase == "comparing" and self.ranking.stopped:
            payload = {"reason": self.ranking.stop_reason}
            self._apply("decided", payload)
            self._log("decided", payload)

    def _apply(self, kind: str, payload: dict, ranking=None) -> None:
        """Change the state for one log entry (live or replayed); no logging, no automatic decisions.

        ``ranking``: for a live 'stop', the RankingSession its payload was saved from (a replay rebuilds it
        from the payload; building it twice would fit the ranker twice)."""
        if kind == "answer":
            self.conversation.answer(payload["question"], payload.get("option"), payload.get("answer", "option"))
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
            self.phase = "comparing"
            self._pending_question = None
        elif kind == "more":
            self._leave_comparing()
            self._override_stop = True
        elif kind == "compare":
            self.ranking.answer(payload["preferred"])
        elif kind == "decided":
            self.phase = "decided"
        elif kind == "accept":
            self.final = self._answer_from_ranking()
            self.phase = "finished"
        elif kind == "reject":
            self.final = self.proposed
            self.phase = "failed"
        elif kind == "undo":
            self._undo_step()
        else:
            raise SessionStateError(f"unknown session log entry {kind!r}")

    def _undo_step(self) -> None:
        if self.phase in ("decided", "comparing") and self.ranking.history:
            self.phase = "comparing"
            self.ranking.undo()
        elif self.phase in ("decided", "comparing"):
            # no comparison yet (the ranker may have been sure at once): step back to the questions
            reason = self.stop_reason
            self._leave_comparing()
            if reason == "user":
                self._override_stop = True  # the user skipped: show the question they skipped again
            else:
                self._undo_conversation()
        else:
            self._undo_conversation()

    def _undo_conversation(self) -> None:
        if isinstance(self.conversation.undo(), QueryChange):
            self.query = self.conversation.query

    def _leave_comparing(self) -> None:
        self.ranking = None
        self.stop_reason = None
        self.phase = "clarifying"
        self.conversation.stopped = False

    def _shortlist_ranking(self):
        from assistant.ranking import RankingSession, candidates_from_labels

        items = self.conversation.shortlist(self.config.shortlist_size)
        candidates = candidates_from_labels(
            [it.label for it in items], [it.probability for it in items], self.query, self.registry.text_encoder
        )
        return RankingSession(
            candidates,
            model=self.config.ranking_model,
            acquisition=self.config.acquisition,
            seed=self.config.seed,
            threshold=self.config.ranking_threshold,
            budget=self.config.ranking_budget,
        )

    def _answer_from_ranking(self) -> FinalAnswer:
        best = self.ranking.best()
        key = best.id.split("#", 1)[0]
        index = self.domain.label_index(key)
        position = int(np.searchsorted(self.conversation.clarifier.candidates, index))
        return FinalAnswer(
            key, self.domain.labels[index].name, best.text, float(self.conversation.probs[position]), self.comparisons
        )

    def _log(self, kind: str, payload: dict) -> None:
        final = self.final.label_key if self.final is not None else None
        self.log.append(self.id, kind, payload, self.status, final)
