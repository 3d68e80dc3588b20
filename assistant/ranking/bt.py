"""Bradley-Terry: logistic regression on feature differences, the baseline of BO (with UNC).

P(a > b) = sigmoid(u_a - u_b) with u = prior_scale * standardize(prior) + w . x and w ~ N(0, I / l2).
By the representer theorem this is a GP with the linear kernel x . x' / l2 and a logistic likelihood, so the
same Laplace machinery as GPPL fits it (over the compared candidates only) and gives a Laplace posterior,
which the stop rule uses. BO treats it as non-Bayesian: its acquisition is UNC (``bayesian = False``).
"""

from __future__ import annotations

import numpy as np

from assistant.errors import ConfigError, check_fitted
from assistant.ranking.base import Comparisons, PreferenceModel, check_inputs, standardize
from assistant.ranking.laplace import KernelPosterior, laplace_mode


class BradleyTerry(PreferenceModel):
    """Bradley-Terry with L2-regularised weights (MAP by Newton) and a Laplace posterior.

    Parameters
    ----------
    l2 : precision of the Gaussian prior on the weights (larger = smoother).
    prior_scale : weight of the standardised prior scores as a fixed offset (0 = ignore the prior).
    """

    name = "bt"
    bayesian = False

    def __init__(self, l2: float = 1.0, prior_scale: float = 1.0, max_iter: int = 50) -> None:
        self.l2 = l2
        self.prior_scale = prior_scale
        self.max_iter = max_iter

    def fit(self, features: np.ndarray, prior: np.ndarray | None, comparisons: Comparisons) -> BradleyTerry:
        """Fit on ``comparisons`` over candidates ``features`` [N, D] with ``prior`` [N] (None = zeros)."""
        if not (np.isfinite(self.l2) and self.l2 > 0):
            raise ConfigError(f"BradleyTerry l2 must be a positive number, got {self.l2!r}")
        if not np.isfinite(self.prior_scale) or self.prior_scale < 0:
            raise ConfigError(f"BradleyTerry prior_scale must be >= 0, got {self.prior_scale!r}")
        x, p = check_inputs(features, prior, comparisons)
        offset = self.prior_scale * standardize(p)
        prior_var = np.einsum("nd,nd->n", x, x) / self.l2

        def rows(idx: np.ndarray) -> np.ndarray:
            return (x[idx] @ x.T) / self.l2

        def block(idx: np.ndarray) -> np.ndarray:
            return (x[idx] @ x[idx].T) / self.l2

        if len(comparisons) == 0:
            self.posterior_ = KernelPosterior(offset, prior_var, np.zeros((len(x), 0)), None, rows, block)
            return self
        items = np.unique(comparisons.pairs)
        K_NS = rows(items).T  # [N, s]
        # A tiny jitter: the linear kernel is singular when D < s.
        K_SS = K_NS[items] + 1e-9 * np.eye(len(items))
        fit = laplace_mode(K_SS, offset[items], comparisons, items, "logistic", 1.0, self.max_iter)
        self.posterior_ = KernelPosterior(offset, prior_var, K_NS, fit, rows, block)
        return self

    def posterior(self) -> KernelPosterior:
        check_fitted(self, "posterior_")
        return self.posterior_
