"""One view of a session (issues 31 and 32): every probability a person reads, computed once from the one belief.

The belief is over the entries and "nothing here fits": an entry's share is P(in scope) x P(entry | in scope)
(the out-of-scope hypothesis, ``Conversation.out_of_scope_probability``). An answer's chance of being the
right one is P(entry) x P(this answer | entry, comparisons), the second factor from the ranker's chances
among that entry's compared answers (1 for an entry that brought one answer). "How sure" always means that
chance; the ranker's own number, the chance that an answer is the best *of those compared*, is a different
quantity and is only ever called that. The stop explanation counts the rows a person is shown.

``SessionView`` is frozen: the GUI's snapshot (gui/snapshot.py), the terminal and ``--json-lines``
(assistant/cli/ask.py) all render this one object, built once per action (``session_view``). It carries what
every face shows besides the numbers (the question, the pair's titles and texts, the answers on offer after a
rejection, the out-of-scope ending, the answers to summarize), and ``to_dict()`` is the ``--json-lines`` event
of what the person sees now (``shortlist_dict()`` the shortlist's): docs/json-lines.md is their schema.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from assistant.app.session.comparison import best_first
from assistant.app.session.numbers import percent
from assistant.app.session.phases import Phase, ProposalReason
from assistant.app.session.session_records import FinalAnswer, OutOfScopeView, QuestionView, explain_stop
from assistant.app.session.session_state import SessionState
from assistant.clarification.conformal import promised_shortlist
from assistant.clarification.records import StopReason
from assistant.ranking import Candidate
from assistant.store import SessionStatus

if TYPE_CHECKING:
    from assistant.app.session.session import Session

BELIEF_ROWS = 10
# how far below its promise the first N rows may add up and the promise still be shown beside them
PROMISE_SLACK = 0.1


@dataclass(frozen=True)
class EntryChance:
    """One entry of the belief: its share of the whole belief ("nothing fits" included)."""

    rank: int
    key: str
    name: str
    probability: float

    @property
    def percent(self) -> str:
        return percent(self.probability)

    def to_dict(self) -> dict[str, Any]:
        return {"rank": self.rank, "label": self.name, "key": self.key, "probability": event_number(self.probability)}


@dataclass(frozen=True)
class AnswerChance:
    """A compared answer in the ranker's order: ``chance`` that it is the right answer (the one belief),
    ``best_of_compared``: the ranker's chance that it is the best of the compared (None before any
    comparison), ``best``: the ★ (``_starred``: never a rejected answer), whether the person called it not relevant."""

    rank: int
    id: str
    label_key: str
    chance: float
    best_of_compared: float | None
    best: bool
    ruled_out: bool
    title: str  # what a person reads above it ("answer 2 of “How do I ...?”")
    text: str


@dataclass(frozen=True)
class CandidateView:
    """A compared candidate as a person reads it: ``title`` (its label's name, or "answer 2 of “name”"), ``text``
    the answer (FAQ) or the label's summary of key attributes (birds)."""

    id: str
    title: str
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "text": self.text}


@dataclass(frozen=True)
class AnswersToSummarize:
    """The proposed FAQ's answers when it has two or more ("Summarize these answers"): its question, the
    person's query and the answer texts."""

    question: str
    query: str
    answers: tuple[str, ...]


@dataclass(frozen=True)
class ProposalView:
    """The proposed (or accepted) answer: its entry's share, its own chance and the ranker's number."""

    label_key: str
    label_name: str
    text: str
    candidate_id: str
    entry: float  # P(entry)
    chance: float  # P(entry) x P(this answer | entry, comparisons)
    best_of_compared: float | None
    answer_number: int | None
    answers: int

    @property
    def sure(self) -> str:
        return f"{percent(self.chance)} sure this is the right answer"


