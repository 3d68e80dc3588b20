"""The way back after a "no" (issue 40) and one truth per screen (issue 39): dismissed entries stay down, the
likeliest remaining entries are offered by name first, "nothing fits" is said within three questions when
nothing is likely, the proposal is the belief's first entry when no comparison moved it, and the next likeliest
answers can be taken at once after a rejection."""

from __future__ import annotations

import dataclasses

from assistant.app.session import way_back
from assistant.app.session.session import Session, SessionConfig
from assistant.app.session.view import session_view
from assistant.clarification.belief import DISMISS_ERROR
from assistant.clarification.clarifier import Clarifier
from tests.support.tiny import TinyAgents

CONFIG = SessionConfig(shortlist_size=3, ranking_budget=2, ranking_threshold=0.999)


class NamedAgents(TinyAgents):
    """The tiny birds with "Which of these is it?" lists (people know the entries' names)."""

    def __init__(self, turns: int = 3) -> None:
        super().__init__(turns=turns)

    def clarifier(self, *args, **kwargs) -> Clarifier:
        clarifier = super().clarifier(*args, **kwargs)
        clarifier.config = dataclasses.replace(clarifier.config, answer_lists=True)
        return clarifier


def rejected_then_more(agents) -> tuple[Session, str]:
    session = Session.start(agents, "bird", CONFIG)
    session.skip_to_shortlist()  # the tiny domain's three questions stay for after the "no"
    if session.phase == "comparing":
        session.done()
    rejected = session.proposed.label_key
    session.reject()
    session.ask_more()
    return session, rejected


def share(session: Session, key: str) -> float:
    position = int(session.conversation.positions([session.domain.label_index(key)])[0])
    return float(session.conversation.probs[position])


def test_dismissed_entries_do_not_return_after_two_unrelated_answers():
    session, rejected = rejected_then_more(TinyAgents(turns=4))
    for _ in range(2):
        assert session.phase == "clarifying" and session.question is not None
        session.answer(option=len(session.question.options) - 1)  # whatever the answer, it says nothing of them
        assert share(session, rejected) <= DISMISS_ERROR + 1e-9
        assert rejected not in [e.key for e in session_view(session).entries[:2]]


def test_after_a_rejection_the_likeliest_remaining_entries_are_offered_by_name_first():
    session, rejected = rejected_then_more(NamedAgents())
    question = session.question
    assert question is not None and question.text == "Which of these is it?"
    names = [e.name for e in session_view(session).entries if e.key != rejected]
    assert list(question.options[:-1]) == names[: len(question.options) - 1]  # in the belief's order, no skip
    assert question.options[-1] == "none of these"
    session.answer(option=0)  # taken at once: the next step proposes it
    while session.phase == "comparing":
        session.done()
    assert session.proposed is not None and session.proposed.label_name == names[0]


def test_when_nothing_is_likely_it_says_so_within_three_questions(monkeypatch):
    monkeypatch.setattr(way_back, "LIKELY_AFTER_NO", 1.01)  # no entry is ever likely enough
    session, _ = rejected_then_more(TinyAgents(turns=10))
    asked = 0
    while session.phase == "clarifying" and asked < 10:
        session.answer(kind="not_sure")
        asked += 1
    assert session.phase == "out_of_scope" and asked <= way_back.QUESTIONS_AFTER_NO
    assert "none of my answers looks likely" in session.nothing_fits.message
    session.hand_off("please help")  # the way on stays open
    assert session.handed_off


def test_the_proposal_is_the_beliefs_first_entry_when_no_comparison_moved_it():
    session = Session.start(TinyAgents(), "red breast", CONFIG)
    while session.phase == "clarifying":
        session.answer(kind="not_sure")
    if session.phase == "comparing":
        session.done()
    view = session_view(session)
    assert session.comparisons == 0 and view.proposal.label_key == view.entries[0].key
    # after a rejection the next likeliest answers can be taken at once, likeliest first
    session.reject()
    others = [a for a in session_view(session).answers if a.label_key != view.proposal.label_key]
    assert [c.id for c in session.alternatives] == [a.id for a in others]


def test_none_of_these_is_a_no_too(monkeypatch):
    """Lost photos: "none of these", and the questions went on with every entry below 2%."""
    monkeypatch.setattr(way_back, "LIKELY_AFTER_NO", 1.01)  # no entry is ever likely enough
    session = Session.start(NamedAgents(turns=10), "bird", CONFIG)
    assert session.question is not None and session.question.text == "Which of these is it?"
    session.answer(option=len(session.question.options) - 1)  # none of these
    asked = 0
    while session.phase == "clarifying" and asked < 10:
        session.answer(kind="not_sure")
        asked += 1
    assert session.phase == "out_of_scope" and asked <= way_back.QUESTIONS_AFTER_NO
