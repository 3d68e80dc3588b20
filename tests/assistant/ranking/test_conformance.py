"""Every preference model of assistant/ranking (and the peers measured beside them) keeps one contract, the
way scikit-learn's check_estimator holds its estimators: the constructor stores hyperparameters only;
fitted state lives in attributes ending in "_" that ``fit`` alone sets; a model used before ``fit`` raises
``NotFittedError`` (a bug, not a user error); ``fit`` returns the model; the posterior has one finite mean
and variance per candidate; fitting again, or a twin with the same seed, gives the same posterior."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import assistant.ranking.bt
import assistant.ranking.deep
import assistant.ranking.gppl
from assistant.errors import ClarifyError, NotFittedError, check_fitted
from assistant.progress import collect
from assistant.ranking.base import Comparisons, PreferenceModel
from assistant.ranking.bt import BradleyTerry
from assistant.ranking.deep import (
    DeepRanker,
    MCDropoutRanker,
    RankingExample,
    SWAGRanker,
    collect_swag,
    pretrain_deep_ranker,
)
from assistant.ranking.gppl import GPPL

N, D = 12, 3  # candidates; the deep rankers' pair features have 3 D + 1 columns


@pytest.fixture(scope="module")
def deep_parts():
    rng = np.random.default_rng(0)
    w = rng.normal(size=3 * D + 1)
    examples = []
    for _ in range(3):
        x = rng.normal(size=(N, 3 * D + 1)).astype(np.float32)
        examples.append(RankingExample(x, x @ w / 10))
    _, head = collect(pretrain_deep_ranker(examples, seed=0, epochs=1, hidden=8))
    _, moments = collect(collect_swag(head, examples, seed=0, epochs=2, rank=3))
    return head, moments


MODELS = {
    "bt": lambda parts: BradleyTerry(l2=1.0),
    "gppl": lambda parts: GPPL(),
    "deep": lambda parts: DeepRanker(parts[0], steps=3, seed=1),
    "mcd": lambda parts: MCDropoutRanker(parts[0], samples=4, steps=3, seed=1),
    "swag": lambda parts: SWAGRanker(parts[0], parts[1], samples=4, steps=3, seed=1),
}


def _data(name: str):
    rng = np.random.default_rng(7)
    width = 3 * D + 1 if name in ("deep", "mcd", "swag") else D
    features = rng.normal(size=(N, width)).astype(np.float32 if width > D else np.float64)
    prior = rng.normal(size=N)
    comparisons = Comparisons.from_winners([(0, 1), (2, 3), (1, 4), (5, 0), (6, 7)])
    return features, prior, comparisons


def test_every_preference_model_is_checked(deep_parts):
    found = {
        cls.__name__
        for module in (assistant.ranking.bt, assistant.ranking.gppl, assistant.ranking.deep)
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if issubclass(cls, PreferenceModel) and cls is not PreferenceModel and cls.__module__ == module.__name__
    }
    checked = {type(make(deep_parts)).__name__ for make in MODELS.values()}
    assert found == checked, f"add the new model(s) to MODELS: {sorted(found - checked)}"


@pytest.mark.parametrize("name", sorted(MODELS))
def test_not_fitted_is_a_bug_not_a_user_error(name, deep_parts):
    model = MODELS[name](deep_parts)
    assert not [k for k in vars(model) if k.endswith("_") and not k.startswith("__")], "fitted state set before fit"
    with pytest.raises(NotFittedError, match="not fitted") as raised:
        model.posterior()
    assert not isinstance(raised.value, ClarifyError)  # the CLI would print it as the person's mistake (exit 2)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_fit_gives_one_finite_posterior_per_candidate(name, deep_parts):
    features, prior, comparisons = _data(name)
    model = MODELS[name](deep_parts)
    assert model.fit(features, prior, comparisons) is model
    check_fitted(model)  # it now has its "_" attributes
    post = model.posterior()
    assert post.mean.shape == (N,) and post.variance.shape == (N,)
    assert np.all(np.isfinite(post.mean)) and np.all(np.isfinite(post.variance)) and np.all(post.variance >= 0)
    empty = MODELS[name](deep_parts).fit(features, prior, Comparisons.empty()).posterior()
    assert empty.mean.shape == (N,) and np.all(np.isfinite(empty.mean))


@pytest.mark.parametrize("name", sorted(MODELS))
def test_refitting_with_the_same_seed_gives_the_same_posterior(name, deep_parts):
    features, prior, comparisons = _data(name)
    model = MODELS[name](deep_parts)
    first = model.fit(features, prior, comparisons).posterior()
    again = model.fit(features, prior, comparisons).posterior()
    twin = MODELS[name](deep_parts).fit(features, prior, comparisons).posterior()
    for other in (again, twin):
        np.testing.assert_array_equal(first.mean, other.mean)
        np.testing.assert_array_equal(first.variance, other.variance)
