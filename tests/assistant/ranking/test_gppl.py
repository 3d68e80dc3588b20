"""GPPL and Bradley-Terry: the Laplace posterior against BoTorch's PairwiseGP and brute-force optimisation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import log_ndtr

from assistant.errors import ConfigError, NotFittedError
from assistant.ranking.base import Comparisons
from assistant.ranking.bt import BradleyTerry
from assistant.ranking.gppl import GPPL, median_lengthscales


def _rbf(x, ls, scale):
    z = x / ls
    d2 = ((z[:, None, :] - z[None, :, :]) ** 2).sum(-1)
    return scale * np.exp(-0.5 * d2)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gppl_matches_botorch_pairwise_gp(seed):
    torch = pytest.importorskip("torch")
    pytest.importorskip("botorch")
    from botorch.models.pairwise_gp import PairwiseGP
    from gpytorch.kernels import RBFKernel, ScaleKernel

    rng = np.random.default_rng(seed)
    n, d = 9, 3
    x = rng.normal(size=(n, d))
    ls, scale = rng.uniform(0.5, 2.0, size=d), 2.5
    pairs = []
    while len(pairs) < 7:
        a, b = (int(v) for v in rng.choice(n, 2, replace=False))
        if (a, b) not in pairs and (b, a) not in pairs:
            pairs.append((a, b))
    kernel = ScaleKernel(RBFKernel(ard_num_dims=d)).double()
    kernel.base_kernel.lengthscale = torch.tensor(ls)
    kernel.outputscale = torch.tensor(scale)
    reference = PairwiseGP(torch.tensor(x), torch.tensor(pairs), covar_module=kernel, jitter=1e-6)
    reference.eval()
    post = reference.posterior(torch.tensor(x))
    mean = post.mean.detach().numpy().ravel()
    cov = post.covariance_matrix.detach().numpy()

    ours = GPPL(output_scale=scale, prior_scale=0.0, lengthscale=ls, jitter=1e-6)
    ours_post = ours.fit(x, None, Comparisons.from_winners(pairs)).posterior()
    np.testing.assert_allclose(ours_post.mean, mean, atol=1e-4)
    np.testing.assert_allclose(ours_post.cov_rows(np.arange(n)), cov, atol=1e-4)
    np.testing.assert_allclose(ours_post.variance, np.diag(cov), atol=1e-4)


def test_gppl_mode_with_prior_mean_and_ties_matches_brute_force():
    """Newton's mode equals a generic optimiser's MAP of the same log posterior (prior mean, a tie, noise 0.7)."""
    rng = np.random.default_rng(3)
    n = 6
    x = rng.normal(size=(n, 2))
    prior = rng.normal(size=n)
    comps = Comparisons(np.array([[0, 1], [2, 1], [3, 4], [5, 0], [2, 3]]), np.array([1.0, 1.0, 0.5, 0.0, 1.0]))
    model = GPPL(output_scale=1.5, prior_scale=0.8, noise=0.7, lengthscale=1.3)
    post = model.fit(x, prior, comps).posterior()

    m = model.prior_mean(prior)
    K = _rbf(x, 1.3, 1.5) + 1e-6 * np.eye(n)
    K_inv = np.linalg.inv(K)

    def neg_log_post(f):
        z = (f[comps.pairs[:, 0]] - f[comps.pairs[:, 1]]) / (np.sqrt(2) * 0.7)
        y = comps.outcomes
        loglik = np.sum(y * log_ndtr(z) + (1 - y) * log_ndtr(-z))
        return -(loglik - 0.5 * (f - m) @ K_inv @ (f - m))

    best = minimize(neg_log_post, m.copy(), method="BFGS", options={"gtol": 1e-10})
    np.testing.assert_allclose(post.mean, best.x, atol=1e-4)


def test_gppl_without_comparisons_returns_the_prior():
    x = np.random.default_rng(0).normal(size=(5, 3))
    prior = np.array([3.0, 1.0, 2.0, 0.0, 4.0])
    post = GPPL(output_scale=2.0, prior_scale=1.0).fit(x, prior, Comparisons.empty()).posterior()
    np.testing.assert_allclose(post.mean, (prior - prior.mean()) / prior.std())
    np.testing.assert_allclose(post.variance, 2.0 + 1e-6)


def test_a_tie_pulls_utilities_together_and_a_win_apart():
    x = np.eye(3)
    base = GPPL(prior_scale=1.0).fit(x, np.array([2.0, 0.0, 1.0]), Comparisons.empty()).posterior().mean
    tie = GPPL(prior_scale=1.0).fit(x, np.array([2.0, 0.0, 1.0]), Comparisons(np.array([[0, 1]]), np.array([0.5])))
    gap_tie = tie.posterior().mean[0] - tie.posterior().mean[1]
    win = GPPL(prior_scale=1.0).fit(x, np.array([2.0, 0.0, 1.0]), Comparisons.from_winners([(0, 1)]))
    gap_win = win.posterior().mean[0] - win.posterior().mean[1]
    assert gap_tie < base[0] - base[1] < gap_win


def test_gppl_cov_rows_are_consistent_with_the_variance():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(40, 4))
    comps = Comparisons.from_winners([(0, 1), (2, 3), (4, 0), (5, 6)])
    post = GPPL().fit(x, rng.normal(size=40), comps).posterior()
    rows = post.cov_rows([0, 7, 39])
    np.testing.assert_allclose(rows[[0, 1, 2], [0, 7, 39]], post.variance[[0, 7, 39]], rtol=1e-8)
    full = post.cov_rows(np.arange(40))
    np.testing.assert_allclose(full, full.T, atol=1e-10)
    assert np.linalg.eigvalsh(full).min() > -1e-8


def test_median_lengthscales_heuristic():
    x = np.array([[0.0, 0.0, 5.0], [1.0, 10.0, 5.0], [2.0, 20.0, 5.0]])
    ls = median_lengthscales(x)
    np.testing.assert_allclose(ls, np.array([1.0, 10.0, 1.0]) * np.sqrt(3))


@pytest.mark.parametrize(
    "kwargs", [{"output_scale": 0.0}, {"noise": -1.0}, {"prior_scale": -1.0}, {"lengthscale_factor": float("nan")}]
)
def test_gppl_rejects_bad_parameters(kwargs):
    with pytest.raises(ConfigError):
        GPPL(**kwargs).fit(np.eye(3), None, Comparisons.empty())


def test_fit_validates_inputs():
    with pytest.raises(ConfigError, match="prior has 2 scores"):
        GPPL().fit(np.eye(3), np.zeros(2), Comparisons.empty())
    with pytest.raises(ConfigError, match="indices"):
        GPPL().fit(np.eye(3), None, Comparisons.from_winners([(0, 3)]))
    with pytest.raises(ConfigError, match="itself"):
        Comparisons.from_winners([(1, 1)])
    with pytest.raises(ConfigError, match="NaN"):
        GPPL().fit(np.array([[np.nan, 0.0], [0.0, 1.0]]), None, Comparisons.empty())


def test_bradley_terry_matches_logistic_regression_map():
    """BT's utilities equal offset + X w for the MAP weights of L2-regularised logistic regression."""
    rng = np.random.default_rng(7)
    n, d, l2 = 8, 3, 0.5
    x = rng.normal(size=(n, d))
    prior = rng.normal(size=n)
    comps = Comparisons(np.array([[0, 1], [2, 3], [4, 5], [6, 7], [1, 2]]), np.array([1.0, 0.0, 1.0, 0.5, 1.0]))
    post = BradleyTerry(l2=l2, prior_scale=0.7).fit(x, prior, comps).posterior()
    offset = 0.7 * (prior - prior.mean()) / prior.std()
    diff = x[comps.pairs[:, 0]] - x[comps.pairs[:, 1]]
    base = offset[comps.pairs[:, 0]] - offset[comps.pairs[:, 1]]
    y = comps.outcomes

    def loss(w):
        z = base + diff @ w
        return -np.sum(y * -np.logaddexp(0, -z) + (1 - y) * -np.logaddexp(0, z)) + 0.5 * l2 * w @ w

    w = minimize(loss, np.zeros(d), method="BFGS", options={"gtol": 1e-10}).x
    np.testing.assert_allclose(post.mean, offset + x @ w, atol=1e-5)
    assert BradleyTerry.bayesian is False


