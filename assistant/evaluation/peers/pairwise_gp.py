"""BoTorch's PairwiseGP as a peer of our GPPL, with BoTorch's own analytic acquisitions (optional: botorch).

One interactive update, as a BoTorch user would write it: a ``PairwiseGP`` over the compared candidates
(BoTorch's default ARD RBF kernel and hyperpriors, probit likelihood), hyperparameters fitted with
``fit_gpytorch_mll``, the posterior mean and variance of every candidate in chunks of ``chunk`` (a joint
posterior over 10,000 candidates would be a 10,000 x 10,000 matrix), then the next pair:

* ``eubo``: the incumbent (highest posterior mean) against the candidate with the highest
  ``AnalyticExpectedUtilityOfBestOption`` with it as ``previous_winner`` (Lin et al. 2022);
* ``botorch_ei``: the incumbent against the candidate with the highest analytic expected improvement
  over the incumbent's mean (``LogExpectedImprovement``).

Warm start: PairwiseGP has no prior mean argument (its ``mean_module`` is a zero ``ConstantMean``). We give
it GPPL's prior mean, ``prior_scale * standardize(prior)``, through a mean module that reads it from an
extra last input column, which the kernel ignores (``active_dims``). Ties (0.5) have no PairwiseGP
likelihood and are left out of its comparisons.

Shapes: features [N, D] float64; the model's inputs [N, D + 1] (features, prior mean).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from assistant.errors import ConfigError, check_fitted
from assistant.ranking.acquisition import AcquisitionFunction, RandomPairs
from assistant.ranking.base import Comparisons, Posterior, PreferenceModel, check_inputs, standardize


def _require_botorch():
    try:
        import botorch  # noqa: F401
    except ImportError as exc:
        raise ConfigError(
            "the PairwiseGP peer needs BoTorch: pip install 'botorch==0.18.*' beside torch==2.13.0"
        ) from exc


def _default_kernel(dim: int):
    """PairwiseGP's own default kernel (botorch 0.18), restricted to the first ``dim`` input columns."""
    import torch
    from gpytorch.constraints import GreaterThan, Interval
    from gpytorch.kernels import RBFKernel, ScaleKernel
    from gpytorch.priors import GammaPrior, SmoothedBoxPrior

    os_lb, os_ub = 1e-2, 1e2
    ls_prior = GammaPrior(concentration=2.4, rate=2.7)
    ls_mode = (ls_prior.concentration - 1) / ls_prior.rate
    return ScaleKernel(
        RBFKernel(
            ard_num_dims=dim,
            active_dims=torch.arange(dim),
            lengthscale_prior=ls_prior,
            lengthscale_constraint=GreaterThan(lower_bound=1e-4, transform=None, initial_value=ls_mode),
        ),
        outputscale_prior=SmoothedBoxPrior(a=os_lb, b=os_ub),
        outputscale_constraint=Interval(lower_bound=os_lb * 0.5, upper_bound=os_ub * 2.0, initial_value=1.0),
    ).double()


def _column_mean():
    from gpytorch.means import Mean

    class LastColumnMean(Mean):
        """The prior mean stored in the last input column (GPPL's warm start)."""

        def forward(self, x):
            return x[..., -1]

    return LastColumnMean()


class PairwiseGPPosterior(Posterior):
    """Mean and variance of every candidate (computed in chunks); covariance rows on demand."""

    def __init__(self, model, inputs, chunk: int) -> None:
        import torch

        self.model, self.inputs, self.chunk = model, inputs, chunk
        means, variances = [], []
        with torch.no_grad():
            for start in range(0, len(inputs), chunk):
                # the joint posterior of a chunk ([c, c]) is several times faster than c batched marginals
                post = model.posterior(inputs[start : start + chunk])
                means.append(post.mean.reshape(-1))
                variances.append(post.variance.reshape(-1))
        self.mean = torch.cat(means).numpy()
        self.variance = np.clip(torch.cat(variances).numpy(), 0.0, None)

    def cov_rows(self, index: Sequence[int] | np.ndarray) -> np.ndarray:
        import torch

        idx = np.asarray(index, dtype=np.int64)
        rows = np.zeros((len(idx), len(self.mean)))
        with torch.no_grad():
            for k, i in enumerate(idx):
                for start in range(0, len(self.inputs), self.chunk):
                    block = self.inputs[start : start + self.chunk]
                    pairs = torch.stack([self.inputs[int(i)].expand_as(block), block], dim=-2)  # [c, 2, D + 1]
                    cov = self.model.posterior(pairs).covariance_matrix  # [c, 2, 2]
                    rows[k, start : start + len(block)] = cov[:, 0, 1].numpy()
        return rows


