"""GPPL: Gaussian-process preference learning with a probit likelihood (Chu & Ghahramani 2005, BO).

The prior scores become the GP prior mean (BO's warm start): m = prior_scale * standardize(prior). The
kernel is RBF with one length scale per feature (ARD), by default BO's median heuristic, times
``output_scale``. The posterior is a Laplace approximation computed over the compared candidates only
(see ``assistant.ranking.laplace``), which is what makes one update cheap at 10,000 candidates.

>>> import numpy as np
>>> from assistant.ranking.base import Comparisons
>>> x = np.eye(3)
>>> post = GPPL().fit(x, None, Comparisons.from_winners([(2, 0)])).posterior()
>>> int(post.mean.argmax()), int(post.mean.argmin())
(2, 0)
"""

from __future__ import annotations

import warnings

import numpy as np

from assistant.errors import ConfigError, check_fitted
from assistant.ranking.base import Comparisons, PreferenceModel, check_inputs, standardize
from assistant.ranking.laplace import KernelPosterior, LaplaceFit, laplace_mode


def median_lengthscales(features: np.ndarray, max_pairs: int = 2000, seed: int = 0) -> np.ndarray:
    """[D] BO's median heuristic: per dimension the median absolute difference between candidates, times sqrt(D).

    The sqrt(D) keeps the summed squared distance over D dimensions of order one. Differences come from at
    most ``max_pairs`` random pairs (a fixed ``seed``, so the result is deterministic); zero differences are
    ignored, and a constant dimension gets length scale 1.
    """
    x = np.asarray(features, dtype=np.float64)
    n, d = x.shape
    if n < 2:
        return np.ones(d)
    rng = np.random.default_rng(seed)
    if n * (n - 1) // 2 <= max_pairs:
        i, j = np.triu_indices(n, k=1)
    else:
        i = rng.integers(0, n, max_pairs)
        j = rng.integers(0, n, max_pairs)
        keep = i != j
        i, j = i[keep], j[keep]
    diff = np.abs(x[i] - x[j])
    diff[diff == 0] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns: constant dimensions
        med = np.nanmedian(diff, axis=0)
    med = np.where(np.isfinite(med) & (med > 0), med, 1.0)
    return med * np.sqrt(d)


