"""The shortcuts of a fast turn (issue 33) give the numbers of the plain computation: one belief's policy
features equal the batched ones bit for bit, a belief folds its answers in when read with the same arithmetic,
the remembered information gain is the one of the belief asked about, and at thousands of labels the gains over
the likely labels (issue 42) choose the question the gains over every label choose."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.belief import Belief, Evidence, floored, normalize_log
from assistant.clarification.questions import FLOOR_MIN_LABELS, information_gain, information_gain_from, likely_labels
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


def _model(questions: int, labels: int, seed: int) -> AnswerModel:
    rng = np.random.default_rng(seed)
    p_hat = rng.gamma(0.5, 4.0, size=(questions, 3, labels)).astype(np.float32)
    return AnswerModel(p_hat / p_hat.sum(axis=1, keepdims=True), np.ones((questions, 3), dtype=bool))


def _exact_gains(model: AnswerModel, probs: np.ndarray) -> np.ndarray:
    a = model.matrix.astype(np.float64)
    answer = np.einsum("qry,y->qr", a, probs)
    h_answer = -(answer * np.log(answer)).sum(axis=1)
    return h_answer - model.cond_entropy.astype(np.float64) @ probs


def test_likely_labels_leave_out_the_least_likely_mass_only():
    probs = np.array([0.5, 0.3, 0.19994, 0.00003, 0.00002, 0.00001])
    np.testing.assert_array_equal(likely_labels(probs), [True, True, True, False, False, False])
    np.testing.assert_array_equal(likely_labels(probs, negligible=0.000035), [True, True, True, True, False, False])
    assert likely_labels(np.full(8, 1 / 8)).all()


@pytest.mark.parametrize("labels", [200, 499])
def test_a_small_domains_gains_are_computed_over_every_label(labels):
    """Below FLOOR_MIN_LABELS nothing is left out, whatever the belief: the bundled domains keep their numbers."""
    model = _model(20, labels, labels)
    probs = np.zeros(labels)
    probs[:3] = [0.7, 0.2, 0.1]  # a belief that would leave out all but three labels on a large domain
    assert labels < FLOOR_MIN_LABELS
    np.testing.assert_array_equal(information_gain(model, probs), _plain(model, probs))


def _plain(model: AnswerModel, probs: np.ndarray) -> np.ndarray:
    q, r, _ = model.shape
    both = np.asarray(probs, dtype=np.float32) @ model.gain_matrix
    return information_gain_from(both[: q * r].reshape(q, r), both[q * r :]).astype(np.float32)


def test_a_large_domains_gains_over_its_likely_labels_choose_the_question_of_every_label():
    labels = 5000
    model = _model(40, labels, 7)
    rng = np.random.default_rng(3)
    for concentration in (0.002, 0.01, 0.05):
        probs = rng.dirichlet(np.full(labels, concentration))
        kept = likely_labels(probs)
        assert kept.sum() < labels // 2  # the floor is in use
        gains = information_gain(model, probs)
        exact = _exact_gains(model, probs)
        assert np.abs(gains - exact).max() < 1e-2 * max(1.0, exact.max())
        assert int(np.argmax(gains)) == int(np.argmax(exact))


def _p_hat_in_float64(domain, alpha: float) -> np.ndarray:
    """p_hat as computed before issue 42 (float64 temporaries, cast to float32 at the end)."""
    mask = domain.option_mask[:, :, None]
    smoothed = np.where(mask, domain.counts + alpha, 0.0)
    total = smoothed.sum(axis=1, keepdims=True)
    uniform = mask / domain.option_counts[:, None, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        dist = np.where(total > 0, smoothed / np.where(total > 0, total, 1.0), uniform)
    return dist.astype(np.float32)


@pytest.mark.parametrize("alpha", [1.0, 0.5, 0.0])
def test_p_hat_in_float32_keeps_every_bit(alpha):
    from assistant.store import Domain, Label, Question

    rng = np.random.default_rng(4)
    questions = [Question(f"q{i}", "?", "choice", f"q{i}", tuple(f"o{r}" for r in range(2 + i % 6))) for i in range(30)]
    counts = rng.gamma(0.3, 2.0, size=(30, 7, 50)) * (rng.random((30, 7, 50)) < 0.3)
    counts[:5] = 0.0  # questions nobody annotated: the uniform rows
    counts *= np.arange(7)[None, :, None] < np.array([len(q.options) for q in questions])[:, None, None]
    domain = Domain("d", "d", [Label(f"l{i}", f"l{i}") for i in range(50)], questions, counts)
    new = domain.p_hat(alpha)
    assert new.dtype == np.float32
    assert new.tobytes() == _p_hat_in_float64(domain, alpha).tobytes()
