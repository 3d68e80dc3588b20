"""Laplace approximation for pairwise-preference GPs, over the compared candidates only.

The latent utilities f ~ N(m, K). A comparison (a, b) with soft label y (1 = a wins, 0 = b wins, 0.5 = tie)
has log-likelihood  y log F(z) + (1 - y) log F(-z)  with z = c (f_a - f_b), where F is the standard normal
CDF (probit, Chu & Ghahramani 2005; c = 1 / (sqrt(2) sigma)) or the logistic sigmoid (Bradley-Terry, c = 1).
Both are log-concave, so Newton's method finds the unique mode.

Only the s <= 2P compared candidates enter Newton (s x s systems, microseconds at P = 20). Every other
candidate j follows from the GP conditional (Rasmussen & Williams, 3.4):

    mean_j      = m_j + K_jS alpha                       alpha = grad log p(y | f_S) at the mode
    cov(i, j)   = K_ij - K_iS C K_Sj                     C = (I + W K_SS)^-1 W = (K_SS + W^-1)^-1

where W = -Hessian of the log-likelihood (s x s, rank <= P). ``C`` is formed without inverting W, which is
singular whenever fewer pairs than items were compared.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy.special import expit, log_ndtr

from assistant.ranking.base import Comparisons, Posterior

Link = Literal["probit", "logistic"]
_SQRT_2PI = np.sqrt(2.0 * np.pi)


def _probit_terms(z: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Log-likelihood [P], its first derivative [P] and minus its second derivative [P] in z (probit)."""
    log_pos, log_neg = log_ndtr(z), log_ndtr(-z)
    # Inverse Mills ratios phi(z)/Phi(z) and phi(z)/Phi(-z), computed in log space for large |z|.
    log_phi = -0.5 * z**2 - np.log(_SQRT_2PI)
    r_pos, r_neg = np.exp(log_phi - log_pos), np.exp(log_phi - log_neg)
    loglik = y * log_pos + (1.0 - y) * log_neg
    grad = y * r_pos - (1.0 - y) * r_neg
    neg_hess = y * r_pos * (z + r_pos) + (1.0 - y) * r_neg * (r_neg - z)
    return loglik, grad, neg_hess


