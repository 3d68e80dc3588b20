"""CICC's protocol on the tiny domain: the conformal baseline's three branches, ours through the simulator,
and the figures of a row."""

import numpy as np
import pytest

from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.conformal import ConformalShortlist
from assistant.clarification.stopping import FixedTurns
from assistant.evaluation import cicc
from assistant.evaluation.clarifier import EvaluationSetup
from assistant.simulation.episodes import EpisodeSpec
from assistant.simulation.user import SimulatedUser
from tests.support.tiny import KeywordPrior


def _setup(domain, turns=2):
    return EvaluationSetup(
        domain=domain,
        candidates=np.arange(4),
        prior=KeywordPrior(domain),
        answer_model=AnswerModel(domain.p_hat(1.0), domain.option_mask),
        policy=FixedTurns(turns),
        user=SimulatedUser(domain.p_hat(0.5), domain.option_mask, list_error=0.0),
    )


def test_the_baseline_answers_a_single_intent_asks_over_a_few_and_sends_the_rest_to_rephrase(tiny_domain):
    user = SimulatedUser(tiny_domain.p_hat(0.5), tiny_domain.option_mask, list_error=0.0)
    probs = np.array([[0.97, 0.01, 0.01, 0.01], [0.45, 0.45, 0.05, 0.05], [0.25, 0.25, 0.25, 0.25]])
    specs = [EpisodeSpec(0, "a", 1), EpisodeSpec(1, "b", 2), EpisodeSpec(3, "c", 3)]
    shortlist = ConformalShortlist(0.9, threshold=0.2)
    one, few, many = cicc.cicc_outcomes(probs, specs, shortlist, user, np.arange(4), max_options=3)
    assert (one.actions, one.correct, one.set_size) == (0, True, 1)
    assert (few.actions, few.correct, few.options, few.set_size) == (1, True, (2,), 2)  # picked from the set
    assert many.rephrase and not many.correct and many.covered and many.set_size == 4
    row = cicc.summary([[one, few, many]])
    assert row["coverage"] == 1.0 and row["answered_without_question"] == pytest.approx(1 / 3, abs=1e-3)
    assert row["rephrase_share"] == pytest.approx(1 / 3, abs=1e-3) and row["options_when_asking"] == 2.0
    assert row["acc1"] == pytest.approx(2 / 3, abs=1e-3) and row["actions"] == pytest.approx(2 / 3, abs=1e-3)
    assert row["mean_set_size"] == pytest.approx(7 / 3, abs=1e-3)


def test_a_wrong_single_intent_is_neither_covered_nor_right(tiny_domain):
    user = SimulatedUser(tiny_domain.p_hat(0.5), tiny_domain.option_mask)
    probs = np.array([[0.97, 0.01, 0.01, 0.01]])
    (out,) = cicc.cicc_outcomes(probs, [EpisodeSpec(2, "a", 1)], ConformalShortlist(0.9, 0.5), user, np.arange(4))
    assert not out.covered and not out.correct and out.actions == 0


def test_ours_is_played_by_the_simulator_and_counts_the_options_it_showed(tiny_domain):
    setup = _setup(tiny_domain, turns=2)
    specs = cicc.with_answer_seeds(cicc.test_split_episodes(tiny_domain, setup.candidates, seed=0), seed=0)
    assert [s.target for s in specs] == [0, 1]  # the tiny domain's two test queries, once each
    scores = setup.prior.scores([s.query for s in specs])
    outcomes = cicc.ours_outcomes(setup, specs, scores, coverage=0.0)
    assert all(o.actions == 2 and len(o.options) == 2 for o in outcomes)
    assert all(n in (2, 3) for o in outcomes for n in o.options)  # yes/no questions and the three sizes
    assert all(o.covered == o.correct for o in outcomes)  # ours commits to one answer
    assert cicc.ours_outcomes(setup, specs, scores, 0.0) == outcomes  # the same seeds, the same answers


def test_the_first_beliefs_are_the_conversations_and_the_subset_is_seeded(tiny_domain):
    setup = _setup(tiny_domain)
    scores = setup.prior.scores(["red breast", "black crow"])
    probs = cicc.first_beliefs(scores, setup.candidates)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-6)
    assert probs[1].argmax() == 1
    one = cicc.test_split_episodes(tiny_domain, setup.candidates, seed=3, limit=1)
    assert len(one) == 1 and one == cicc.test_split_episodes(tiny_domain, setup.candidates, seed=3, limit=1)


def test_the_target_needs_the_coverage_and_fewer_actions():
    peer = {"coverage": 0.97, "actions": 0.5}
    assert cicc.target_met({"coverage": 0.985, "actions": 0.4}, peer, published=0.981)
    assert not cicc.target_met({"coverage": 0.975, "actions": 0.4}, peer, published=0.981)
    assert not cicc.target_met({"coverage": 0.99, "actions": 0.6}, peer, published=None)
    assert not cicc.target_met({"coverage": 0.96, "actions": 0.4}, peer, published=None)  # the measured one then
