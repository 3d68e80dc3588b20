"""The noisy simulated user, the stop rule and ranking metrics.

Simulated user (BO): P(a > b) = sigmoid((g_a - g_b) / t) for gold utilities g and noise level t (0.3 by
default). Its randomness is one uniform draw per interaction, fixed in advance, so that every strategy
evaluated on a question faces the *same* oracle draws (answer k is "a" iff u_k < P(a > b)).
"""

from __future__ import annotations

from enum import StrEnum

import numpy as np
from scipy.special import expit

from assistant.errors import ConfigError
from assistant.ranking.acquisition import candidate_pool
from assistant.ranking.base import Posterior


class NoisyOracle:
    """A simulated user with gold utilities ``g`` [N] and noise level ``t`` (> 0).

    ``draws`` [budget] are the uniforms of successive answers (from ``rng`` when not given).
    ``tie_margin``: answer "tie" when |g_a - g_b| <= tie_margin (0 = never, the default).
    """

    def __init__(
        self,
        utilities: np.ndarray,
        t: float = 0.3,
        rng: np.random.Generator | None = None,
        budget: int = 1000,
        draws: np.ndarray | None = None,
        tie_margin: float = 0.0,
    ) -> None:
        if not (np.isfinite(t) and t > 0):
            raise ConfigError(f"oracle noise level t must be positive, got {t!r}")
        self.utilities = np.asarray(utilities, dtype=np.float64)
        self.t = float(t)
        self.tie_margin = float(tie_margin)
        if draws is None:
            draws = (rng if rng is not None else np.random.default_rng(0)).random(budget)
        self.draws = np.asarray(draws, dtype=np.float64)
        self.step = 0

    def probability(self, a: int, b: int) -> float:
        """P(the user prefers a over b)."""
        return float(expit((self.utilities[a] - self.utilities[b]) / self.t))

    def answer(self, a: int, b: int) -> str:
        """'left' (a preferred), 'right' (b preferred) or 'tie'; consumes one draw."""
        if self.step >= len(self.draws):
            raise ConfigError(f"the oracle has only {len(self.draws)} pre-drawn answers; give it a larger budget")
        u = self.draws[self.step]
        self.step += 1
        if self.tie_margin > 0 and abs(self.utilities[a] - self.utilities[b]) <= self.tie_margin:
            return "tie"
        return "left" if u < self.probability(a, b) else "right"


def probability_best(
    posterior: Posterior, rng: np.random.Generator, samples: int = 500, pool_size: int = 50
) -> tuple[int, float]:
    """(current best by posterior mean, Monte Carlo P(it has the highest utility)).

    Joint samples over the ``pool_size`` candidates with the highest mean + 2 sd (a candidate outside it
    is very unlikely to be the best; at small N the pool is every candidate).
    """
    best = int(np.argmax(posterior.mean))
    if posterior.num_candidates < 2:
        return best, 1.0
    pool = candidate_pool(posterior, pool_size)
    if best not in pool:
        pool = np.append(pool, best)
    draws = posterior.sample(pool, samples, rng)
    winners = pool[np.argmax(draws, axis=1)]
    return best, float(np.mean(winners == best))


class RankingStopReason(StrEnum):
    """Why a ranking session stopped asking for comparisons: P(current best is best) passed the threshold;
    the comparison budget is spent; no pair is left to show; there is one candidate; every candidate, or
    every one but one, was ruled out ("neither is relevant"). Older names are read as today's."""

    CONFIDENT = "confident"
    BUDGET = "budget"
    NO_PAIR_LEFT = "no_pair_left"
    SINGLE_CANDIDATE = "single_candidate"
    ALL_RULED_OUT = "all_ruled_out"
    ONE_LEFT = "one_left"

    @classmethod
    def _missing_(cls, value: object) -> RankingStopReason | None:
        legacy = {"exhausted": cls.NO_PAIR_LEFT, "single candidate": cls.SINGLE_CANDIDATE}
        legacy |= {"all ruled out": cls.ALL_RULED_OUT, "one left": cls.ONE_LEFT}
        return legacy.get(str(value))


class RankingStopRule:
    """Stop when P(current best is best) > ``threshold`` or after ``budget`` comparisons."""

    def __init__(self, threshold: float = 0.9, budget: int = 10, samples: int = 500) -> None:
        if not 0 < threshold <= 1:
            raise ConfigError(f"stop threshold must lie in (0, 1], got {threshold!r}")
        if budget < 0:
            raise ConfigError(f"comparison budget must be >= 0, got {budget!r}")
        self.threshold = threshold
        self.budget = budget
        self.samples = samples

    def should_stop(self, comparisons_made: int, confidence: float) -> RankingStopReason | None:
        """The reason to stop (confident, else budget), or None to go on."""
        if confidence > self.threshold:
            return RankingStopReason.CONFIDENT
        if comparisons_made >= self.budget:
            return RankingStopReason.BUDGET
        return None


def ndcg_at_k(scores: np.ndarray, gains: np.ndarray, k: int = 5) -> float:
    """NDCG@k (scikit-learn's ``ndcg_score``: discounts 1 / log2(rank + 1)) of ranking candidates by ``scores``
    [N] (descending) with gold ``gains`` [N] >= 0; 0.0 when no gain is positive or k < 1. Tied scores keep their
    order, the lower index first: scikit-learn gets the stable ranks instead of the scores, so it sees no ties."""
    from sklearn.metrics import ndcg_score  # imported here: only evaluations score rankings, a session never

    gains = np.asarray(gains, dtype=np.float64)
    if np.any(gains < 0):
        raise ConfigError("NDCG needs gold gains >= 0 (e.g. ROUGE scores or 0/1 labels)")
    if k < 1:
        return 0.0
    if len(gains) < 2:  # scikit-learn wants two candidates; one is its own ideal ranking
        return 1.0 if len(gains) == 1 and gains[0] > 0 else 0.0
    order = np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")
    ranks = np.empty(len(order))
    ranks[order] = np.arange(len(order))
    return float(ndcg_score(gains[None, :], -ranks[None, :], k=k, ignore_ties=True))


def top1_accuracy(scores: np.ndarray, gains: np.ndarray) -> float:
    """1.0 when the top-scored candidate has the highest gold utility (any of the tied best), else 0.0."""
    gains = np.asarray(gains, dtype=np.float64)
    return float(gains[int(np.argmax(scores))] >= gains.max() - 1e-12)