@dataclass(frozen=True)
class SessionView:
    """Every number a person reads about one session at one moment (module docstring)."""

    phase: Phase
    turn: int
    in_scope: float  # 1 - P(nothing here fits)
    nothing_fits: float | None  # P(nothing here fits), None without an out-of-scope model
    entries: tuple[EntryChance, ...]  # the likeliest entries (not dismissed), likeliest first
    answers: tuple[AnswerChance, ...]  # the compared answers, the ranker's order
    compared_mass: float  # the chance that the right answer is among the compared entries
    compared_entries: int
    proposal: ProposalView | None
    best_of_compared: float | None  # the ranker's chance that its current best is the best of the compared
    threshold: float  # the ranker stops once ``best_of_compared`` reaches it
    stop_explanation: str | None
    # the conformal shortlist in words ("very likely (90%) among the first 3": the first N of ``entries`` hold the
    # right entry at the promised rate on held-out queries); None without a fitted one or when N > the rows shown
    promise: str | None
    # what the person sees besides the numbers, and what a face offers next
    session_id: int
    status: SessionStatus
    comparisons: int
    question: QuestionView | None  # the pending question (clarifying)
    pair: tuple[CandidateView, CandidateView] | None  # the pending comparison (comparing)
    alternatives: tuple[CandidateView, ...]  # after a rejection: the other compared answers on offer
    ending: OutOfScopeView | None  # "nothing here fits" (out of scope)
    final: FinalAnswer | None  # the accepted answer
    decided_reason: str | None  # why an answer is proposed ('best_answer': one entry was left)
    can_ask_more: bool
    handed_off: bool
    answers_to_summarize: AnswersToSummarize | None  # once proposed, when the FAQ has several answers

    @property
    def over(self) -> bool:
        """Whether the conversation ended: answered, given up or handed on."""
        return self.phase in (Phase.FINISHED, Phase.FAILED) or (self.phase == Phase.OUT_OF_SCOPE and self.handed_off)

    def percentages(self) -> list[str]:
        """Every percentage this view gives a person (for checking that each screen shows these)."""
        shown = [e.percent for e in self.entries]
        shown += [percent(a.chance) for a in self.answers if not a.ruled_out]
        shown += [percent(a.best_of_compared) for a in self.answers if a.best_of_compared is not None]
        if self.proposal is not None:
            shown.append(percent(self.proposal.chance))
        if self.nothing_fits is not None:
            shown.append(percent(self.nothing_fits))
        return shown

    # ---- the --json-lines events (docs/json-lines.md) -------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The event of what the person sees now: a question, a pair, a proposal, a rejection, "nothing fits",
        or the end of the conversation ("final")."""
        if self.over:
            return self._final_dict()
        if self.phase == Phase.OUT_OF_SCOPE and self.ending is not None:
            ending = self.ending
            return {
                "type": "out_of_scope",
                "message": ending.message,
                "probability": event_number(ending.probability),
                "help_topics": list(ending.help_topics),
                "did_you_mean": [{"label": name, "probability": event_number(p)} for name, p in ending.did_you_mean],
            }
        if self.question is not None:
            question = self.question
            return {
                "type": "question",
                "turn": question.number,
                "text": question.text,
                "options": list(question.options),
                "not_visible": question.allows_not_visible,
            }
        if self.pair is not None:
            return {
                "type": "pair",
                "left": self.pair[0].to_dict(),
                "right": self.pair[1].to_dict(),
                "chance": None if self.proposal is None else event_number(self.proposal.chance),
                "best_of_compared": _event_number(self.best_of_compared),
            }
        if self.phase == Phase.REJECTED:
            others = [c.to_dict() for c in self.alternatives]
            return {"type": "rejected", "alternatives": others, "can_ask_more": self.can_ask_more}
        return self._proposal_dict()

    def shortlist_dict(self) -> dict[str, Any]:
        """The shortlist event: the likeliest entries once the questions stopped, and why they stopped."""
        return {
            "type": "shortlist",
            "turns": self.turn,
            "items": [entry.to_dict() for entry in self.entries],
            "why": self.stop_explanation,
            "nothing_fits": _event_number(self.nothing_fits),
            "promise": self.promise,
        }

    def _proposal_dict(self) -> dict[str, Any]:
        proposal = self.proposal
        assert proposal is not None  # the decided phase always has its proposal
        summarize = self.answers_to_summarize
        return {
            "type": "proposal",
            "label": proposal.label_name,
            "key": proposal.label_key,
            "text": proposal.text,
            "chance": event_number(proposal.chance),
            "probability": event_number(proposal.entry),
            "best_of_compared": _event_number(proposal.best_of_compared),
            "answers": len(summarize.answers) if summarize else 1,
            "answer_number": proposal.answer_number,
            "best_answer": self.decided_reason == ProposalReason.BEST_ANSWER,
        }

    def _final_dict(self) -> dict[str, Any]:
        final = self.final
        return {
            "type": "final",
            "session": self.session_id,
            "status": self.status,
            "label": final.label_name if final else None,
            "key": final.label_key if final else None,
            "text": final.text if final else None,
            "questions": self.turn,
            "comparisons": self.comparisons,
            "handed_off": self.handed_off,
        }


def event_number(probability: float) -> float:
    """A probability for an event: six significant digits, so that a live entry never reads as 0."""
    return float(f"{probability:.6g}")


def _event_number(probability: float | None) -> float | None:
    return None if probability is None else event_number(probability)


def session_view(session: Session, rows: int = BELIEF_ROWS) -> SessionView:
    """The view of ``session`` now (module docstring)."""
    conversation = session.conversation
    nothing_fits = conversation.out_of_scope_probability()
    in_scope = 1.0 - (nothing_fits or 0.0)
    entries = tuple(
        EntryChance(rank + 1, it.label.key, it.label.name, in_scope * it.probability)
        for rank, it in enumerate(conversation.shortlist(rows))
    )
    answers, mass, compared = _answers(session, in_scope)
    proposal = _proposal(session, answers, in_scope)
    comparing = session.phase in (Phase.COMPARING, Phase.DECIDED, Phase.REJECTED, Phase.FINISHED)
    best = session.confidence if comparing and session.comparisons > 0 else None
    return SessionView(
        phase=session.phase,
        turn=conversation.turn,
        in_scope=in_scope,
        nothing_fits=nothing_fits,
        entries=entries,
        answers=answers,
        compared_mass=mass,
        compared_entries=compared,
        proposal=proposal,
        best_of_compared=best,
        threshold=float(session.config.ranking_threshold),
        stop_explanation=_stop_explanation(session, len(answers), compared, mass),
        promise=_promise(session, entries),
        session_id=int(session.id),
        status=session.status,
        comparisons=int(session.comparisons),
        question=session.question,
        pair=None if (pair := session.pair) is None else (_candidate(session, pair[0]), _candidate(session, pair[1])),
        alternatives=tuple(_candidate(session, c) for c in session.alternatives),
        ending=session.nothing_fits,
        final=session.final,
        decided_reason=session.decided_reason,
        can_ask_more=session.can_ask_more,
        handed_off=session.handed_off,
        answers_to_summarize=answers_to_summarize(session),
    )


def _candidate(session: SessionState, candidate: Candidate) -> CandidateView:
    return CandidateView(str(candidate.id), str(session.candidate_title(candidate)), str(candidate.text))


def answers_to_summarize(session: SessionState) -> AnswersToSummarize | None:
    """The proposed (or accepted) FAQ's question, the person's query and its answers when that FAQ has two
    answers or more and an answer was proposed (what "Summarize these answers" summarises), else None."""
    if session.phase not in (Phase.DECIDED, Phase.FINISHED, Phase.FAILED):
        return None
    answer = session.final or session.proposed
    if answer is None:
        return None
    domain = session.domain
    label = domain.labels[domain.label_index(answer.label_key)]
    answers = tuple(a for a in label.answers if a.strip())
    if len(answers) < 2:
        return None
    return AnswersToSummarize(label.text or label.name, session.query, answers)


def _promise(session: SessionState, entries: tuple[EntryChance, ...]) -> str | None:
    """The conformal shortlist's words when it fits in the rows shown and those rows agree with it: the first N
    add up to about the promise (issue 39: "very likely (90%) among the first 8" over rows adding up to 42%:
    two truths on one screen; the belief's own percentages then speak alone)."""
    if session.phase == Phase.OUT_OF_SCOPE:  # "nothing fits" speaks for itself
        return None
    promised = promised_shortlist(session.conversation)
    n = 0 if promised is None else len(promised[0])
    if promised is None or not 0 < n <= len(entries):
        return None
    prior = getattr(session.conversation.clarifier, "prior", None)  # a promise comes from its prior's shortlist
    coverage = float(getattr(getattr(prior, "shortlist", None), "coverage", 0.0))
    if sum(e.probability for e in entries[:n]) < coverage - PROMISE_SLACK:
        return None
    return promised[1]


def _answers(session: SessionState, in_scope: float) -> tuple[tuple[AnswerChance, ...], float, int]:
    """The compared answers with their chances, the belief's mass on the compared entries, their number."""
    ranking = session.ranking
    if ranking is None:
        return (), 0.0, 0
    conversation, domain = session.conversation, session.domain
    keys = [c.label_key for c in ranking.candidates]
    unique = sorted(set(keys))
    positions = conversation.positions([domain.label_index(k) for k in unique])
    probs = conversation.probs
    entry = {k: in_scope * float(probs[int(p)]) for k, p in zip(unique, positions)}
    chances = ranking.chances()
    chance = session.answer_chance()  # P(entry) x P(answer | entry): a rejected answer's share is down
    compared = session.comparisons > 0
    starred = _starred(session)
    ruled_out = ranking.ruled_out
    order = best_first(ranking, [chance[str(c.id)] for c in ranking.candidates])
    rows = []
    for rank, i in enumerate(order):
        rows.append(
            AnswerChance(
                rank + 1,
                str(ranking.candidates[i].id),
                keys[i],
                in_scope * chance[str(ranking.candidates[i].id)],
                float(chances[i]) if compared else None,
                str(ranking.candidates[i].id) == starred,
                bool(ruled_out[i]),
                str(session.candidate_title(ranking.candidates[i])),
                str(ranking.candidates[i].text),
            )
        )
    return tuple(rows), float(np.sum(list(entry.values()))), len(unique)


def _starred(session: SessionState) -> str | None:
    """The id of the answer a person reads as Clarify's best (the ★): the accepted one, after a rejection the
    first of the answers still on offer (never the rejected one), else the ranker's current best."""
    ranking = session.ranking
    if session.final is not None:
        return session.final.candidate_id
    if session.phase == Phase.REJECTED:
        others = session.alternatives
        return str(others[0].id) if others else None
    if ranking is None:
        return None
    proposed = session.proposed  # the ranker's best, never a rejected answer
    return proposed.candidate_id if proposed is not None else None


def _proposal(session: SessionState, answers: tuple[AnswerChance, ...], in_scope: float) -> ProposalView | None:
    answer = session.final or session.proposed
    if answer is None:
        return None
    row = next((a for a in answers if a.id == answer.candidate_id), None)
    chance = row.chance if row is not None else in_scope * answer.probability
    same = [a.chance for a in answers if a.label_key == answer.label_key]
    entry = float(sum(same)) if same else in_scope * answer.probability
    return ProposalView(
        answer.label_key,
        answer.label_name,
        answer.text,
        answer.candidate_id,
        entry,
        chance,
        answer.chance,
        answer.answer_number,
        answer.answers,
    )


def _stop_explanation(session: SessionState, rows: int, entries: int, mass: float) -> str | None:
    """Why the questions stopped, counting what a person is shown: "N compared" is the table's rows."""
    reason = session.stop_reason
    # after a rejection the reason of the stop ("97% sure it is X") is no longer what the belief says
    if session.phase in (Phase.CLARIFYING, Phase.REJECTED) or reason is None:
        return None
    if reason != StopReason.CONFIDENT or not rows:
        return explain_stop(reason, session.conversation, session.config.shortlist_size)
    if entries == 1:
        name = session.proposed.label_name if session.proposed is not None else "this entry"
        what = f"it is {percent(mass)} sure the answer is “{name}”"
        # "its 6 answers are compared" read wrong beside "0 of at most 8 comparisons": the answers are ranked,
        # and compared only when the person asks for it
        return "Stopped asking: " + what + (f" (one of its {rows} answers)." if rows > 1 else ".")
    return f"Stopped asking: it is {percent(mass)} sure the answer is among the {rows} compared."
