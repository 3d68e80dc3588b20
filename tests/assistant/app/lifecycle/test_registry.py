"""ModelRegistry's choice of text prior: the pooled MiniLM prior gets its own policies, next to the SRU ones."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.app.lifecycle.registry import ModelRegistry, policy_path
from assistant.app.lifecycle.training_jobs import fit_prior_job, train_policy_job
from assistant.errors import ConfigError, ModelMissingError
from assistant.progress import run_job
from assistant.training.policy import PolicyConfig
from tests.support.colours import store_colour_domain


def test_unknown_text_prior_is_refused_with_the_choices():
    with pytest.raises(ConfigError, match="sru, minilm"):
        ModelRegistry("colours", text_prior="glove")


@pytest.mark.slow
def test_minilm_prior_trains_and_loads_its_own_policy():
    store_colour_domain()
    registry = ModelRegistry("colours", text_prior="minilm")
    coverage = ["coverage-all-quick", "coverage-all-thorough"]  # tuned once their policies are trained
    policies = ["policy-all-learned-quick", "policy-all-learned-thorough", "policy-all-lambda_1-quick"]
    # no encoder to train: the prior is calibrated (prepare does it; loading never fits), then ours at both
    # paces and lambda = 1 at the default
    assert registry.missing() == ["prior", *policies, *coverage]
    with pytest.raises(ModelMissingError, match="clarify prepare colours --prior minilm"):
        registry.clarifier()
    run_job(fit_prior_job(registry))
    assert registry.missing() == [*policies, *coverage]
    run_job(train_policy_job(registry, "all", "learned", PolicyConfig(iterations=3, batch_size=16), seed=0))
    assert policy_path("colours", "all", "learned", "minilm").with_suffix(".pt").is_file()
    assert registry.missing() == ["policy-all-learned-thorough", "policy-all-lambda_1-quick", *coverage]

    probs = registry.clarifier().start("a bright red bird").probs
    assert int(np.argmax(probs)) == 0  # the red Cardinal

    sru = ModelRegistry("colours")
    assert not policy_path("colours", "all", "learned").with_suffix(".pt").exists()
    with pytest.raises(ModelMissingError):
        sru.load_policy("all", "learned")
