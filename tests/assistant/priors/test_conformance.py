"""Every prior p(y | x0) of assistant/priors keeps one contract, as scikit-learn's check_estimator holds its
estimators: fitted on a tiny domain (the four colour birds), it scores N texts as a finite [N, Y] array,
and fitting again with the same seed gives the same scores. A prior has no unfitted state to misuse:
each is made by its fit (a classmethod, or training for the SRU encoder), so the not-fitted check of the
preference models (tests/assistant/ranking/test_conformance.py) has nothing to hold here."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import assistant.priors.base
import assistant.priors.bm25
import assistant.priors.combined
import assistant.priors.desk
import assistant.priors.minilm
import assistant.priors.sru
from assistant.priors.base import UniformPrior
from assistant.priors.bm25 import BM25Prior
from assistant.priors.combined import CombinedPrior
from assistant.priors.desk import DeskPrior
from assistant.priors.mentions import MentionDetector
from assistant.priors.minilm import MiniLMPrior
from assistant.progress import collect
from assistant.training.encoder import train_encoder
from tests.assistant.training.test_encoder import TINY, make_colour_domain

TEXTS = ["a red bird", "yellow feathers", "zzz nothing known"]


def _encoder(domain, seed):
    _, result = collect(train_encoder(domain, TINY, seed=seed, save=False))
    return result.prior


def _combined(domain, seed):
    seen = np.zeros(domain.num_labels, dtype=bool)
    seen[domain.labels_with_queries("train")] = True
    log_answers = np.log(np.maximum(domain.p_hat(1.0), 1e-12))
    return CombinedPrior(BM25Prior.fit(domain), MentionDetector.from_domain(domain), log_answers, seen, beta=1.0)


PRIORS = {
    "uniform": lambda domain, seed: UniformPrior(domain.num_labels),
    "bm25": lambda domain, seed: BM25Prior.fit(domain),
    "minilm": lambda domain, seed: MiniLMPrior.fit(domain, seed=seed),
    "sru": _encoder,
    "combined": _combined,
    "desk": lambda domain, seed: DeskPrior.build_desk(domain),
}
KINDS = {"uniform": "UniformPrior", "bm25": "BM25Prior", "minilm": "MiniLMPrior", "sru": "EncoderPrior"}
KINDS["combined"] = "CombinedPrior"
KINDS["desk"] = "DeskPrior"


@pytest.fixture(scope="module")
def domain():
    return make_colour_domain()


def test_every_prior_is_checked():
    modules = (assistant.priors.base, assistant.priors.bm25, assistant.priors.combined, assistant.priors.minilm)
    modules = (*modules, assistant.priors.desk)
    found = {
        cls.__name__
        for module in (*modules, assistant.priors.sru)
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if cls.__module__ == module.__name__
        and callable(getattr(cls, "scores", None))
        and not getattr(cls, "_is_protocol", False)  # the Prior Protocol itself
    }
    assert found == set(KINDS.values()), f"add the new prior(s) to PRIORS: {sorted(found - set(KINDS.values()))}"


# MiniLM and the SRU encoder train (twice each): slow; the others run in make test-fast
SLOW = {"minilm", "sru", "desk"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in sorted(PRIORS)])
def test_a_fitted_prior_scores_every_label_finitely_and_refits_the_same(name, domain):
    prior = PRIORS[name](domain, 0)
    assert type(prior).__name__ == KINDS[name]
    scores = np.asarray(prior.scores(TEXTS))
    assert scores.shape == (len(TEXTS), domain.num_labels)
    assert np.all(np.isfinite(scores))
    np.testing.assert_allclose(np.asarray(PRIORS[name](domain, 0).scores(TEXTS)), scores, rtol=1e-6, atol=1e-6)
