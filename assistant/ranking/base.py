"""The shared vocabulary of the ranker: comparisons, posteriors and the preference-model interface.

Shapes (N candidates, D feature dimensions, P comparisons, k requested rows)::

    features   [N, D] float64   one feature vector per candidate
    prior      [N]    float64   prior scores (higher = better a priori); GPPL uses them as its prior mean
    pairs      [P, 2] int64     (first, second) candidate indices of each comparison
    outcomes   [P]    float64   1.0 = first preferred, 0.0 = second preferred, 0.5 = tie

A fitted model returns a ``Posterior``: the mean utility of every candidate, its variance, and covariance
*rows* on demand, so that acquisitions at 10,000 candidates never build an N x N matrix.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from assistant.errors import ConfigError

Preference = Literal["left", "right", "tie"]
PREFERENCES: tuple[str, ...] = ("left", "right", "tie")
OUTCOME_OF: dict[str, float] = {"left": 1.0, "right": 0.0, "tie": 0.5}


@dataclass(frozen=True)
class Comparisons:
    """An immutable list of answered comparisons.

    ``pairs[p] = (a, b)`` was shown with a on the left; ``outcomes[p]`` is 1 when a won, 0 when b won and
    0.5 for a tie ("equally good"), i.e. the probability that a is preferred, used as a soft label.
    """

    pairs: np.ndarray
    outcomes: np.ndarray

    def __post_init__(self) -> None:
        pairs = np.asarray(self.pairs, dtype=np.int64).reshape(-1, 2)
        outcomes = np.asarray(self.outcomes, dtype=np.float64).reshape(-1)
        if len(pairs) != len(outcomes):
            raise ConfigError(f"comparisons: {len(pairs)} pairs but {len(outcomes)} outcomes")
        if np.any((outcomes < 0) | (outcomes > 1)):
            raise ConfigError("comparison outcomes must lie in [0, 1] (1 = first wins, 0 = second wins, 0.5 = tie)")
        if np.any(pairs[:, 0] == pairs[:, 1]):
            raise ConfigError("a candidate cannot be compared with itself")
        object.__setattr__(self, "pairs", pairs)
        object.__setattr__(self, "outcomes", outcomes)

    @classmethod
    def empty(cls) -> Comparisons:
        return cls(np.zeros((0, 2), dtype=np.int64), np.zeros(0))

    @classmethod
    def from_winners(
        cls, winners_losers: Iterable[tuple[int, int]], ties: Iterable[tuple[int, int]] = ()
    ) -> Comparisons:
        """(winner, loser) pairs, plus optional tied pairs."""
        wl = [tuple(p) for p in winners_losers]
        tt = [tuple(p) for p in ties]
        return cls(np.array(wl + tt, dtype=np.int64).reshape(-1, 2), np.array([1.0] * len(wl) + [0.5] * len(tt)))

    def __len__(self) -> int:
        return len(self.pairs)

    def add(self, a: int, b: int, outcome: float) -> Comparisons:
        return Comparisons(np.vstack([self.pairs, [[a, b]]]), np.append(self.outcomes, outcome))

    def check(self, n: int) -> None:
        """Raise ConfigError if an index does not address one of ``n`` candidates."""
        if len(self.pairs) and (self.pairs.min() < 0 or self.pairs.max() >= n):
            raise ConfigError(
                f"comparison indices must lie in [0, {n - 1}], got {self.pairs.min()}..{self.pairs.max()}"
            )

    def seen(self) -> set[tuple[int, int]]:
        """Unordered pairs already compared, as (min, max) tuples."""
        return {(int(min(a, b)), int(max(a, b))) for a, b in self.pairs}


class Posterior(ABC):
    """A Gaussian posterior over the utilities of N candidates (possibly low-rank or implicit)."""

    mean: np.ndarray  # [N]
    variance: np.ndarray  # [N]

    @property
    def num_candidates(self) -> int:
        return len(self.mean)

    @abstractmethod
    def cov_rows(self, index: Sequence[int] | np.ndarray) -> np.ndarray:
        """[k, N] covariance between the candidates in ``index`` and every candidate."""

    def cov_block(self, index: Sequence[int] | np.ndarray) -> np.ndarray:
        """[k, k] covariance among the candidates in ``index``."""
        idx = np.asarray(index, dtype=np.int64)
        return self.cov_rows(idx)[:, idx]

    def sample(self, index: Sequence[int] | np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """[size, k] joint samples of the utilities of the candidates in ``index``."""
        idx = np.asarray(index, dtype=np.int64)
        cov = self.cov_block(idx)
        cov = 0.5 * (cov + cov.T)
        # Eigen-decomposition instead of Cholesky: low-rank posteriors (MC dropout) are only semidefinite.
        vals, vecs = np.linalg.eigh(cov)
        root = vecs * np.sqrt(np.clip(vals, 0.0, None))
        z = rng.standard_normal((size, len(idx)))
        return self.mean[idx] + z @ root.T


class DensePosterior(Posterior):
    """A posterior given by its mean [N] and full covariance [N, N] (small N, tests, MC dropout)."""

    def __init__(self, mean: np.ndarray, cov: np.ndarray) -> None:
        self.mean = np.asarray(mean, dtype=np.float64)
        self.cov = np.asarray(cov, dtype=np.float64)
        n = len(self.mean)
        if self.cov.shape != (n, n):
            raise ConfigError(f"covariance has shape {self.cov.shape}, expected ({n}, {n})")
        self.variance = np.clip(np.diag(self.cov).copy(), 0.0, None)

    def cov_rows(self, index: Sequence[int] | np.ndarray) -> np.ndarray:
        return self.cov[np.asarray(index, dtype=np.int64)]


class SamplePosterior(Posterior):
    """The posterior of T Monte Carlo samples [T, N]: mean and sample covariance (rank <= T - 1).

    A small ``jitter`` on the diagonal keeps pair variances positive.
    """

    def __init__(self, samples: np.ndarray, jitter: float = 1e-6) -> None:
        samples = np.asarray(samples, dtype=np.float64)
        if samples.ndim != 2 or samples.shape[0] < 2:
            raise ConfigError("SamplePosterior needs samples of shape [T >= 2, N]")
        self.samples = samples
        self.mean = samples.mean(axis=0)
        self._centered = (samples - self.mean) / np.sqrt(samples.shape[0] - 1)  # [T, N]
        self.jitter = jitter
        self.variance = (self._centered**2).sum(axis=0) + jitter

    def cov_rows(self, index: Sequence[int] | np.ndarray) -> np.ndarray:
        idx = np.asarray(index, dtype=np.int64)
        rows = self._centered[:, idx].T @ self._centered
        rows[np.arange(len(idx)), idx] += self.jitter
        return rows


class PointPosterior(Posterior):
    """A point estimate: zero variance. Non-Bayesian models (the plain deep ranker) return this."""

    def __init__(self, mean: np.ndarray) -> None:
        self.mean = np.asarray(mean, dtype=np.float64)
        self.variance = np.zeros_like(self.mean)

    def cov_rows(self, index: Sequence[int] | np.ndarray) -> np.ndarray:
        return np.zeros((len(np.asarray(index)), len(self.mean)))


class PreferenceModel(ABC):
    """A model of candidate utilities learned from pairwise preferences.

    Constructors only store hyperparameters; ``fit`` validates its inputs and learns; ``posterior`` gives
    the posterior over all candidates' utilities. ``bayesian`` says whether the variance means anything
    (acquisitions that need uncertainty refuse point estimates). ``noise`` is the scale of the probit
    preference likelihood, P(a > b) = Phi((f_a - f_b) / (sqrt(2) noise)); the acquisitions that predict
    answers use the model's.
    """

    name: str = "model"
    bayesian: bool = True
    noise: float = 1.0

    @abstractmethod
    def fit(self, features: np.ndarray, prior: np.ndarray, comparisons: Comparisons) -> PreferenceModel:
        """Learn from ``comparisons`` over candidates with ``features`` [N, D] and ``prior`` scores [N]."""

    @abstractmethod
    def posterior(self) -> Posterior:
        """The posterior over the N candidates' utilities after the last ``fit``."""