class RBFKernel:
    """k(x, x') = output_scale * exp(-0.5 * sum_d ((x_d - x'_d) / lengthscale_d)^2) over fixed candidates.

    Scaled features and squared norms are computed once per candidate set: an interactive update only
    evaluates rows against the compared items.
    """

    def __init__(self, features: np.ndarray, lengthscales: np.ndarray, output_scale: float) -> None:
        self.features = features
        self.lengthscales = lengthscales
        self.output_scale = float(output_scale)
        self.z = features / lengthscales  # [N, D]
        self.sq = np.einsum("nd,nd->n", self.z, self.z)  # [N]
        self._cache: dict[int, np.ndarray] = {}
        self.cache_rows = max(64, min(2048, 20_000_000 // max(len(features), 1)))  # <= ~160 MB of rows

    def rows(self, index: np.ndarray) -> np.ndarray:
        """[k, N] kernel between candidates ``index`` and all candidates (a fresh array).

        Rows are cached per candidate: successive interactive updates add at most two compared items, so
        only their rows are computed (at 10,000 candidates a row costs a [D] x [D, N] product).
        """
        index = np.asarray(index, dtype=np.int64)
        wanted = [int(i) for i in dict.fromkeys(index.tolist())]
        missing = [i for i in wanted if i not in self._cache]
        if missing and len(self._cache) + len(missing) > self.cache_rows:
            # full: start again with just this request's rows (clearing only the old ones would lose rows
            # of ``index`` that were cached)
            self._cache.clear()
            missing = wanted
        if missing:
            zi = self.z[missing]
            d2 = self.sq[missing, None] + self.sq[None, :] - 2.0 * (zi @ self.z.T)
            block = self.output_scale * np.exp(-0.5 * np.clip(d2, 0.0, None))
            self._cache.update(zip(missing, block))
        if len(index) == 0:
            return np.zeros((0, len(self.z)))
        return np.stack([self._cache[int(i)] for i in index])

    def block(self, index: np.ndarray) -> np.ndarray:
        """[k, k] kernel among the candidates ``index`` (not cached: O(k^2 D))."""
        index = np.asarray(index, dtype=np.int64)
        zi = self.z[index]
        d2 = self.sq[index, None] + self.sq[None, index] - 2.0 * (zi @ zi.T)
        return self.output_scale * np.exp(-0.5 * np.clip(d2, 0.0, None))

    def diag(self) -> np.ndarray:
        return np.full(len(self.z), self.output_scale)


class GPPL(PreferenceModel):
    """GP preference learning, probit likelihood, Laplace posterior.

    The defaults (output scale 4, prior scale 0.5, length-scale factor 2) were chosen on the dev split of
    StackExchange beer (see ``assistant.evaluation.cqa.protocol.RankerSettings``).

    Parameters
    ----------
    output_scale : kernel variance (BoTorch's ``ScaleKernel.outputscale``).
    prior_scale : the prior mean is ``prior_scale * standardize(prior)``; 0 gives a zero prior mean.
    standardize_prior : standardise the prior scores first (BO's setting needs it; see DESIGN.md).
    noise : sigma of the probit, P(a > b | f) = Phi((f_a - f_b) / (sqrt(2) sigma)) (BoTorch fixes it at 1).
    lengthscale : None for the median heuristic, else a scalar or [D] array.
    lengthscale_factor : multiplies the median-heuristic length scales.
    jitter : added to the kernel diagonal.
    """

    name = "gppl"
    bayesian = True

    def __init__(
        self,
        output_scale: float = 4.0,
        prior_scale: float = 0.5,
        standardize_prior: bool = True,
        noise: float = 1.0,
        lengthscale: float | np.ndarray | None = None,
        lengthscale_factor: float = 2.0,
        jitter: float = 1e-6,
        max_iter: int = 50,
    ) -> None:
        self.output_scale = output_scale
        self.prior_scale = prior_scale
        self.standardize_prior = standardize_prior
        self.noise = noise
        self.lengthscale = lengthscale
        self.lengthscale_factor = lengthscale_factor
        self.jitter = jitter
        self.max_iter = max_iter
        self._kernel: RBFKernel | None = None
        self._kernel_key: tuple = ()

    def _check_params(self) -> None:
        for name in ("output_scale", "noise", "lengthscale_factor"):
            value = getattr(self, name)
            if not (np.isfinite(value) and value > 0):
                raise ConfigError(f"GPPL {name} must be a positive number, got {value!r}")
        if not np.isfinite(self.prior_scale) or self.prior_scale < 0:
            raise ConfigError(f"GPPL prior_scale must be >= 0, got {self.prior_scale!r}")
        if self.jitter < 0:
            raise ConfigError(f"GPPL jitter must be >= 0, got {self.jitter!r}")

    def _key(self, features: np.ndarray) -> tuple:
        return (id(features), float(self.output_scale), repr(self.lengthscale), float(self.lengthscale_factor))

    def _cached_kernel(self, features: np.ndarray) -> RBFKernel | None:
        """The kernel of the last fit if the candidate set (the same array object) and settings are unchanged."""
        k = self._kernel
        if k is not None and k.features is features and self._kernel_key == self._key(features):
            return k
        return None

    def _prepare_kernel(self, x: np.ndarray, features: np.ndarray) -> RBFKernel:
        key = self._key(features)
        if self.lengthscale is None:
            ls = median_lengthscales(x) * self.lengthscale_factor
        else:
            ls = np.broadcast_to(np.asarray(self.lengthscale, dtype=np.float64), (x.shape[1],)).copy()
            if np.any(ls <= 0):
                raise ConfigError("GPPL lengthscale must be positive")
        k = RBFKernel(x, ls, self.output_scale)
        k.features = features  # the caller's array: identity marks the cached candidate set
        self._kernel, self._kernel_key = k, key
        return k

    def prior_mean(self, prior: np.ndarray) -> np.ndarray:
        """[N] the GP prior mean from the prior scores."""
        base = standardize(prior) if self.standardize_prior else np.asarray(prior, dtype=np.float64)
        return self.prior_scale * base

    def predict_mean(self, features: np.ndarray, prior: np.ndarray) -> np.ndarray:
        """[M] posterior mean of M new items (not among the fitted candidates) with ``features`` [M, D] and
        ``prior`` scores [M]: their prior mean on the fitted candidates' scale plus k(new, compared) alpha.

        The prior is standardised with the fitted candidates' mean and spread, the kernel is the fitted one
        (same length scales and output scale), so a fitted candidate passed again gets its posterior mean.
        """
        check_fitted(self, "posterior_", "prior_stats_", "fit_")
        assert self._kernel is not None  # every fit prepares one
        x = np.asarray(features, dtype=np.float64)
        p = np.asarray(prior, dtype=np.float64).reshape(-1)
        if x.ndim != 2 or x.shape[1] != self._kernel.z.shape[1] or len(p) != len(x):
            raise ConfigError(f"predict_mean needs [M, {self._kernel.z.shape[1]}] features and [M] prior scores")
        mean, sd = self.prior_stats_
        base = (p - mean) / sd if self.standardize_prior else p
        value = self.prior_scale * base
        fit = self.fit_
        if fit is not None and len(fit.items):
            kernel = self._kernel
            z = x / kernel.lengthscales
            items = kernel.z[fit.items]
            d2 = np.einsum("md,md->m", z, z)[:, None] + kernel.sq[fit.items][None, :] - 2.0 * z @ items.T
            value = value + kernel.output_scale * np.exp(-0.5 * np.clip(d2, 0.0, None)) @ fit.alpha
        return value

    def fit(self, features: np.ndarray, prior: np.ndarray | None, comparisons: Comparisons) -> GPPL:
        """Fit on ``comparisons`` over candidates ``features`` [N, D] with ``prior`` [N] (None = zeros)."""
        self._check_params()
        kernel = self._cached_kernel(features)
        # The feature check (a pass over N x D values) is skipped while the candidate set is cached.
        x, p = check_inputs(features if kernel is None else kernel.z[:1], prior, comparisons, n=len(features))
        if kernel is None:
            kernel = self._prepare_kernel(x, features)
        m = self.prior_mean(p)
        self.prior_stats_ = (float(p.mean()), float(p.std()) if p.std() > 1e-12 else np.inf)
        prior_var = kernel.diag() + self.jitter
        if len(comparisons) == 0:
            self.posterior_ = KernelPosterior(
                m, prior_var, np.zeros((len(features), 0)), None, self._rows(kernel), self._block(kernel)
            )
            self.fit_: LaplaceFit | None = None  # no comparisons: the prior alone
            return self
        items = np.unique(comparisons.pairs)
        K_SN = kernel.rows(items)  # [s, N]
        K_SS = K_SN[:, items] + self.jitter * np.eye(len(items))
        fit: LaplaceFit = laplace_mode(
            K_SS, m[items], comparisons, items, "probit", 1.0 / (np.sqrt(2.0) * self.noise), self.max_iter
        )
        K_NS = K_SN.T.copy()
        K_NS[items, np.arange(len(items))] += self.jitter
        self.fit_ = fit
        self.posterior_ = KernelPosterior(m, prior_var, K_NS, fit, self._rows(kernel), self._block(kernel))
        return self

    def _rows(self, kernel: RBFKernel):
        jitter = self.jitter

        def rows(idx: np.ndarray) -> np.ndarray:
            r = kernel.rows(idx)
            r[np.arange(len(idx)), idx] += jitter
            return r

        return rows

    def _block(self, kernel: RBFKernel):
        jitter = self.jitter

        def block(idx: np.ndarray) -> np.ndarray:
            return kernel.block(idx) + jitter * np.eye(len(idx))

        return block

    def posterior(self) -> KernelPosterior:
        check_fitted(self, "posterior_")
        return self.posterior_
