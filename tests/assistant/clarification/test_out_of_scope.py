"""The out-of-scope hypothesis on a tiny domain: its prior, its answer likelihoods, the exact joint, the stop."""

from __future__ import annotations

import math

import numpy as np
import pytest

from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.clarifier import Clarifier, ClarifierConfig
from assistant.clarification.out_of_scope import OutOfScopeModel, fit_prior, out_of_scope_answers, prior_features
from assistant.clarification.stopping import FixedTurns, ThresholdStop
from assistant.errors import ConfigError
from assistant.store import Domain
from tests.support.desk import MODEL, tiny_desk
from tests.support.tiny import KeywordPrior


def clarifier(domain: Domain, oos: OutOfScopeModel | None, stop=None, max_turns: int = 5) -> Clarifier:
    model = AnswerModel(domain.p_hat(1.0), domain.option_mask)
    return Clarifier(
        domain,
        KeywordPrior(domain),
        model,
        stop or FixedTurns(max_turns),
        config=ClarifierConfig(max_turns=max_turns),
        out_of_scope=oos,
    )


def test_the_prior_fit_learns_that_a_flat_prior_means_out_of_scope():
    peaked = np.log(np.array([[0.9, 0.05, 0.05], [0.05, 0.9, 0.05], [0.1, 0.1, 0.8]]))
    flat = np.log(np.array([[0.34, 0.33, 0.33], [0.4, 0.3, 0.3]]))
    weights, bias = fit_prior(peaked, flat)
    model = OutOfScopeModel(weights, bias)
    assert model.prior_log_odds(flat[0]) > 0 > model.prior_log_odds(peaked[0])
    with pytest.raises(ConfigError):
        fit_prior(peaked, flat[:0])


def newton_logistic_regression(x: np.ndarray, y: np.ndarray, sample_weight: np.ndarray, l2: float) -> np.ndarray:
    """The hand-written fit ``fit_prior`` used before scikit-learn: Newton's method on the weighted log-loss
    plus l2 / 2 |weights|^2, the bias (last entry of the result) unpenalised."""
    design = np.concatenate([x, np.ones((len(x), 1))], axis=1)
    theta = np.zeros(design.shape[1])
    penalty = np.full(design.shape[1], l2)
    penalty[-1] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(design @ theta)))
        grad = design.T @ (sample_weight * (p - y)) + penalty * theta
        hess = (design * (sample_weight * p * (1 - p))[:, None]).T @ design + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hess, grad)
        theta -= step
        if np.abs(step).max() < 1e-8:
            break
    return theta


@pytest.mark.parametrize("seed", range(4))
def test_the_prior_fit_minimises_the_same_objective_as_newtons_method(seed):
    rng = np.random.default_rng(seed)
    labels = int(rng.integers(2, 30))
    peaked = rng.normal(size=(int(rng.integers(5, 200)), labels)) * rng.uniform(1, 4)
    peaked[:, 0] += 3
    flat = rng.normal(size=(int(rng.integers(3, 100)), labels)) * rng.uniform(0.1, 2)
    weights, bias = fit_prior(peaked, flat)
    x = np.concatenate([prior_features(peaked), prior_features(flat)])
    y = np.concatenate([np.zeros(len(peaked)), np.ones(len(flat))])
    sample_weight = np.where(y == 1, 0.5 / len(flat), 0.5 / len(peaked))
    expected = newton_logistic_regression(x, y, sample_weight, l2=1e-2)
    np.testing.assert_allclose([*weights, bias], expected, rtol=0, atol=1e-6)


def test_features_and_answer_table_shapes():
    feats = prior_features(np.log(np.array([0.5, 0.25, 0.25])))
    np.testing.assert_allclose(feats, [0.5, 1.5 * math.log(2) / math.log(3), 0.25])
    table = out_of_scope_answers(tiny_desk().questions, 3, 0.8)
    np.testing.assert_allclose(table, [[0.1, 0.1, 0.8], [0.2, 0.8, 0.0]])


def test_posterior_is_the_exact_joint_over_labels_and_out_of_scope():
    domain = tiny_desk()
    conversation = clarifier(domain, MODEL).start("hello there")  # no keyword: a flat prior
    conversation.answer(0, 2)  # something else
    conversation.answer(1, 1, kind="probably")  # probably no
    # brute force over Y + 1 hypotheses
    prior = np.exp(conversation.belief.log_prior)
    a = conversation.clarifier.model.matrix.astype(np.float64)
    soft = 0.5 * a[1, 1] + 0.5 / 2
    in_scope = prior * a[0, 2] * soft
    oos_prior = 1.0 / (1.0 + math.exp(-MODEL.prior_log_odds(conversation.belief.log_prior)))
    oos = oos_prior * 0.8 * (0.5 * 0.8 + 0.25)
    expected = oos / (oos + (1 - oos_prior) * in_scope.sum())
    assert conversation.out_of_scope_probability() == pytest.approx(expected, rel=1e-5)