def check_inputs(
    features: np.ndarray, prior: np.ndarray | None, comparisons: Comparisons, n: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Validate and convert (features [N, D], prior [N]); a missing prior is all zeros.

    ``n`` overrides the number of candidates (when ``features`` is only a checked-before sample).
    """
    x = np.asarray(features, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] == 0:
        raise ConfigError(f"features must be a non-empty [N, D] array, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ConfigError("features contain NaN or infinite values")
    n = len(x) if n is None else n
    p = np.zeros(n) if prior is None else np.asarray(prior, dtype=np.float64).reshape(-1)
    if len(p) != n:
        raise ConfigError(f"prior has {len(p)} scores but there are {n} candidates")
    if not np.all(np.isfinite(p)):
        raise ConfigError("prior scores contain NaN or infinite values")
    if not isinstance(comparisons, Comparisons):
        raise ConfigError("comparisons must be a Comparisons object (see Comparisons.from_winners)")
    comparisons.check(n)
    return x, p


def standardize(scores: np.ndarray) -> np.ndarray:
    """Zero mean, unit standard deviation (constant scores give zeros)."""
    s = np.asarray(scores, dtype=np.float64)
    sd = s.std()
    return (s - s.mean()) / sd if sd > 1e-12 else np.zeros_like(s)
