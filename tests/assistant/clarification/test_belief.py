"""Posterior and information gain against brute force on a tiny domain; undo exactness."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.belief import Belief, Evidence
from assistant.clarification.questions import information_gain
from assistant.errors import ConfigError, SessionStateError


def entropy(p):
    p = np.asarray(p, dtype=np.float64)
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


@pytest.fixture
def model(tiny_domain):
    return AnswerModel(tiny_domain.p_hat(1.0), tiny_domain.option_mask)


def test_p_hat_is_smoothed_counts(tiny_domain):
    p = tiny_domain.p_hat(1.0)
    # label 0, question "red": counts yes 6, no 4 -> (6+1)/(10+2)
    assert p[0, 0, 0] == pytest.approx(7 / 12)
    assert p[0, 1, 0] == pytest.approx(5 / 12)
    assert p[0, 2, 0] == 0.0  # padded option
    # choice question, label 3: counts 0, 3, 7 -> (1, 4, 8) / 13
    np.testing.assert_allclose(p[2, :, 3], np.array([1, 4, 8]) / 13, rtol=1e-6)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-6)


def test_posterior_matches_bayes_rule(model):
    prior = np.array([0.4, 0.3, 0.2, 0.1])
    belief = Belief(np.log(prior))
    a = model.matrix
    belief.update(Evidence(0, 0, "option", np.log(a[0, 0])))
    belief.update(Evidence(2, 2, "option", np.log(a[2, 2])))
    expected = prior * a[0, 0] * a[2, 2]
    np.testing.assert_allclose(belief.probs, expected / expected.sum(), rtol=1e-6)


def test_information_gain_equals_expected_entropy_drop(model):
    rng = np.random.default_rng(3)
    for _ in range(5):
        p = rng.dirichlet(np.ones(4))
        ig = information_gain(model, p)
        a = model.matrix.astype(np.float64)
        for q in range(a.shape[0]):
            expected_posterior_entropy = 0.0
            for r in range(int(model.option_mask[q].sum())):
                joint = a[q, r] * p
                p_r = joint.sum()
                expected_posterior_entropy += p_r * entropy(joint / p_r)
            assert ig[q] == pytest.approx(entropy(p) - expected_posterior_entropy, abs=1e-5)


def test_information_gain_is_zero_for_a_known_label(model):
    ig = information_gain(model, np.array([0.0, 1.0, 0.0, 0.0]))
    np.testing.assert_allclose(ig, 0.0, atol=1e-6)


def test_undo_is_exact(model):
    belief = Belief(np.log([0.1, 0.2, 0.3, 0.4]))
    before = belief.log_probs.copy()
    answers = [(0, 1), (2, 0), (1, 1)]
    snapshots = []
    for q, r in answers:
        snapshots.append(belief.log_probs.copy())
        belief.update(Evidence(q, r, "option", np.log(model.matrix[q, r]).astype(np.float64)))
    for snapshot in reversed(snapshots):
        belief.undo()
        assert np.array_equal(belief.log_probs, snapshot)
    assert np.array_equal(belief.log_probs, before)
    with pytest.raises(SessionStateError):
        belief.undo()


def test_order_of_answers_does_not_change_the_posterior(model):
    final = []
    for order in itertools.permutations([(0, 0), (1, 1), (2, 2)]):
        belief = Belief(np.zeros(4))
        for q, r in order:
            belief.update(Evidence(q, r, "option", np.log(model.matrix[q, r]).astype(np.float64)))
        final.append(belief.probs)
    for probs in final[1:]:
        np.testing.assert_allclose(probs, final[0], rtol=1e-9)


def test_soft_answer_mixes_with_uniform(model):
    sure = model.likelihood(2, 0, 1.0)
    soft = model.likelihood(2, 0, 0.5)
    np.testing.assert_allclose(soft, 0.5 * sure + 0.5 / 3, rtol=1e-6)
    with pytest.raises(ConfigError):
        model.likelihood(0, 2)  # a binary question has no third option


def test_learned_component_mixes_with_lambda(tiny_domain):
    scores = np.random.default_rng(0).normal(size=tiny_domain.counts.shape).astype(np.float32)
    p_hat = tiny_domain.p_hat(1.0)
    model = AnswerModel(p_hat, tiny_domain.option_mask, scores, lam=0.7, w=2.0, b=np.array([0.5, 0, 0]))
    logits = 2.0 * scores + np.array([0.5, 0, 0])[None, :, None]
    logits = np.where(tiny_domain.option_mask[:, :, None], logits, -np.inf)
    p_tilde = np.exp(logits - logits.max(axis=1, keepdims=True))
    p_tilde /= p_tilde.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(model.matrix, 0.7 * p_hat + 0.3 * p_tilde, rtol=1e-5, atol=1e-6)
    assert AnswerModel(p_hat, tiny_domain.option_mask).matrix[0, 0, 1] == pytest.approx(p_hat[0, 0, 1])
