"""The calibration a domain's prior gets at prepare time: fitted on dev queries, stored beside the prior,
served to the clarifier, stale once the prior changes."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.app.models.calibration import (
    calibrate_if_missing,
    calibrated,
    calibration_path,
    conformal_shortlist,
    load_calibration,
)
from assistant.app.models.registry import ModelRegistry
from assistant.app.models.training_jobs import fit_prior_job
from assistant.priors.calibration import CalibratedPrior
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
