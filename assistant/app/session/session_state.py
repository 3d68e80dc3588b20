"""The state of a conversation that its log entries build, and the session's own decisions.

``SessionState`` is what a ``Session`` (``assistant.app.session.session``) is at one moment: the clarifier's
``Conversation``, the ranking session while comparing, the phase, the answer proposed, accepted or rejected.
``apply`` changes it for one log entry (a typed event, ``assistant.app.session.events``, whose ``apply_to`` says
what it changes), live or replayed, and nothing else; ``decide`` takes
the decisions that follow a person's action (the next question, or stop and compare, or propose an answer,
or go back to the questions when every candidate was ruled out, or "nothing fits") and returns them as
events for the session to log. Replaying the entries of a log from the query rebuilds the state exactly:
that is how a session is resumed, and how an undo is taken back.

It writes nothing: the log is the ``Session``'s.
"""

from __future__ import annotations

import numpy as np

from assistant.app.session.comparison import (
    answer_from_ranking,
    best_first,
    comparison_entry,
    comparison_session,
    display_title,
    rebuild_comparisons,
)
from assistant.app.session.events import (
    Answer,
    Back,
    Compare,
    Decided,
    NothingLeft,
    OutOfScope,
    Reject,
    SessionEvent,
    Stop,
)
from assistant.app.session.phases import Phase, ProposalReason
from assistant.app.session.rejection import answer_shares, read_rejection_note, reject_answer
from assistant.app.session.session_records import (
    USER_ACTIONS,
    FinalAnswer,
    OutOfScopeView,
    QuestionView,
    SessionConfig,
    explain_stop,
    out_of_scope_view,
)
from assistant.app.session.way_back import named_after_no, nothing_likely, nothing_likely_view
from assistant.clarification.answer_list import ANSWER_LIST
from assistant.clarification.clarifier import Clarifier, Conversation
from assistant.clarification.comparison_plan import plan_comparisons
from assistant.clarification.explanation import QuestionExplanation, explain
from assistant.clarification.records import ShortlistItem, StopReason
from assistant.errors import SessionStateError
from assistant.ranking import Candidate, RankingSession, RankingStopReason
from assistant.store import Domain, EntryKind, SessionStatus
from assistant.text.encoder import TextEncoder


