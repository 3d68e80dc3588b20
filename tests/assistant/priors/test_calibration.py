"""The shown prior's calibration: temperature scaling recovers an overconfident prior, the floor keeps every
entry above 0, short queries get their own temperature."""

from __future__ import annotations

import numpy as np

from assistant.evaluation.reliability import calibration_summary
from assistant.priors.base import log_softmax
from assistant.priors.calibration import (
    PROBABILITY_FLOOR,
    CalibratedPrior,
    PriorCalibration,
    calibrated_log_probs,
    fit_calibration_temperature,
)


def overconfident(n: int = 3000, y: int = 12, sharpen: float = 4.0, seed: int = 0):
    """(log-probs sharpened ``sharpen`` times, labels drawn from the honest ones)."""
    rng = np.random.default_rng(seed)
    honest = log_softmax(rng.normal(0.0, 1.5, size=(n, y)))
    probs = np.exp(honest)
    labels = np.array([rng.choice(y, p=p / p.sum()) for p in probs])
    return log_softmax(sharpen * honest), labels


def test_temperature_recovers_the_sharpening_and_the_ece_drops():
    log_probs, labels = overconfident()
    t = fit_calibration_temperature(log_probs, labels)
    assert 3.3 < t < 4.8
    before = calibration_summary(log_probs, labels, None)
    after = calibration_summary(calibrated_log_probs(log_probs, t), labels, None)
    assert before["ece"] > 0.15
    assert after["ece"] < 0.04
    assert after["acc1"] == before["acc1"]  # a temperature never reorders the entries


def test_no_entry_is_ever_exactly_zero():
    log_probs = np.array([[0.0, -1e4, -1e9], [-5.0, 0.0, -np.inf]])
    out = np.exp(calibrated_log_probs(np.where(np.isfinite(log_probs), log_probs, -1e30), 0.05))
    assert (out > 0).all()
    assert out.min() >= PROBABILITY_FLOOR / 3 * 0.999
    np.testing.assert_allclose(out.sum(axis=1), 1.0)


def test_short_queries_get_their_own_temperature():
    long_lp, long_labels = overconfident(sharpen=1.0, seed=1)
    short_lp, short_labels = overconfident(sharpen=5.0, seed=2)
    texts = ["a fairly long query of many words"] * len(long_labels) + ["two words"] * len(short_labels)
    calibration = PriorCalibration.fit(
        np.concatenate([long_lp, short_lp]), np.concatenate([long_labels, short_labels]), texts
    )
    assert 0.7 < calibration.temperature < 1.4
    assert calibration.short_temperature > 3.5
    assert PriorCalibration.fit(long_lp, long_labels, texts[: len(long_labels)], minimum=2.0).temperature == 2.0
    same = PriorCalibration.from_dict(calibration.to_dict())
    np.testing.assert_allclose(same.apply(short_lp[:3], ["x y"] * 3), calibration.apply(short_lp[:3], ["x y"] * 3))


class Sure:
    name = "sure"

    def scores(self, texts):
        return np.array([[40.0, 0.0, -40.0]] * len(texts), dtype=np.float32)

    def mentioned(self, text):
        return [(0, 1)]


def test_a_calibrated_prior_softens_the_scores_and_keeps_the_rest_of_the_prior():
    prior = CalibratedPrior(Sure(), PriorCalibration(4.0, 8.0))
    probs = np.exp(prior.scores(["gmail threads bunched together today", "threads"]))
    assert probs[0, 0] < 1.0 and probs[1, 0] < probs[0, 0]  # the short query is less sure
    assert (probs > 0).all()
    assert prior.mentioned("x") == [(0, 1)]
