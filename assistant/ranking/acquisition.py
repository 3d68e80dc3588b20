"""Acquisition functions: which pair of candidates to show next (BO section 4, BDL).

One small class per strategy (BoTorch style). ``select(posterior, seen, rng)`` returns the next pair
``(a, b)`` of candidate indices, never one in ``seen`` (unordered pairs already compared), or None when
every pair has been compared. Closed-form scores are module functions so tests can check them against
brute force.

Pair-scoring strategies (EIG, UNPA, UNC) score all pairs of a *pool*: every candidate when N <= pool_size,
else the pool_size candidates with the highest upper bound mean + 2 sd (the best is almost surely there),
so that a step stays O(N) at 10,000 candidates.

Shapes: mean, variance [N]; pair arrays [M]; pools [k].
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np
from scipy.special import expit, ndtr

from assistant.errors import ConfigError
from assistant.ranking.base import Posterior

_BALD_C2 = np.pi * np.log(2.0) / 2.0  # C^2 of Houlsby et al. (2011): Phi(x) ~ exp(-x^2 / (pi ln 2))


# ---- closed-form scores ----------------------------------------------------------------------------------
def expected_improvement(delta: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """E[max(d, 0)] for d ~ N(delta, sd^2), elementwise: delta Phi(delta/sd) + sd phi(delta/sd).

    ``sd`` = 0 gives max(delta, 0).
    """
    delta = np.asarray(delta, dtype=np.float64)
    sd = np.asarray(sd, dtype=np.float64)
    safe = np.where(sd > 1e-12, sd, 1.0)
    u = delta / safe
    ei = delta * ndtr(u) + safe * np.exp(-0.5 * u**2) / np.sqrt(2.0 * np.pi)
    return np.where(sd > 1e-12, ei, np.maximum(delta, 0.0))


def binary_entropy(p: np.ndarray) -> np.ndarray:
    """Entropy in nats of a Bernoulli(p)."""
    p = np.clip(np.asarray(p, dtype=np.float64), 1e-12, 1 - 1e-12)
    return -(p * np.log(p) + (1 - p) * np.log(1 - p))


def preference_probability(delta: np.ndarray, var: np.ndarray, noise: float = 1.0) -> np.ndarray:
    """P(a > b) = E[Phi((f_a - f_b) / (sqrt(2) noise))] for f_a - f_b ~ N(delta, var) (probit, in closed form)."""
    return ndtr(np.asarray(delta) / np.sqrt(2.0 * noise**2 + np.asarray(var)))


def bald_information_gain(delta: np.ndarray, var: np.ndarray, noise: float = 1.0) -> np.ndarray:
    """Mutual information (nats) between a pair's answer and the utilities: BALD's closed form (Houlsby et al.).

    I = H[E[Phi(z)]] - E[H[Phi(z)]] with z = (f_a - f_b) / (sqrt(2) noise) ~ N(mu, s^2); the second term uses
    H[Phi(x)] ~ ln 2 exp(-x^2 / (pi ln 2)), integrated exactly: ln 2 * C / sqrt(s^2 + C^2) exp(-mu^2 / 2(s^2 + C^2)).
    """
    c = np.sqrt(2.0) * noise
    mu = np.asarray(delta, dtype=np.float64) / c
    s2 = np.asarray(var, dtype=np.float64) / c**2
    first = binary_entropy(ndtr(mu / np.sqrt(1.0 + s2)))
    second = np.log(2.0) * np.sqrt(_BALD_C2 / (s2 + _BALD_C2)) * np.exp(-(mu**2) / (2.0 * (s2 + _BALD_C2)))
    return np.clip(first - second, 0.0, None)


# ---- helpers ---------------------------------------------------------------------------------------------
def _key(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def pair_moments(posterior: Posterior, pool: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """All pairs i < j of ``pool``: (a [M], b [M], mean difference [M], variance of the difference [M])."""
    cov = posterior.cov_block(pool)
    ia, ib = np.triu_indices(len(pool), k=1)
    mean = posterior.mean[pool]
    delta = mean[ia] - mean[ib]
    var = np.clip(cov[ia, ia] + cov[ib, ib] - 2.0 * cov[ia, ib], 0.0, None)
    return pool[ia], pool[ib], delta, var


def candidate_pool(posterior: Posterior, pool_size: int) -> np.ndarray:
    """[k] the candidates pair-scoring strategies consider (all, or the top ``pool_size`` by mean + 2 sd)."""
    n = posterior.num_candidates
    if n <= pool_size:
        return np.arange(n)
    ucb = posterior.mean + 2.0 * np.sqrt(posterior.variance)
    return np.sort(np.argpartition(-ucb, pool_size - 1)[:pool_size])


def _best_unseen(a: np.ndarray, b: np.ndarray, score: np.ndarray, seen: set[tuple[int, int]]) -> tuple[int, int] | None:
    """The highest-scoring pair not in ``seen`` (ties broken by the lowest index, deterministically)."""
    order = np.argsort(-score, kind="stable")
    for k in order:
        pair = (int(a[k]), int(b[k]))
        if _key(*pair) not in seen:
            return pair
    return None


def _all_pairs_seen(n: int, seen: set[tuple[int, int]]) -> bool:
    return len(seen) >= n * (n - 1) // 2


# ---- strategies ------------------------------------------------------------------------------------------
class AcquisitionFunction(ABC):
    """Chooses the next pair from a posterior. ``needs_uncertainty``: useless with a point estimate."""

    name: str = "acquisition"
    needs_uncertainty: bool = True

    def __init__(self, noise: float = 1.0, pool_size: int = 150) -> None:
        """``noise``: the preference likelihood's (the model's); ``pool_size``: see ``candidate_pool``."""
        self.noise = noise
        self.pool_size = pool_size

    @abstractmethod
    def select(
        self, posterior: Posterior, seen: set[tuple[int, int]], rng: np.random.Generator
    ) -> tuple[int, int] | None:
        """The next pair (a, b), a != b, not in ``seen``; None when no pair is left."""


class RandomPairs(AcquisitionFunction):
    """A uniformly random pair not compared before."""

    name = "random"
    needs_uncertainty = False

    def select(
        self, posterior: Posterior, seen: set[tuple[int, int]], rng: np.random.Generator
    ) -> tuple[int, int] | None:
        n = posterior.num_candidates
        if n < 2 or _all_pairs_seen(n, seen):
            return None
        # Rejection sampling is fast while few pairs are seen; enumerate the rest when it is not.
        for _ in range(64):
            a, b = (int(v) for v in rng.choice(n, size=2, replace=False))
            if _key(a, b) not in seen:
                return a, b
        ia, ib = np.triu_indices(n, k=1)
        free = [k for k in range(len(ia)) if (int(ia[k]), int(ib[k])) not in seen]
        k = free[int(rng.integers(len(free)))]
        return int(ia[k]), int(ib[k])


class ExpectedImprovement(AcquisitionFunction):
    """IMP (BO) / EI (BDL): the current best (highest mean) against the candidate with the highest EI over it.

    EI_j = E[max(f_j - f_best, 0)], in closed form from the joint posterior of (f_j, f_best). When the best
    has been compared with every candidate, the next best in posterior mean takes its place.
    """

    name = "imp"

    def scores(self, posterior: Posterior, best: int) -> np.ndarray:
        """[N] EI of each candidate over candidate ``best`` (``best`` itself gets -inf)."""
        row = posterior.cov_rows([best])[0]
        var = posterior.variance + posterior.variance[best] - 2.0 * row
        ei = expected_improvement(posterior.mean - posterior.mean[best], np.sqrt(np.clip(var, 0.0, None)))
        ei[best] = -np.inf
        return ei

    def select(
        self, posterior: Posterior, seen: set[tuple[int, int]], rng: np.random.Generator
    ) -> tuple[int, int] | None:
        n = posterior.num_candidates
        if n < 2 or _all_pairs_seen(n, seen):
            return None
        # Usually the first choice is free: try argmax before sorting (a sort costs ms at 10,000 candidates).
        best = int(np.argmax(posterior.mean))
        ei = self.scores(posterior, best)
        j = int(np.argmax(ei))
        if _key(best, j) not in seen:
            return best, j
        for best in np.argsort(-posterior.mean, kind="stable")[: min(n, 50)]:
            best = int(best)
            ei = self.scores(posterior, best)
            for j in np.argsort(-ei, kind="stable")[: n - 1]:
                if _key(best, int(j)) not in seen:
                    return best, int(j)
        return RandomPairs().select(posterior, seen, rng)


class _PooledPairScore(AcquisitionFunction):
    """Scores every pair within a pool of likely-best candidates by its predictive moments; best unseen wins."""

    @abstractmethod
    def pair_scores(self, delta: np.ndarray, var: np.ndarray) -> np.ndarray:
        """Score [P] of each pair from the mean [P] and variance [P] of f(a) - f(b); higher is better."""

    def select(
        self, posterior: Posterior, seen: set[tuple[int, int]], rng: np.random.Generator
    ) -> tuple[int, int] | None:
        a, b, delta, var = pair_moments(posterior, candidate_pool(posterior, self.pool_size))
        found = _best_unseen(a, b, self.pair_scores(delta, var), seen)
        return found if found is not None else RandomPairs().select(posterior, seen, rng)


class InformationGain(_PooledPairScore):
    """EIG: the pair whose answer is most informative about the utilities (BALD, closed form)."""

    name = "eig"

    def pair_scores(self, delta: np.ndarray, var: np.ndarray) -> np.ndarray:
        return bald_information_gain(delta, var, self.noise)


class PairUncertainty(_PooledPairScore):
    """UNPA: the pair whose predicted preference probability (integrating the posterior) is closest to 0.5."""

    name = "unpa"

    def pair_scores(self, delta: np.ndarray, var: np.ndarray) -> np.ndarray:
        return -np.abs(preference_probability(delta, var, self.noise) - 0.5)


class Uncertainty(AcquisitionFunction):
    """UNC for Bradley-Terry (and other point estimates): the pair whose point-estimate probability
    sigmoid(u_a - u_b) is closest to 0.5, i.e. the smallest utility gap. Ignores the variance."""

    name = "unc"
    needs_uncertainty = False

    def select(
        self, posterior: Posterior, seen: set[tuple[int, int]], rng: np.random.Generator
    ) -> tuple[int, int] | None:
        n = posterior.num_candidates
        pool = np.arange(n) if n <= self.pool_size else np.sort(np.argsort(-posterior.mean)[: self.pool_size])
        ia, ib = np.triu_indices(len(pool), k=1)
        a, b = pool[ia], pool[ib]
        p = expit(posterior.mean[a] - posterior.mean[b])
        found = _best_unseen(a, b, -np.abs(p - 0.5), seen)
        return found if found is not None else RandomPairs().select(posterior, seen, rng)


class ThompsonPairs(AcquisitionFunction):
    """TP: a Thompson sample picks the first candidate (the argmax of one joint posterior draw); its partner
    is the candidate whose comparison with it has the highest information gain (BALD)."""

    name = "tp"

    def select(
        self, posterior: Posterior, seen: set[tuple[int, int]], rng: np.random.Generator
    ) -> tuple[int, int] | None:
        n = posterior.num_candidates
        if n < 2 or _all_pairs_seen(n, seen):
            return None
        pool = candidate_pool(posterior, self.pool_size)
        draw = posterior.sample(pool, 1, rng)[0]
        for first in pool[np.argsort(-draw, kind="stable")]:
            first = int(first)
            row = posterior.cov_rows([first])[0]
            delta = posterior.mean[first] - posterior.mean
            var = np.clip(posterior.variance[first] + posterior.variance - 2.0 * row, 0.0, None)
            gain = bald_information_gain(delta, var, self.noise)
            gain[first] = -np.inf
            for j in np.argsort(-gain, kind="stable"):
                if j != first and _key(first, int(j)) not in seen:
                    return first, int(j)
        return RandomPairs().select(posterior, seen, rng)


ACQUISITIONS: dict[str, type[AcquisitionFunction]] = {
    "imp": ExpectedImprovement,
    "tp": ThompsonPairs,
    "eig": InformationGain,
    "unpa": PairUncertainty,
    "unc": Uncertainty,
    "random": RandomPairs,
}
# BDL calls IMP "EI": accept both names.
ALIASES = {"ei": "imp"}


def acquisition_fits(acquisition: type[AcquisitionFunction] | AcquisitionFunction, model) -> bool:
    """Whether ``acquisition`` suits ``model`` (class or instance): strategies that read the posterior's
    uncertainty need a Bayesian model, UNC needs a point estimate (it would ignore a real posterior's
    covariance), and random pairs suit every model."""
    if acquisition.name == "random":
        return True
    return acquisition.needs_uncertainty == model.bayesian


def make_acquisition(name: str, noise: float = 1.0) -> AcquisitionFunction:
    """The acquisition called ``name`` (imp/ei, tp, eig, unpa, unc, random)."""
    key = ALIASES.get(name.lower(), name.lower())
    if key not in ACQUISITIONS:
        raise ConfigError(f"unknown acquisition {name!r}: use one of {', '.join(ACQUISITIONS)} (or 'ei' for imp)")
    return ACQUISITIONS[key](noise=noise)


def first_pair(prior: np.ndarray, features: np.ndarray) -> tuple[int, int]:
    """BO's first pair: the best candidate under the prior against the one least similar to it (cosine)."""
    prior = np.asarray(prior, dtype=np.float64)
    x = np.asarray(features, dtype=np.float64)
    if len(prior) < 2:
        raise ConfigError("a comparison needs at least two candidates")
    best = int(np.argmax(prior))
    norms = np.linalg.norm(x, axis=1)
    sims = (x @ x[best]) / np.where(norms > 0, norms, 1.0) / max(norms[best], 1e-12)
    sims[best] = np.inf
    return best, int(np.argmin(sims))