class SessionState:
    """See the module docstring. ``clarifier``: the assistant the conversation runs on; ``text_encoder``
    embeds the compared answers."""

    def __init__(
        self, clarifier: Clarifier, text_encoder: TextEncoder, query: str, config: SessionConfig, title: str
    ) -> None:
        self.config = config
        self.text_encoder = text_encoder
        self.title = title  # the domain's title, for the out-of-scope ending's message
        self.conversation: Conversation = clarifier.start(query, np.random.default_rng(config.seed))
        self.query = self.conversation.query
        # the conversation as the query left it: replays start from here
        self._origin = (self.conversation.belief.given_prior.copy(), self.query, list(self.conversation.understood))
        self._reset()

    def _reset(self) -> None:
        """The state right after the query (as typed: words added later are entries too)."""
        log_prior, query, understood = self._origin
        clarifier = self.conversation.clarifier
        self.conversation = Conversation(
            clarifier, log_prior, query, np.random.default_rng(self.config.seed), understood
        )
        self.query = query
        self.ranking: RankingSession | None = None
        self.phase = Phase.CLARIFYING
        self.stop_reason: StopReason | None = None
        self.decided_reason: str | None = None  # why an answer is proposed: the ranker's stop reason, or 'user'
        self.final: FinalAnswer | None = None
        self.rejected: FinalAnswer | None = None
        self.rejection_reason = ""
        self.rejected_answers: set[str] = set()  # candidate ids the person rejected (never proposed again)
        self._since_no: int | None = None  # questions answered since a "no" (a rejection, "none of these")
        self._name_next = False  # after a rejection: the likeliest entries left are offered by name first
        self._nothing_likely = False  # the "nothing fits" ending came after a "no" (``way_back``)
        self.ruled_out_labels: tuple[str, ...] = ()  # shortlisted labels the answers ruled out (not compared)
        self.handed_off = False
        self._pending_question: int | None = None
        self._override_stop = False
        self._applied: list[SessionEvent] = []  # every entry applied so far, undo resolved

    # ---- what the views render -------------------------------------------------------------------------
    @property
    def domain(self) -> Domain:
        return self.conversation.clarifier.domain

    @property
    def status(self) -> SessionStatus:
        return self.phase.status

    @property
    def question(self) -> QuestionView | None:
        """The pending question (None outside the clarifying phase)."""
        if self.phase != Phase.CLARIFYING or self._pending_question is None:
            return None
        return QuestionView.of(self.conversation, self._pending_question)

    def top_labels(self, k: int = 10) -> list[ShortlistItem]:
        """The k most likely labels now, most likely first."""
        return self.conversation.shortlist(k)

    def explain(self) -> QuestionExplanation | None:
        """Why the pending question: its information gain and what each answer would change."""
        view = self.question
        return None if view is None else explain(self.conversation, view.index)

    @property
    def pair(self) -> tuple[Candidate, Candidate] | None:
        """(left, right) candidates pending comparison, or None."""
        if self.phase != Phase.COMPARING or self.ranking is None:
            return None
        pending = self.ranking.next_pair()
        if pending is None:
            return None
        return self.ranking.candidates[pending[0]], self.ranking.candidates[pending[1]]

    def candidate_title(self, candidate: Candidate) -> str:
        """The title a person reads above a compared candidate ("answer 2 of “How do I ...?”")."""
        label = self.domain.labels[self.domain.label_index(candidate.label_key)] if candidate.label_key else None
        if label is None:
            return candidate.title
        return display_title(candidate, [ShortlistItem(0, label, 0.0)])

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
        if self.ranking is None:
            return None
        return answer_from_ranking(self.ranking, self.conversation, self.domain, self._best_not_rejected())

    def _best_not_rejected(self) -> str | None:
        """The ranker's best answer that the person did not reject (None: its own best, or none is left)."""
        assert self.ranking is not None
        if not self.rejected_answers:
            return None
        ids = [str(self.ranking.candidates[i].id) for i in self.ranking.ranking()]
        return next((i for i in ids if i not in self.rejected_answers), None)

    def answer_chance(self) -> dict[str, float]:
        """{candidate id: P(its entry) x P(this answer | entry)} of the compared answers, over the in-scope
        belief (``assistant.app.session.rejection.answer_shares``)."""
        if self.ranking is None:
            return {}
        keys = [c.label_key for c in self.ranking.candidates]
        positions = self.conversation.positions([self.domain.label_index(k) for k in keys])
        probs = self.conversation.probs[positions]
        shares = answer_shares(self.ranking, self.rejected_answers)
        return {str(c.id): float(p * s) for c, p, s in zip(self.ranking.candidates, probs, shares)}

    @property
    def alternatives(self) -> list[Candidate]:
        """After a rejection: the other compared candidates, best first (pick one with ``choose``), without those
        the person called not relevant."""
        if self.phase != Phase.REJECTED or self.ranking is None:
            return []
        rejected = self.rejected.candidate_id if self.rejected is not None else None
        ruled_out = self.ranking.ruled_out  # "neither is relevant": the person said so, never offered again
        chance = self.answer_chance()
        # the likeliest first, by the one belief, as the table lists them (``best_first``): the next likeliest
        # answers can be taken at once (issue 39)
        order = best_first(self.ranking, [chance[str(c.id)] for c in self.ranking.candidates])
        return [
            self.ranking.candidates[i]
            for i in order
            if self.ranking.candidates[i].id != rejected
            and str(self.ranking.candidates[i].id) not in self.rejected_answers
            and not ruled_out[i]
        ]

    @property
    def stop_explanation(self) -> str | None:
        """Why the assistant stopped asking, in words (None while it asks)."""
        if self.phase == Phase.CLARIFYING or self.stop_reason is None:
            return None
        return explain_stop(self.stop_reason, self.conversation, self.config.shortlist_size)

    @property
    def nothing_fits(self) -> OutOfScopeView | None:
        """The out-of-scope ending's view (None unless the session concluded that nothing fits)."""
        if self.phase != Phase.OUT_OF_SCOPE:
            return None
        view = out_of_scope_view(self.conversation, self.title, self.config.shortlist_size)
        return nothing_likely_view(view) if self._nothing_likely else view

    @property
    def can_ask_more(self) -> bool:
        """Whether more questions can be asked now: the agent stopped and no comparison was made yet, or the
        person rejected the proposed answer."""
        if self.phase == Phase.REJECTED:
            return not self.conversation.excluded.all()
        return self.phase in (Phase.COMPARING, Phase.DECIDED) and not self.comparisons

    @property
    def can_add_words(self) -> bool:
        """Whether words can be added now: while clarifying, or stopped before the first comparison."""
        return self.phase in (Phase.CLARIFYING, Phase.OUT_OF_SCOPE) or self.can_ask_more

    @property
    def can_undo(self) -> bool:
        """Whether there is an action of the person's to take back (in every phase)."""
        return any(event.kind in USER_ACTIONS for event in self._applied)

    # ---- applying entries (each event's ``apply_to`` says what it changes; these are the changes) -----------
    def apply(self, event: SessionEvent) -> None:
        """Change the state for one log entry (live or replayed); no logging, no decisions."""
        self._pending_question = None  # every entry changes what to ask next
        if event.kind != EntryKind.UNDO:  # an undo takes back an entry: it is not one to take back itself
            self._applied.append(event.as_logged())
        event.apply_to(self)

    def replay(self, events: list[SessionEvent]) -> None:
        """The state after ``events`` (undo resolved), from the query on."""
        self._reset()
        for event in events:
            self.apply(event)

    def undo_last_action(self) -> None:
        """Rebuild the state from every entry before the last action of the person's (replayed as a resume
        replays them, without taking new decisions: those that followed the earlier actions are entries too)."""
        last = max((i for i, event in enumerate(self._applied) if event.kind in USER_ACTIONS), default=None)
        if last is None:
            raise SessionStateError("there is nothing to undo yet")
        self.replay(self._applied[:last])

    def apply_answer(self, answer: Answer) -> None:
        if answer.listed is not None:  # "Which of these is it?" over the labels it names
            indices = [self.domain.label_index(key) for key in answer.listed]
            self.conversation.answer_listed(indices, answer.option, answer.answer)
        elif (question := question_index(self.domain, answer)) is not None:
            self.conversation.answer(question, answer.option, answer.answer)
        self._override_stop, self._name_next = False, False
        if self._since_no is not None:
            self._since_no += 1
        elif answer.listed is not None and answer.option == len(answer.listed):  # "none of these" is a no too
            self._since_no = 0

    def add_words_to_query(self, words: str) -> None:
        if self.phase != Phase.CLARIFYING:
            self.leave_comparing()
        self.conversation.add_words(words)
        self.query = self.conversation.query
        self._override_stop = False

    def stop_asking(self, reason: StopReason) -> None:
        self.conversation.force_stop()
        self.stop_reason = reason

    def back_to_questions(self, exclude: tuple[str, ...]) -> None:
        """More questions (the person's 'more', or every candidate ruled out), without the labels ``exclude``."""
        if self.phase == Phase.REJECTED:  # 'more' after a rejection: the way back starts (``way_back``)
            self._since_no, self._name_next = 0, True
        self.conversation.exclude_labels(exclude)
        self.leave_comparing()
        self._override_stop = True

    def propose(self, reason: str) -> None:
        self.phase = Phase.DECIDED
        self.decided_reason = reason

    def finish(self, candidate: str | None) -> None:
        """The proposed answer is accepted (``candidate`` None), or another compared one is taken."""
        self.final = answer_from_ranking(self._need_ranking(), self.conversation, self.domain, candidate)
        self.phase = Phase.FINISHED

    def reject_proposal(self, reject: Reject) -> None:
        ranking = self._need_ranking()
        self.rejected = answer_from_ranking(ranking, self.conversation, self.domain, reject.candidate)
        self.rejection_reason = reject.reason
        self.phase = Phase.REJECTED
        # the person's "no" is evidence now, in the one belief every screen reads (issue 32): about this answer,
        # and a little about its entry when the entry has other answers on offer (issue 40); otherwise the entry
        # is dismissed (its share held at most at DISMISS_ERROR) but stays among the compared until the person
        # asks for more questions without it ('more' then only takes it off the shortlist). The note said with
        # it is read as words (what is wanted, what is not).
        rejected = self.rejected
        reject_answer(self.conversation, ranking, rejected.label_key, rejected.candidate_id, self.rejected_answers)
        read_rejection_note(self.conversation, self.rejection_reason)

    def compare(self, comparison: Compare) -> None:
        """One comparison; "neither is relevant" between the answers of two entries dismisses both entries
        in the belief too (issue 32: their share drops to the stated error rate and stays there; they stay
        in this comparison, ruled out, and leave the shortlist when the questions resume)."""
        ranking = self._need_ranking()
        ranking.answer_pair(comparison.left, comparison.right, comparison.preferred)
        label_of = {str(c.id): c.label_key for c in ranking.candidates}
        if comparison.preferred == "neither" and len(set(label_of.values())) > 1:
            keys = [label_of.get(side) for side in (comparison.left, comparison.right)]
            self.conversation.exclude_labels(keys, leave_shortlist=False)

    def _need_ranking(self) -> RankingSession:
        if self.ranking is None:
            raise SessionStateError(f"no answers are being compared (the session is {self.phase})")
        return self.ranking

    def start_comparing(self, stop: Stop, ranking: RankingSession | None) -> None:
        """``ranking``: for a live 'stop', the ranking session it describes (a replay builds it from the entry)."""
        if stop.reason not in set(StopReason):
            raise SessionStateError(
                f"the log's 'stop' entry gives the reason {stop.reason!r}, which this Clarify does not know: the "
                "session is replayed without it"
            )
        self.conversation.force_stop()
        if ranking is None:
            ranking = rebuild_comparisons(stop, self.domain, self.query, self.text_encoder, self.config)
        if ranking is None:
            raise SessionStateError("none of the labels this session compared is left in the domain")
        self.ranking = ranking
        self.stop_reason = StopReason(stop.reason)
        self.ruled_out_labels = stop.ruled_out
        self.phase = Phase.COMPARING
        self._pending_question = None

    def nothing_to_compare(self) -> None:
        self.ranking, self.rejected, self.phase = None, None, Phase.REJECTED

    def end_without_answer(self) -> None:
        self.phase = Phase.FAILED

    def conclude_out_of_scope(self, after_no: bool = False) -> None:
        self.phase, self.stop_reason = Phase.OUT_OF_SCOPE, StopReason.OUT_OF_SCOPE
        self.handed_off = False
        self._nothing_likely = after_no

    def note_handed_off(self) -> None:
        self.handed_off = True
        if self.phase == Phase.REJECTED:  # handed on instead of giving up: ends without an answer
            self.phase = Phase.FAILED

    def leave_comparing(self) -> None:
        self.ranking = None
        self.stop_reason = self.decided_reason = None
        self.rejected = None
        self.phase = Phase.CLARIFYING
        self.conversation.stopped = False

    # ---- the session's own decisions ----------------------------------------------------------------------
    def decide(self) -> list[SessionEvent]:
        """The decisions that follow an action, applied and returned as entries to log: the next question
        (not an entry), or stop -> compare, or ranker done, or (every candidate ruled out) back to the
        questions without them, or nothing fits."""
        decided: list[SessionEvent] = []

        def take(event: SessionEvent) -> None:
            self.apply(event)
            decided.append(event)

        for _ in range(3):  # back to the questions at most once per action, then a new shortlist
            if self.phase == Phase.CLARIFYING:
                if self._since_no is not None and nothing_likely(self.conversation, self._since_no):
                    probability = self.conversation.out_of_scope_probability() or 0.0
                    take(OutOfScope(StopReason.OUT_OF_SCOPE, round(probability, 4), after_no=True))
                    return decided
                named = named_after_no(self.conversation) if self._name_next else None
                self._name_next = False
                if self._pending_question is None and named is not None:  # the likeliest left, by name
                    self.conversation.pending_list, self._pending_question = named, ANSWER_LIST
                    self._override_stop = False
                    return decided
                if self._pending_question is None:
                    self._pending_question = self.conversation.next_question(override_stop=self._override_stop)
                    self._override_stop = False
                if self._pending_question is not None:
                    return decided
                if self.conversation.stop_reason == StopReason.OUT_OF_SCOPE:
                    probability = self.conversation.out_of_scope_probability() or 0.0
                    take(OutOfScope(StopReason.OUT_OF_SCOPE, round(probability, 4)))
                    return decided
                reason = self.stop_reason or self.conversation.stop_reason or StopReason.CONFIDENT
                plan = plan_comparisons(self.conversation, self.config.shortlist_size, reason == StopReason.CLOSEST)
                if not plan.items:  # every label is excluded: nothing is left to compare
                    take(NothingLeft())
                    return decided
                ranking = comparison_session(plan.items, self.query, self.text_encoder, self.config)
                coverage, top = round(self.conversation.coverage(), 4), round(float(self.conversation.probs.max()), 4)
                take(comparison_entry(plan, ranking, reason, coverage, top))
                if len(plan.items) == 1 and not ranking.stopped:  # one label left: its best answer first
                    take(Decided(ProposalReason.BEST_ANSWER))
                    return decided
            comparing = self.ranking if self.phase == Phase.COMPARING else None  # the comparing phase has one
            if comparing is not None and comparing.stop_reason == RankingStopReason.ALL_RULED_OUT:
                keys = sorted({c.label_key for c in comparing.candidates})
                take(Back(tuple(keys), RankingStopReason.ALL_RULED_OUT))
                continue
            if comparing is not None and comparing.stop_reason is not None:  # the ranker stopped
                take(Decided(comparing.stop_reason))
            return decided
        return decided


def question_index(domain: Domain, answer: Answer) -> int | None:
    """The question a logged answer refers to: by its tag (logged since issue 26), else by its index, or by
    its text when the domain's questions changed since (an import); None when it no longer exists (hidden)."""
    index, text = answer.question, answer.text
    questions = domain.questions
    if answer.tag is not None:
        return next((i for i, q in enumerate(questions) if q.tag == answer.tag), None)
    if text is None or (0 <= index < len(questions) and questions[index].text == text):
        return index
    return next((i for i, q in enumerate(questions) if q.text == text), None)