class PairwiseGPRanker(PreferenceModel):
    """BoTorch's PairwiseGP behind our ``PreferenceModel`` interface (a peer, not a product model).

    Parameters
    ----------
    prior_scale : the warm start's prior mean is ``prior_scale * standardize(prior)`` (GPPL's default, 0.5).
    fit_hyperparameters : run ``fit_gpytorch_mll`` at every update (BoTorch's usual loop).
    chunk : candidates per posterior batch.
    seed : seeds torch for the fit (its restarts sample from the hyperpriors).
    """

    name = "pairwisegp"
    bayesian = True
    noise = 1.0  # PairwiseGP's probit: P(a > b) = Phi((f_a - f_b) / sqrt(2))

    def __init__(self, prior_scale: float = 0.5, fit_hyperparameters: bool = True, chunk: int = 1000, seed: int = 0):
        self.prior_scale = prior_scale
        self.fit_hyperparameters = fit_hyperparameters
        self.chunk = chunk
        self.seed = seed
        self._inputs: Any = None  # the float64 torch inputs [N, D + 1] (torch loads with botorch, lazily)
        self._key: tuple = ()

    def fit(self, features: np.ndarray, prior: np.ndarray | None, comparisons: Comparisons) -> PairwiseGPRanker:
        _require_botorch()
        import torch
        from botorch.fit import fit_gpytorch_mll
        from botorch.models.pairwise_gp import PairwiseGP, PairwiseLaplaceMarginalLogLikelihood

        x, p = check_inputs(features, prior, comparisons)
        key = (id(features), self.prior_scale, p.tobytes().__hash__())
        if self._key != key:
            mean = self.prior_scale * standardize(p)
            self._inputs = torch.tensor(np.hstack([x, mean[:, None]]), dtype=torch.float64)
            self._key = key
        inputs = self._inputs
        assert inputs is not None  # set above for this key
        decided = comparisons.outcomes != 0.5
        pairs = comparisons.pairs[decided]
        winners_first = np.where(comparisons.outcomes[decided][:, None] == 1.0, pairs, pairs[:, ::-1])
        dim = x.shape[1]
        with torch.random.fork_rng():
            torch.manual_seed(self.seed)
            if len(winners_first) == 0:
                model = PairwiseGP(None, None, covar_module=_default_kernel(dim))
            else:
                items, local = np.unique(winners_first, return_inverse=True)
                model = PairwiseGP(inputs[items], torch.tensor(local.reshape(-1, 2)), covar_module=_default_kernel(dim))
            model.mean_module = _column_mean()
            if len(winners_first) and self.fit_hyperparameters:
                model._update(model.datapoints)  # the Laplace mode under the new prior mean
                fit_gpytorch_mll(PairwiseLaplaceMarginalLogLikelihood(model.likelihood, model))
            elif len(winners_first):
                model._update(model.datapoints)
        model.eval()
        self.model_: Any = model  # a botorch PairwiseGP
        self.posterior_ = PairwiseGPPosterior(model, inputs, self.chunk)
        return self

    def posterior(self) -> PairwiseGPPosterior:
        check_fitted(self, "posterior_")
        return self.posterior_


class _IncumbentChallenger(AcquisitionFunction):
    """The incumbent (highest posterior mean) against the best-scoring candidate under a BoTorch analytic
    acquisition evaluated on every candidate in chunks."""

    def botorch_acquisition(self, posterior: PairwiseGPPosterior, best: int):
        raise NotImplementedError

    def select(
        self, posterior: Posterior, seen: set[tuple[int, int]], rng: np.random.Generator
    ) -> tuple[int, int] | None:
        import torch

        if not isinstance(posterior, PairwiseGPPosterior):
            raise ConfigError(f"{self.name} is BoTorch's acquisition: use it with the pairwisegp model")
        best = int(np.argmax(posterior.mean))
        acquisition = self.botorch_acquisition(posterior, best)
        values = []
        with torch.no_grad():
            for start in range(0, len(posterior.inputs), posterior.chunk):
                values.append(acquisition(posterior.inputs[start : start + posterior.chunk].unsqueeze(-2)))
        scores = torch.cat(values).numpy().astype(np.float64)
        scores[best] = -np.inf
        for j in np.argsort(-scores, kind="stable"):
            pair = (min(best, int(j)), max(best, int(j)))
            if int(j) != best and pair not in seen:
                return best, int(j)
        return RandomPairs().select(posterior, seen, rng)


class ExpectedUtilityOfBestOption(_IncumbentChallenger):
    """BoTorch's analytic EUBO with the incumbent as the previous winner."""

    name = "eubo"

    def botorch_acquisition(self, posterior: PairwiseGPPosterior, best: int):
        from botorch.acquisition.preference import AnalyticExpectedUtilityOfBestOption

        return AnalyticExpectedUtilityOfBestOption(posterior.model, previous_winner=posterior.inputs[best][None])


class BotorchExpectedImprovement(_IncumbentChallenger):
    """BoTorch's analytic EI over the incumbent's posterior mean, as ``LogExpectedImprovement`` (BoTorch's
    recommended form of analytic EI: the same ranking of candidates, without EI's underflow)."""

    name = "botorch_ei"

    def botorch_acquisition(self, posterior: PairwiseGPPosterior, best: int):
        from botorch.acquisition.analytic import LogExpectedImprovement

        return LogExpectedImprovement(posterior.model, best_f=float(posterior.mean[best]))


PEER_ACQUISITIONS = {"eubo": ExpectedUtilityOfBestOption, "botorch_ei": BotorchExpectedImprovement}