def test_predict_mean_of_new_items_follows_the_fitted_posterior():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(30, 3))
    prior = x[:, 0] + 0.1 * rng.normal(size=30)
    model = GPPL(output_scale=2.0, prior_scale=0.7)
    comparisons = Comparisons.from_winners([(1, 2), (5, 7), (9, 1)])
    posterior = model.fit(x, prior, comparisons).posterior()
    # the fitted candidates themselves: their posterior mean (up to the jitter on the compared items)
    assert model.predict_mean(x, prior) == pytest.approx(posterior.mean, abs=1e-5)
    # a new item far from every compared one keeps its prior mean, on the candidates' standardised scale
    far = np.full((1, 3), 50.0)
    expected = 0.7 * (3.0 - prior.mean()) / prior.std()
    assert model.predict_mean(far, np.array([3.0]))[0] == pytest.approx(expected)
    with pytest.raises(ConfigError):
        model.predict_mean(x[:, :2], prior)
    with pytest.raises(NotFittedError):  # a bug in the caller, not the person's mistake
        GPPL().predict_mean(x, prior)


def test_kernel_rows_survive_a_full_cache():
    from assistant.ranking.gppl import RBFKernel

    x = np.random.default_rng(0).normal(size=(100, 2))
    kernel = RBFKernel(x, np.ones(2), 1.0)
    kernel.cache_rows = 4
    kernel.rows(np.array([0, 1, 2]))
    rows = kernel.rows(np.array([1, 2, 3, 4]))  # overflows: rows 1 and 2 were cached before the clear
    d2 = ((x[[1, 2, 3, 4], None, :] - x[None, :, :]) ** 2).sum(-1)
    assert rows == pytest.approx(np.exp(-0.5 * d2))


@pytest.mark.parametrize("model", [GPPL(output_scale=3.0), BradleyTerry(l2=2.0)])
def test_cov_block_equals_the_block_of_the_rows(model):
    x = np.random.default_rng(1).normal(size=(40, 4))
    posterior = model.fit(x, x[:, 0], Comparisons.from_winners([(0, 1), (2, 3), (4, 0)])).posterior()
    idx = np.array([3, 0, 17, 25])
    assert posterior.cov_block(idx) == pytest.approx(posterior.cov_rows(idx)[:, idx])