def test_something_else_raises_it_a_fitting_answer_lowers_it_and_undo_restores():
    conversation = clarifier(tiny_desk(), MODEL).start("hello there")
    start = conversation.out_of_scope_probability()
    conversation.answer(0, 2)
    raised = conversation.out_of_scope_probability()
    assert raised > start
    conversation.undo()
    assert conversation.out_of_scope_probability() == pytest.approx(start)
    conversation.answer(0, 0)  # banking
    assert conversation.out_of_scope_probability() < start


def test_a_person_who_says_something_else_and_is_not_sure_ends_out_of_scope():
    conversation = clarifier(tiny_desk(), MODEL, ThresholdStop(0.9)).start("hello there")
    while (question := conversation.next_question()) is not None:
        if question == 0:
            conversation.answer(question, 2)  # something else
        else:
            conversation.answer(question, None, "not_sure")
    assert conversation.out_of_scope and conversation.stop_reason == "out_of_scope"
    assert conversation.out_of_scope_probability() >= MODEL.threshold


def test_an_answerable_query_still_ends_on_its_label_and_without_the_model_nothing_changes():
    with_model = clarifier(tiny_desk(), MODEL, ThresholdStop(0.8)).start("lost my card")
    while (question := with_model.next_question()) is not None:
        with_model.answer(question, 0)  # banking, yes: a card
    assert not with_model.out_of_scope and with_model.shortlist(1)[0].label.key == "card"
    plain = clarifier(tiny_desk(), None).start("hello there")
    assert plain.out_of_scope_probability() is None
    plain.answer(0, 2)
    assert plain.next_question() is not None and not plain.out_of_scope


def test_in_doubt_it_keeps_asking_although_the_stop_rule_says_stop():
    doubtful = OutOfScopeModel(weights=(0.0, 0.0, 0.0), bias=0.0, threshold=0.99, doubt=0.3)  # prior odds 1:1
    conversation = clarifier(tiny_desk(), doubtful, ThresholdStop(0.01)).start("hello there")
    assert conversation.next_question() is not None
    sure = OutOfScopeModel(weights=(0.0, 0.0, 0.0), bias=-5.0, threshold=0.99, doubt=0.3)
    assert clarifier(tiny_desk(), sure, ThresholdStop(0.01)).start("hello there").next_question() is None


def test_it_asks_before_turning_anyone_away_on_the_first_words_alone():
    certain = OutOfScopeModel(weights=(0.0, 0.0, 0.0), bias=8.0, threshold=0.9, doubt=0.3)  # prior odds e^8
    conversation = clarifier(tiny_desk(), certain, ThresholdStop(0.9)).start("hello there")
    assert conversation.out_of_scope_probability() > certain.threshold
    first = conversation.next_question()
    assert first == 0 and not conversation.out_of_scope  # a question can still tell: ask it
    conversation.answer(first, 2)  # "something else"
    second = conversation.next_question()  # one "something else" is an answer, not a verdict
    assert second is not None and not conversation.out_of_scope
    conversation.answer(second, None, "not_sure")
    assert conversation.next_question() is None and conversation.out_of_scope


def test_something_else_does_not_end_a_conversation_while_a_label_holds_half_of_the_belief():
    """Issue 26: "I don't have an answer (75% sure)" beside "Did you mean ...? (96%)". Sure that nothing fits,
    yet one label holds most of what fits: the person is shown it instead of being turned away."""
    certain = OutOfScopeModel(weights=(0.0, 0.0, 0.0), bias=9.0, threshold=0.7, doubt=0.3)
    conversation = clarifier(tiny_desk(), certain, ThresholdStop(0.6)).start("hello there")
    conversation.answer(0, 2)  # something else
    conversation.answer(1, 1)  # no, not a card: "Book a flight" now holds most of what fits
    assert conversation.out_of_scope_probability() > 0.7 and conversation.probs.max() > 0.5
    assert conversation.next_question() is None and not conversation.out_of_scope
    assert conversation.shortlist(1)[0].label.key == "flight"
    flat = clarifier(tiny_desk(), certain, ThresholdStop(0.6)).start("hello there")
    flat.answer(0, 2)
    flat.answer(1, None, "not_sure")  # nothing points anywhere: nothing fits
    assert flat.probs.max() < 0.5 and flat.next_question() is None and flat.out_of_scope


def test_settings_round_trip_and_bad_settings_are_refused():
    assert OutOfScopeModel.from_dict(MODEL.to_dict()) == MODEL
    with pytest.raises(ConfigError):
        OutOfScopeModel(weights=(1.0, 2.0), bias=0.0)
    with pytest.raises(ConfigError):
        OutOfScopeModel(weights=(0.0, 0.0, 0.0), bias=0.0, threshold=0.3, doubt=0.5)
    with pytest.raises(ConfigError):
        OutOfScopeModel.from_dict({"weights": [0, 0, 0]})
