"""The shortcuts of a fast turn (issue 33) give the numbers of the plain computation: one belief's policy
features equal the batched ones bit for bit, a belief folds its answers in when read with the same arithmetic,
and the remembered information gain is the one of the belief asked about."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.belief import Belief, Evidence, floored, normalize_log
from assistant.clarification.questions import information_gain
from assistant.clarification.stopping import policy_features


@pytest.mark.parametrize("labels", [1, 3, 5, 20, 21, 200, 2000])
def test_one_beliefs_features_equal_the_batched_ones(labels):
    rng = np.random.default_rng(labels)
    for t in range(60):
        p = rng.dirichlet(np.full(labels, rng.choice([0.01, 0.1, 1.0])))
        if t % 3 == 0:  # exact zeros and values below the log's floor
            p[rng.integers(labels)] = 0.0
            p[: labels // 3] = 1e-35
        gain = float(rng.random())
        one = policy_features(p, t % 10, 10, 20, gain)
        batched = policy_features(p[None, :], t % 10, 10, 20, gain)[0]
        assert one.dtype == np.float32 and one.shape == (24,)
        np.testing.assert_array_equal(one, batched)


def test_a_belief_folds_its_answers_in_as_each_came():
    rng = np.random.default_rng(0)
    prior = rng.normal(size=50)
    likelihoods = [np.log(rng.random(50)) for _ in range(4)]
    belief = Belief(prior)
    expected = floored(prior)  # the prior with its floor (issue 32)
    for i, ll in enumerate(likelihoods):
        belief.update(Evidence(i, 0, "option", ll))
        expected = normalize_log(expected + ll)
        if i % 2:  # read after some answers only: the others wait until the next read
            np.testing.assert_array_equal(belief.log_probs, expected)
    np.testing.assert_array_equal(belief.probs, np.exp(expected))
    assert not belief.probs.flags.writeable
    belief.update(Evidence(9, 0, "option", likelihoods[0]))
    belief.undo()  # recomputed from the prior: the numbers of never having given the last answer
    np.testing.assert_array_equal(belief.log_probs, expected)


def test_remembered_gains_follow_the_belief():
    rng = np.random.default_rng(1)
    model = AnswerModel(rng.gamma(0.5, 4.0, size=(30, 3, 40)).astype(np.float32), np.ones((30, 3), dtype=bool))
    belief = Belief(rng.normal(size=40))
    first = information_gain(model, belief.probs)
    assert information_gain(model, belief.probs) is first  # the same state: remembered
    belief.update(Evidence(0, 1, "option", np.log(model.likelihood(0, 1, 1.0)).astype(np.float64)))
    second = information_gain(model, belief.probs)
    fresh = information_gain(model, np.array(belief.probs))  # a writable copy: computed, never remembered
    np.testing.assert_array_equal(second, fresh)
    assert not np.array_equal(first, second)
