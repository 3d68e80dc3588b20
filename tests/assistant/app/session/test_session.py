"""Sessions end to end on a tiny domain: clarify -> compare -> answer, undo everywhere, resume, logging."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.app.session.session import Session, SessionConfig
from assistant.errors import ConfigError, EmptyQueryError, SessionStateError
from assistant.store import KnowledgeBase
from tests.support.tiny import TinyAgents

CONFIG = SessionConfig(shortlist_size=3, ranking_budget=2, ranking_threshold=0.999)


@pytest.fixture
def agents():
    return TinyAgents()


def compare_three(agents, config=CONFIG) -> Session:
    """A session comparing the shortlist (two answers that leave every bird open): Robin, Crow and Cardinal."""
    session = Session.start(agents, "bird", config)
    session.answer(kind="not_sure")
    session.answer(kind="not_sure")
    assert session.phase == "comparing" and len(session.ranking.candidates) == config.shortlist_size
    return session


def test_a_whole_session_is_logged_turn_by_turn(agents):
    session = Session.start(agents, "bird", CONFIG)
    assert session.phase == "clarifying" and session.question.number == 1
    session.answer(kind="not_sure")
    session.answer(kind="not_sure")
    assert session.phase == "comparing"
    left, right = session.pair
    assert left.id != right.id
    session.prefer("left")
    session.prefer("tie")
    assert session.phase == "decided"
    final = session.accept()
    assert session.phase == "finished" and session.status == "finished"
    assert final.label_key in {lab.key for lab in agents.domain.labels}
    kinds = [t.kind for t in session.transcript()]
    assert kinds == ["query", "answer", "answer", "stop", "compare", "compare", "decided", "accept"]
    with KnowledgeBase.open("tiny") as kb:
        [summary] = Session.saved(kb)
    assert (summary.status, summary.final_label, summary.entries) == ("finished", final.label_key, 8)


def test_undo_steps_back_through_every_phase(agents):
    session = Session.start(agents, "bird", CONFIG)
    first_question = session.question.index
    start_probs = session.conversation.probs.copy()
    session.answer(kind="not_sure")
    session.answer(kind="not_sure")
    assert session.phase == "comparing"
    session.prefer("right")
    session.undo()  # the comparison
    assert session.phase == "comparing" and session.comparisons == 0
    session.undo()  # the stop: back to the second question
    assert session.phase == "clarifying" and session.question.number == 2
    session.undo()  # the first answer
    assert session.question.index == first_question
    np.testing.assert_array_equal(session.conversation.probs, start_probs)
    with pytest.raises(SessionStateError):
        session.undo()


def test_resume_replays_to_the_same_state(agents):
    session = Session.start(agents, "bird", CONFIG)
    session.answer(kind="not_sure")
    session.answer(1, kind="probably")
    resumed = Session.resume(agents, session.id)
    assert resumed.phase == session.phase == "comparing"
    np.testing.assert_array_equal(resumed.conversation.probs, session.conversation.probs)
    assert [c.id for c in resumed.pair] == [c.id for c in session.pair]
    session.prefer("left")
    resumed = Session.resume(agents, session.id)
    assert resumed.phase == session.phase
    assert resumed.confidence == pytest.approx(session.confidence)
    assert resumed.proposed == session.proposed
    assert len(resumed.transcript()) == len(session.transcript())  # resuming writes nothing by itself
    # another text prior would replay the answers onto other posteriors: refused, saying how to resume
    other = TinyAgents()
    other.text_prior = "minilm"
    with pytest.raises(SessionStateError, match="--prior keywords"):
        Session.resume(other, session.id)


def test_skip_and_more_questions_before_the_first_comparison(agents):
    session = Session.start(agents, "bird", CONFIG)
    session.skip_to_shortlist()
    assert session.phase in ("comparing", "decided") and session.stop_reason == "user"
    session.undo()  # back to the skipped question
    assert session.phase == "clarifying" and session.question.number == 1
    assert not session.can_ask_more  # still clarifying
    session.answer(kind="not_sure")
    session.skip_to_shortlist()
    assert session.can_ask_more
    session.ask_more()
    assert session.phase == "clarifying" and session.question is not None
    session.answer(kind="not_sure")
    assert session.phase == "comparing"
    session.prefer("left")
    assert not session.can_ask_more  # a comparison was made
    with pytest.raises(SessionStateError, match="before the first comparison"):
        session.ask_more()


def test_done_proposes_and_asks_instead_of_accepting(agents):
    session = compare_three(agents)
    best = session.proposed
    proposal = session.done()
    assert session.phase == "decided" and session.decided_reason == "user" and session.status == "active"
    assert proposal.candidate_id == best.candidate_id and session.final is None
    session.undo()  # "done" is an action like any other
    assert session.phase == "comparing" and session.pair is not None
    session.done()
    accepted = session.accept()
    assert session.status == "finished" and accepted.label_key == proposal.label_key


def test_reject_offers_another_answer_more_questions_or_giving_up_with_undo_after_each(agents):
    session = compare_three(agents)
    session.done()
    proposal = session.proposed
    session.reject("not about crows")
    assert session.phase == "rejected" and session.status == "active"
    assert session.rejected.candidate_id == proposal.candidate_id and session.rejection_reason == "not about crows"
    others = [c.id for c in session.alternatives]
    assert len(others) == 2 and proposal.candidate_id not in others
    # 1. pick another shortlisted answer
    final = session.choose(others[-1])
    assert session.status == "finished" and final.candidate_id == others[-1]
    session.undo()
    assert session.phase == "rejected" and session.final is None
    # 2. ask more questions: the rejected label is excluded from then on
    session.ask_more()
    assert session.phase == "clarifying" and session.question is not None
    assert proposal.label_key not in {it.label.key for it in session.top_labels(4)}
    session.undo()
    assert session.phase == "rejected"
    # 3. give up
    session.give_up()
    assert session.status == "failed"
    session.undo()
    assert session.phase == "rejected"
    with pytest.raises(ConfigError, match="not one of the other"):
        session.choose(proposal.candidate_id)
    kinds = [t.kind for t in session.transcript()]
    assert kinds.count("undo") == 3 and {"choose", "more", "give_up", "reject", "done"} <= set(kinds)
    resumed = Session.resume(agents, session.id)  # the log replays to the same state
    assert resumed.phase == "rejected" and [c.id for c in resumed.alternatives] == others


def test_neither_rules_both_out_and_all_ruled_out_goes_back_to_the_questions(agents):
    session = compare_three(agents, SessionConfig(shortlist_size=4, ranking_budget=5, ranking_threshold=0.999))
    left, right = session.pair
    session.prefer("neither")
    assert session.phase == "comparing"
    assert {left.id, right.id}.isdisjoint({c.id for c in session.pair})  # never shown again
    assert session.proposed.candidate_id not in (left.id, right.id)
    assert session.ranking.chances()[session.ranking.ruled_out].sum() == 0
    session.undo()
    assert [c.id for c in session.pair] == [left.id, right.id]
    session.prefer("neither")
    keys = {c.id for c in session.ranking.candidates}
    remaining = session.pair
    session.prefer("neither")  # every candidate is ruled out now
    assert session.phase == "clarifying" and remaining is not None
    assert [t.kind for t in session.transcript()][-1] == "back"
    assert keys.isdisjoint({it.label.key for it in session.top_labels(4)})
    resumed = Session.resume(agents, session.id)
    assert resumed.phase == "clarifying" and resumed.question.index == session.question.index


def test_bad_actions_are_refused_without_logging(agents):
    session = Session.start(agents, "bird", CONFIG)
    before = len(session.transcript())
    with pytest.raises(ConfigError):
        session.answer(7)
    with pytest.raises(SessionStateError):
        session.prefer("left")
    with pytest.raises(SessionStateError):
        session.accept()
    assert len(session.transcript()) == before
    with pytest.raises(EmptyQueryError):
        Session.start(agents, "   ", CONFIG)
    with KnowledgeBase.open("tiny") as kb:
        assert len(Session.saved(kb)) == 1  # the refused query left no session behind


def test_undo_after_an_instant_proposal_returns_to_the_questions(agents):
    config = SessionConfig(shortlist_size=3, ranking_budget=2, ranking_threshold=0.01)  # sure at once
    session = Session.start(agents, "bird", config)
    session.answer(kind="not_sure")
    session.answer(kind="not_sure")
    assert session.phase == "decided" and session.comparisons == 0
    assert session.can_undo
    session.undo()
    assert session.phase == "clarifying" and session.question.number == 2
    session.undo()
    assert not session.can_undo


def test_after_a_rejection_answers_called_not_relevant_are_not_offered(agents):
    """Issue 34: "Not this answer. What now?" offered answers the person had marked "Neither is relevant"."""
    session = compare_three(agents, SessionConfig(shortlist_size=4, ranking_budget=5, ranking_threshold=0.999))
    left, right = session.pair
    session.prefer("neither")
    session.done()
    session.reject()
    offered = {c.id for c in session.alternatives}
    assert offered and offered.isdisjoint({left.id, right.id})
    with pytest.raises(ConfigError):
        session.choose(left.id)


def test_after_a_rejection_the_question_can_be_handed_on_to_a_person(agents):
    session = compare_three(agents)
    session.done()
    rejected = session.proposed
    session.reject("not about crows")
    session.hand_off("please call me")
    assert session.status == "failed" and session.handed_off
    assert session.transcript()[-1].kind == "hand_off"
    with pytest.raises(SessionStateError, match="already handed on"):
        session.hand_off()
    session.undo()
    assert session.phase == "rejected" and not session.handed_off
    session.hand_off()
    resumed = Session.resume(agents, session.id)
    assert resumed.status == "failed" and resumed.handed_off
    with KnowledgeBase.open("tiny") as kb:
        from assistant.store.inbox import Inbox

        (item,) = Inbox(kb).items()
    assert item.reason == "handed on" and item.note == "not about crows"  # the second hand-off had no note
    assert item.closest[0] == rejected.label_key


def test_handing_on_is_for_nothing_fits_or_after_a_rejection(agents):
    session = compare_three(agents)
    with pytest.raises(SessionStateError, match="handed on when nothing fits or after a rejection"):
        session.hand_off()


def test_no_question_left_is_said_only_after_questions():
    """Issue 34: "Stopped asking: no question left would tell ..." after 0 questions."""
    from types import SimpleNamespace

    from assistant.app.session.session_records import StopReason, explain_stop

    def conversation(turn):
        config = SimpleNamespace(max_turns=10)
        return SimpleNamespace(
            coverage=lambda: 0.9, probs=np.array([0.9]), turn=turn, clarifier=SimpleNamespace(config=config)
        )

    before = explain_stop(StopReason.NO_INFORMATIVE_QUESTION, conversation(0), 5)
    after = explain_stop(StopReason.NO_INFORMATIVE_QUESTION, conversation(2), 5)
    assert "left" not in before and "none of its questions" in before
    assert "no question left" in after
