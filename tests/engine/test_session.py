"""Sessions end to end on a tiny domain: clarify -> compare -> answer, undo everywhere, resume, logging."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.app.session import Session, SessionConfig
from assistant.errors import ConfigError, EmptyQueryError, SessionStateError
from assistant.store import KnowledgeBase
from tests.engine.conftest import TinyAgents

CONFIG = SessionConfig(shortlist_size=3, ranking_budget=2, ranking_threshold=0.999)


@pytest.fixture
def agents():
    return TinyAgents()


def test_a_whole_session_is_logged_turn_by_turn(agents):
    session = Session.start(agents, "red breast", CONFIG)
    assert session.phase == "clarifying" and session.question.turn == 1
    session.answer(0)
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
    kinds = [t["kind"] for t in session.transcript()]
    assert kinds == ["query", "answer", "answer", "stop", "compare", "compare", "decided", "accept"]
    with KnowledgeBase.open("tiny") as kb:
        [summary] = Session.list(kb)
    assert (summary.status, summary.final_label, summary.turns) == ("finished", final.label_key, 8)


def test_undo_steps_back_through_every_phase(agents):
    session = Session.start(agents, "bird", CONFIG)
    first_question = session.question.index
    start_probs = session.conversation.probs.copy()
    session.answer(1)
    session.answer(0)
    assert session.phase == "comparing"
    session.prefer("right")
    session.undo()  # the comparison
    assert session.phase == "comparing" and session.comparisons == 0
    session.undo()  # the stop: back to the second question
    assert session.phase == "clarifying" and session.question.turn == 2
    session.undo()  # the first answer
    assert session.question.index == first_question
    np.testing.assert_array_equal(session.conversation.probs, start_probs)
    with pytest.raises(SessionStateError):
        session.undo()


def test_resume_replays_to_the_same_state(agents):
    session = Session.start(agents, "bird", CONFIG)
    session.answer(0)
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


def test_skip_reject_and_more_questions(agents):
    session = Session.start(agents, "bird", CONFIG)
    session.skip_to_shortlist()
    assert session.phase == "comparing" and session.stop_reason == "user"
    session.undo()  # back to the skipped question
    assert session.phase == "clarifying" and session.question.turn == 1
    assert not session.can_ask_more  # still clarifying
    session.skip_to_shortlist()
    assert session.can_ask_more
    session.ask_more()
    assert session.phase == "clarifying" and session.question is not None
    session.answer(0)
    session.skip_to_shortlist()
    session.prefer("left")
    assert not session.can_ask_more  # a comparison was made
    with pytest.raises(SessionStateError, match="before the first comparison"):
        session.ask_more()
    session.reject("none of these")
    assert session.status == "failed"
    with pytest.raises(SessionStateError):
        session.undo()


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
        assert len(Session.list(kb)) == 1  # the refused query left no session behind


def test_undo_after_an_instant_proposal_returns_to_the_questions(agents):
    config = SessionConfig(shortlist_size=3, ranking_budget=2, ranking_threshold=0.01)  # sure at once
    session = Session.start(agents, "bird", config)
    session.answer(0)
    session.answer(1)
    assert session.phase == "decided" and session.comparisons == 0
    assert session.can_undo
    session.undo()
    assert session.phase == "clarifying" and session.question.turn == 2
    session.undo()
    assert not session.can_undo
