"""The calibration a domain's prior gets at prepare time: fitted on dev queries, stored beside the prior,
served to the clarifier, stale once the prior changes."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.app.lifecycle.calibration_jobs import (
    MIN_TEMPERATURE,
    calibrate_if_missing,
    calibrated,
    calibration_path,
    conformal_shortlist,
    fit_calibration,
    load_calibration,
)
from assistant.app.lifecycle.registry import ModelRegistry
from assistant.app.lifecycle.training_jobs import fit_prior_job, policy_prior
from assistant.priors.calibration import CalibratedPrior, PriorCalibration
from assistant.progress import run_job
from tests.support.colours import store_colour_domain


@pytest.mark.slow
def test_prepare_fits_the_calibration_once_and_a_new_prior_makes_it_stale():
    store_colour_domain()
    registry = ModelRegistry("colours", text_prior="minilm")
    run_job(fit_prior_job(registry))
    prior = registry.combined_prior(registry.domain)
    assert load_calibration(registry) is None and calibrated(registry, prior) is prior  # nothing fitted yet

    assert run_job(calibrate_if_missing(registry)) == ["calibration"]
    assert calibration_path(registry).is_file()
    assert run_job(calibrate_if_missing(registry)) == []  # seconds, and only once
    calibration = load_calibration(registry)
    assert calibration is not None and calibration.temperature > 0
    shown = calibrated(registry, prior)
    assert isinstance(shown, CalibratedPrior)
    probs = np.exp(shown.scores(["red"]))[0]
    assert (probs > 0).all() and abs(probs.sum() - 1) < 1e-5
    shortlist = conformal_shortlist(registry)
    assert shortlist is not None and 1 <= shortlist.size(probs) <= len(probs)

    registry.save_prior_settings(0.5, None, registry.encoder.calibration())  # another mention weight
    assert load_calibration(ModelRegistry("colours", text_prior="minilm")) is None


@pytest.mark.slow
def test_only_an_own_faqs_cold_start_calibrates_sharper_and_its_policies_learn_on_it():
    """Issue 32: a domain not made from a desk's FAQ (here: the colours) keeps its temperatures at least
    MIN_TEMPERATURE even when asked to sharpen (its policies were trained on the raw prior), and its policies
    and rules keep learning on the raw prior."""
    store_colour_domain()
    registry = ModelRegistry("colours", text_prior="minilm")
    run_job(fit_prior_job(registry))
    fitted = fit_calibration(registry, sharpen=True)
    calibration = PriorCalibration.from_dict(fitted["calibration"])
    assert fitted["sharpened"] is False
    assert min(calibration.temperature, calibration.short_temperature) >= MIN_TEMPERATURE
    run_job(calibrate_if_missing(registry))
    assert policy_prior(registry) is registry.combined_prior()


def test_the_calibration_line_gives_the_temperature_not_the_whole_fit():
    """Issue 41: the prepare line printed the calibration dict, a top_map of 64 floats, to a desk administrator."""
    from assistant.app.lifecycle.calibration_jobs import calibrated_line

    fitted = {"temperature": 1.11936056928417, "short_temperature": 1.1, "floor": 0.0001, "top_map": [[0.1] * 32] * 2}
    assert calibrated_line(fitted) == "prior calibrated on held-out dev queries (temperature 1.12)"
    assert calibrated_line({}) == "prior calibrated on held-out dev queries"
