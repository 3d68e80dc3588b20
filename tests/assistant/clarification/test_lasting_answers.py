"""A person's answers are evidence that lasts (issue 32): a rejection never empties the belief, "none of these"
survives later weak answers, an entry picked from a list is proposed next, the explanation reads the updated
belief (assistant.clarification.belief, conversation, comparison_plan, explanation)."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.clarification.answer_list import ANSWER_LIST
from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.belief import DISMISS_ERROR, Belief, Evidence
from assistant.clarification.clarifier import Clarifier, ClarifierConfig, Conversation
from assistant.clarification.comparison_plan import plan_comparisons
from assistant.clarification.explanation import explain
from assistant.clarification.records import StopReason
from assistant.clarification.stopping import FixedTurns
from tests.support.tiny import KeywordPrior, make_tiny_domain

# A prior as sure as faq's was of a wrong entry (issue 32: 97-100% before any answer): Robin by 200 nats.
SURE_PRIOR = np.array([0.0, -200.0, -201.0, -202.0])


def conversation(log_prior=SURE_PRIOR, turns: int = 5, lists: bool = True) -> Conversation:
    domain = make_tiny_domain()
    model = AnswerModel(domain.p_hat(1.0), domain.option_mask)
    config = ClarifierConfig(max_turns=10, shortlist_size=3, answer_lists=lists)
    clarifier = Clarifier(domain, KeywordPrior(domain), model, FixedTurns(turns), config=config)
    return Conversation(clarifier, np.asarray(log_prior, dtype=np.float64), "a bird", np.random.default_rng(0))


def test_no_entry_is_ever_exactly_zero():
    belief = Belief(np.array([0.0, -5000.0, -9000.0]))
    assert (belief.probs > 0).all() and belief.probs.sum() == pytest.approx(1.0)


def test_a_rejection_leaves_a_belief_over_the_rest_none_of_it_zero():
    conv = conversation()
    assert conv.probs[0] > 0.999  # sure and wrong
    conv.exclude([0])  # the person rejected Robin
    probs = conv.probs
    assert probs.sum() == pytest.approx(1.0)
    assert probs[0] <= DISMISS_ERROR + 1e-9  # at most the stated error rate
    assert probs[1:].sum() >= 1 - DISMISS_ERROR - 1e-9  # renormalised over the rest
    assert (probs > 0).all()
    # below the floor the rest are alike; above it they keep their odds (Crow e^1 over Cardinal)
    assert probs[1] == pytest.approx(probs[3])
    milder = conversation(np.array([0.0, -10.0, -11.0, -12.0]))
    milder.exclude([0])
    assert milder.probs[1] / milder.probs[2] == pytest.approx(np.e, rel=1e-3)
    assert milder.probs[1:].sum() == pytest.approx(1 - DISMISS_ERROR)
    # the next question and its explanation read the updated belief: it still tells something, and no
    # outcome shows the rejected entry as the likeliest
    assert conv.best_gain() > 0.05
    question = conv.next_question()
    assert question is not None
    why = explain(conv, question)
    assert why["information_gain"] > 0.05
    assert all(outcome["top"][0][0] != "Robin" for outcome in why["outcomes"])
    assert all(it.label.name != "Robin" for it in conv.shortlist(3))


def test_none_of_these_survives_two_unrelated_answers():
    conv = conversation(turns=10)
    conv.answer_listed([0, 3], 2)  # "none of these" to Robin / Gull
    assert conv.probs[[0, 3]].sum() <= DISMISS_ERROR + 1e-9
    # two answers that favour Robin (red, small) over the rest: they would bring it back as a likelihood alone
    conv.answer(0, 0)  # red: yes
    conv.answer(2, 0)  # small
    assert conv.probs[[0, 3]].sum() <= DISMISS_ERROR + 1e-9
    assert conv.probs.sum() == pytest.approx(1.0)
    # and the answers still count among the rest: Cardinal (red, small) leads
    assert int(np.argmax(conv.probs)) == 2
    # undo takes the answers back exactly, the dismissal stays
    conv.undo()
    conv.undo()
    assert conv.probs[[0, 3]].sum() <= DISMISS_ERROR + 1e-9


def test_a_dismissal_as_a_likelihood_alone_would_not_last():
    """What the cap is for: the same answers with the dismissal's likelihood only bring Robin back."""
    belief = Belief(SURE_PRIOR)
    belief.update(Evidence(ANSWER_LIST, 2, "option", np.log([0.01, 1.0, 1.0, 0.01])))
    belief.update(Evidence(0, 0, "option", np.log([0.9, 0.01, 0.9, 0.01])))
    assert belief.probs[0] > 0.5


def test_a_pick_from_a_list_is_proposed_next():
    prior = np.log([0.6, 0.3, 0.08, 0.02])
    conv = conversation(prior, turns=10)
    conv.answer_listed([0, 1, 2], 1)  # the person picks Crow
    assert int(np.argmax(conv.probs)) == 1
    assert conv.picked() == 1
    assert conv.next_question() is None  # no more questions (the learned policy used to keep asking)
    assert conv.stop_reason == StopReason.CONFIDENT
    plan = plan_comparisons(conv, 3)
    assert [it.label.name for it in plan.items] == ["Crow"]


def test_a_pick_the_evidence_contradicts_is_not_proposed_at_once():
    conv = conversation(SURE_PRIOR, turns=10)  # Robin by 200 nats: a slip of the hand is likelier
    conv.answer_listed([0, 1], 1)
    assert int(np.argmax(conv.probs)) == 0
    assert conv.picked() is None
    assert conv.next_question() is not None
