"""Acquisitions on tiny cases against brute force (Monte Carlo, quadrature, enumeration)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit, ndtr

from assistant.errors import ConfigError
from assistant.ranking.acquisition import (
    ACQUISITIONS,
    ExpectedImprovement,
    InformationGain,
    PairUncertainty,
    RandomPairs,
    ThompsonPairs,
    Uncertainty,
    bald_information_gain,
    candidate_pool,
    expected_improvement,
    first_pair,
    make_acquisition,
    preference_probability,
)
from assistant.ranking.base import DensePosterior, SamplePosterior
from tests.support.posteriors import random_posterior

GH_X, GH_W = np.polynomial.hermite_e.hermegauss(80)  # probabilists' Gauss-Hermite: E[g(Z)], Z ~ N(0, 1)


def _entropy(p):
    p = np.clip(p, 1e-15, 1 - 1e-15)
    return -(p * np.log(p) + (1 - p) * np.log(1 - p))


def numeric_mutual_information(delta, var, noise=1.0):
    """I(y; f) for y ~ Bernoulli(Phi(d / (sqrt 2 noise))), d ~ N(delta, var), by quadrature (exact model)."""
    d = delta + np.sqrt(var) * GH_X
    p = ndtr(d / (np.sqrt(2) * noise))
    w = GH_W / GH_W.sum()
    return _entropy(np.sum(w * p)) - np.sum(w * _entropy(p))


@pytest.mark.parametrize("delta,sd", [(0.0, 1.0), (1.3, 0.4), (-2.0, 1.5), (-0.3, 0.05), (0.7, 3.0)])
def test_expected_improvement_formula_matches_monte_carlo(delta, sd):
    draws = np.random.default_rng(0).normal(delta, sd, size=2_000_000)
    mc = np.maximum(draws, 0.0).mean()
    assert expected_improvement(np.array([delta]), np.array([sd]))[0] == pytest.approx(mc, abs=4e-3 * max(sd, 1))


def test_expected_improvement_with_zero_sd_is_the_positive_part():
    np.testing.assert_allclose(expected_improvement(np.array([-1.0, 2.0]), np.zeros(2)), [0.0, 2.0])


def test_imp_selects_the_argmax_of_monte_carlo_ei_against_the_current_best():
    post = random_posterior(6, seed=11)
    best = int(np.argmax(post.mean))
    draws = np.random.default_rng(1).multivariate_normal(post.mean, post.cov, size=400_000)
    mc_ei = np.maximum(draws - draws[:, [best]], 0.0).mean(axis=0)
    mc_ei[best] = -np.inf
    pair = ExpectedImprovement().select(post, set(), np.random.default_rng(0))
    assert pair == (best, int(np.argmax(mc_ei)))
    np.testing.assert_allclose(
        ExpectedImprovement().scores(post, best)[np.isfinite(mc_ei)], mc_ei[np.isfinite(mc_ei)], atol=5e-3
    )


def test_imp_skips_pairs_already_compared():
    post = random_posterior(6, seed=11)
    best = int(np.argmax(post.mean))
    first = ExpectedImprovement().select(post, set(), np.random.default_rng(0))
    second = ExpectedImprovement().select(post, {tuple(sorted(first))}, np.random.default_rng(0))
    assert second[0] == best and second != first


@pytest.mark.parametrize("delta,var,noise", [(0.0, 1.0, 1.0), (0.5, 4.0, 1.0), (-1.5, 0.2, 0.5), (2.0, 9.0, 1.0)])
def test_bald_closed_form_matches_quadrature(delta, var, noise):
    assert bald_information_gain(np.array([delta]), np.array([var]), noise)[0] == pytest.approx(
        numeric_mutual_information(delta, var, noise), abs=0.01
    )


def test_preference_probability_matches_monte_carlo():
    rng = np.random.default_rng(2)
    d = rng.normal(0.4, np.sqrt(2.5), size=1_000_000)
    mc = ndtr(d / np.sqrt(2)).mean()
    assert preference_probability(np.array([0.4]), np.array([2.5]))[0] == pytest.approx(mc, abs=2e-3)


def _brute_force_pairs(post):
    n = post.num_candidates
    out = []
    for a in range(n):
        for b in range(a + 1, n):
            delta = post.mean[a] - post.mean[b]
            var = post.cov[a, a] + post.cov[b, b] - 2 * post.cov[a, b]
            out.append(((a, b), delta, var))
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_eig_picks_a_pair_with_maximal_information_by_quadrature(seed):
    post = random_posterior(7, seed=seed, scale=1.5)
    mi = {pair: numeric_mutual_information(d, v) for pair, d, v in _brute_force_pairs(post)}
    pair = InformationGain().select(post, set(), np.random.default_rng(0))
    assert mi[tuple(sorted(pair))] >= max(mi.values()) - 0.01


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_unpa_picks_the_pair_with_probability_closest_to_half(seed):
    post = random_posterior(7, seed=seed)
    rng = np.random.default_rng(5)
    gap = {}
    for pair, d, v in _brute_force_pairs(post):
        draws = rng.normal(d, np.sqrt(v), size=200_000)
        gap[pair] = abs(ndtr(draws / np.sqrt(2)).mean() - 0.5)
    pair = PairUncertainty().select(post, set(), np.random.default_rng(0))
    assert gap[tuple(sorted(pair))] <= min(gap.values()) + 0.005


def test_unc_picks_the_smallest_point_estimate_gap():
    post = random_posterior(7, seed=4)
    gaps = {pair: abs(expit(d) - 0.5) for pair, d, _ in _brute_force_pairs(post)}
    ranked = sorted(gaps, key=gaps.get)
    assert tuple(sorted(Uncertainty().select(post, set(), np.random.default_rng(0)))) == ranked[0]
    assert tuple(sorted(Uncertainty().select(post, {ranked[0]}, np.random.default_rng(0)))) == ranked[1]


def test_tp_first_item_follows_the_probability_of_being_best():
    post = random_posterior(5, seed=8, scale=1.2)
    draws = np.random.default_rng(0).multivariate_normal(post.mean, post.cov, size=200_000)
    p_best = np.bincount(draws.argmax(axis=1), minlength=5) / len(draws)
    tp = ThompsonPairs()
    firsts = [tp.select(post, set(), np.random.default_rng(s))[0] for s in range(1500)]
    freq = np.bincount(firsts, minlength=5) / len(firsts)
    np.testing.assert_allclose(freq, p_best, atol=0.04)


def test_tp_partner_maximises_information_gain_with_the_first():
    post = random_posterior(6, seed=9)
    first, partner = ThompsonPairs().select(post, set(), np.random.default_rng(3))
    mi = [
        -np.inf
        if j == first
        else numeric_mutual_information(
            post.mean[first] - post.mean[j], post.cov[first, first] + post.cov[j, j] - 2 * post.cov[first, j]
        )
        for j in range(6)
    ]
    assert mi[partner] >= max(mi) - 0.01


@pytest.mark.parametrize("name", sorted(ACQUISITIONS))
def test_pairs_are_never_repeated_until_exhausted(name):
    post = random_posterior(5, seed=1)
    acq = make_acquisition(name)
    seen: set[tuple[int, int]] = set()
    for step in range(10):
        pair = acq.select(post, seen, np.random.default_rng(step))
        assert pair is not None and pair[0] != pair[1]
        key = tuple(sorted(pair))
        assert key not in seen
        seen.add(key)
    assert acq.select(post, seen, np.random.default_rng(99)) is None


@pytest.mark.parametrize("name", sorted(ACQUISITIONS))
def test_acquisitions_are_deterministic_given_the_rng(name):
    post = random_posterior(30, seed=2)
    acq = make_acquisition(name)
    assert acq.select(post, set(), np.random.default_rng(4)) == acq.select(post, set(), np.random.default_rng(4))


def test_random_pairs_cover_every_pair_uniformly():
    post = random_posterior(4, seed=0)
    counts: dict[tuple[int, int], int] = {}
    rng = np.random.default_rng(0)
    for _ in range(3000):
        pair = tuple(sorted(RandomPairs().select(post, set(), rng)))
        counts[pair] = counts.get(pair, 0) + 1
    assert len(counts) == 6 and min(counts.values()) > 400


def test_pool_keeps_large_candidate_sets_cheap():
    rng = np.random.default_rng(0)
    n = 2000
    post = SamplePosterior(rng.normal(size=(20, n)) + np.linspace(0, 5, n))
    for name in ("eig", "unpa", "tp", "unc", "imp"):
        acquisition = make_acquisition(name)
        a, b = acquisition.select(post, set(), np.random.default_rng(0))
        assert 0 <= a < n and 0 <= b < n and a != b
        if name in ("eig", "unpa", "tp"):  # only candidates of the pool of likely-best ones are considered
            pool = set(candidate_pool(post, acquisition.pool_size).tolist())
            assert len(pool) == acquisition.pool_size < n
            # EIG and UNPA pair within the pool; TP's Thompson draw is from the pool, its partner from all
            assert {a, b} <= pool if name != "tp" else bool({a, b} & pool)


def test_first_pair_is_best_prior_against_least_similar():
    feats = np.array([[1.0, 0.0], [0.9, 0.1], [-1.0, 0.05], [0.0, 1.0]])
    assert first_pair(np.array([0.1, 0.9, 0.2, 0.3]), feats) == (1, 2)


def test_unknown_acquisition_is_a_clear_error():
    with pytest.raises(ConfigError, match="unknown acquisition"):
        make_acquisition("ucb")
    assert isinstance(make_acquisition("EI"), ExpectedImprovement)


def test_sample_posterior_moments():
    samples = np.random.default_rng(0).normal(size=(20, 4))
    post = SamplePosterior(samples, jitter=0.0)
    np.testing.assert_allclose(post.cov_rows(np.arange(4)), np.cov(samples.T), atol=1e-12)
    np.testing.assert_allclose(post.mean, samples.mean(0))
    assert isinstance(post, SamplePosterior) and not isinstance(post, DensePosterior)
    np.testing.assert_allclose(post.variance, samples.var(axis=0, ddof=1), atol=1e-12)