def _logistic_terms(z: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The same three terms for the logistic link (Bradley-Terry)."""
    s = expit(z)
    loglik = y * -np.logaddexp(0.0, -z) + (1.0 - y) * -np.logaddexp(0.0, z)
    return loglik, y - s, s * (1.0 - s)


@dataclass
class LaplaceFit:
    """The mode of p(f_S | comparisons) and the matrices the posterior needs.

    ``items`` [s] are the compared candidates (global indices); ``alpha`` [s]; ``C`` [s, s].
    """

    items: np.ndarray
    alpha: np.ndarray
    C: np.ndarray
    iterations: int


def laplace_mode(
    K: np.ndarray,
    mean: np.ndarray,
    comparisons: Comparisons,
    items: np.ndarray,
    link: Link,
    scale: float,
    max_iter: int = 50,
    tol: float = 1e-9,
) -> LaplaceFit:
    """Newton's method for the Laplace approximation over the compared candidates.

    ``K`` [s, s] and ``mean`` [s] are the prior covariance and mean of f at ``items``; Newton runs on alpha
    with f_S = mean + K alpha. ``scale`` is the factor c in z = c (f_a - f_b).
    """
    s = len(items)
    local = {int(g): i for i, g in enumerate(items)}
    first = np.array([local[int(a)] for a in comparisons.pairs[:, 0]], dtype=np.int64)
    second = np.array([local[int(b)] for b in comparisons.pairs[:, 1]], dtype=np.int64)
    y = comparisons.outcomes
    terms: Callable = _probit_terms if link == "probit" else _logistic_terms

    def evaluate(alpha: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
        f = K @ alpha  # f_S - mean
        full = mean + f
        z = scale * (full[first] - full[second])
        loglik, g, w = terms(z, y)
        psi = float(loglik.sum() - 0.5 * alpha @ f)
        return psi, f, g, w

    def gradient_and_w(g: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        grad = np.zeros(s)
        np.add.at(grad, first, scale * g)
        np.add.at(grad, second, -scale * g)
        W = np.zeros((s, s))
        c2w = scale**2 * w
        np.add.at(W, (first, first), c2w)
        np.add.at(W, (second, second), c2w)
        np.add.at(W, (first, second), -c2w)
        np.add.at(W, (second, first), -c2w)
        return grad, W

    alpha = np.zeros(s)
    psi, f, g, w = evaluate(alpha)
    eye = np.eye(s)
    iterations = 0
    for iterations in range(1, max_iter + 1):  # noqa: B007 - the count is reported
        grad, W = gradient_and_w(g, w)
        b = W @ f + grad
        target = np.linalg.solve(eye + W @ K, b)
        # Newton is exact for log-concave likelihoods near the mode; halve the step if it overshoots.
        step = 1.0
        while True:
            candidate = alpha + step * (target - alpha)
            new_psi, new_f, new_g, new_w = evaluate(candidate)
            if new_psi >= psi - 1e-12 or step < 1e-4:
                break
            step *= 0.5
        converged = abs(new_psi - psi) < tol * (1.0 + abs(psi))
        alpha, psi, f, g, w = candidate, new_psi, new_f, new_g, new_w
        if converged:
            break
    grad, W = gradient_and_w(g, w)
    C = np.linalg.solve(eye + W @ K, W)
    C = 0.5 * (C + C.T)
    # At the mode alpha equals the likelihood gradient; using the gradient keeps the mean consistent with C.
    return LaplaceFit(items=np.asarray(items, dtype=np.int64), alpha=grad, C=C, iterations=iterations)


class KernelPosterior(Posterior):
    """The Laplace posterior over all N candidates, with covariance rows computed on demand.

    ``kernel(rows)`` returns the prior covariance [k, N] between the candidates ``rows`` and all candidates,
    ``block(rows)`` (optional) the prior covariance [k, k] among them;
    ``K_NS`` [N, s] is the prior covariance with the compared items; ``prior_var`` [N] the prior variances.
    Memory is O(N s); a covariance row costs O(N (s + D)).
    """

    def __init__(
        self,
        prior_mean: np.ndarray,
        prior_var: np.ndarray,
        K_NS: np.ndarray,
        fit: LaplaceFit | None,
        kernel: Callable[[np.ndarray], np.ndarray],
        block: Callable[[np.ndarray], np.ndarray] | None = None,
    ) -> None:
        self._kernel = kernel
        self._block = block
        self._K_NS = K_NS
        self._fit = fit
        if fit is None or len(fit.items) == 0:
            self.mean = prior_mean.copy()
            self.variance = prior_var.copy()
            self._KC = None
        else:
            self.mean = prior_mean + K_NS @ fit.alpha
            self._KC = K_NS @ fit.C  # [N, s]
            self.variance = np.clip(prior_var - np.einsum("ns,ns->n", self._KC, K_NS), 1e-12, None)

    def cov_rows(self, index: Sequence[int] | np.ndarray) -> np.ndarray:
        idx = np.atleast_1d(np.asarray(index, dtype=np.int64))
        rows = self._kernel(idx)
        if self._KC is not None:
            rows = rows - self._KC[idx] @ self._K_NS.T
        return rows

    def cov_block(self, index: Sequence[int] | np.ndarray) -> np.ndarray:
        """[k, k] covariance among ``index``: with the prior's ``block`` this costs O(k^2 (s + D)), not the
        O(k N (s + D)) of whole rows (the pools of the pair-scoring acquisitions at 10,000 candidates)."""
        idx = np.atleast_1d(np.asarray(index, dtype=np.int64))
        if self._block is None:
            return super().cov_block(idx)
        block = self._block(idx)
        if self._KC is not None:
            block = block - self._KC[idx] @ self._K_NS[idx].T
        return block
