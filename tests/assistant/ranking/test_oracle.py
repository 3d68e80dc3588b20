"""The ranking metrics against the formulas they replaced, worked by hand in numpy (ties, k, tiny inputs)."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.errors import ConfigError
from assistant.ranking.oracle import ndcg_at_k


def reference_ndcg_at_k(scores: np.ndarray, gains: np.ndarray, k: int) -> float:
    """The hand-written NDCG@k ``ndcg_at_k`` was before scikit-learn: stable order among tied scores."""
    gains = np.asarray(gains, dtype=np.float64)
    order = np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")[:k]
    discounts = 1.0 / np.log2(np.arange(2, len(order) + 2))
    dcg = float(np.sum(gains[order] * discounts))
    ideal = float(np.sum(np.sort(gains)[::-1][: len(order)] * discounts))
    return dcg / ideal if ideal > 0 else 0.0


@pytest.mark.parametrize("seed", range(40))
def test_ndcg_at_k_matches_the_formula_it_replaced(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 30))
    # integer scores and gains make ties on both sides; some gain vectors are all zero
    scores = rng.integers(0, 4, n).astype(float) if seed % 2 else rng.normal(size=n)
    gains = rng.integers(0, 3, n).astype(float) if seed % 3 else rng.uniform(0, 1, n) * (seed % 5 != 0)
    for k in (0, 1, 2, 5, n, n + 3):
        assert ndcg_at_k(scores, gains, k) == pytest.approx(reference_ndcg_at_k(scores, gains, k), abs=1e-12)


def test_ndcg_at_k_worked_by_hand():
    # ranked by score: gains 1, 3, 0 (the tie between candidates 0 and 1 keeps their order); ideal 3, 1, 0
    value = ndcg_at_k(np.array([2.0, 2.0, 1.0]), np.array([1.0, 3.0, 0.0]), k=2)
    assert value == pytest.approx((1 + 3 / np.log2(3)) / (3 + 1 / np.log2(3)))
    assert ndcg_at_k(np.array([0.5]), np.array([2.0])) == 1.0
    assert ndcg_at_k(np.array([]), np.array([])) == 0.0
    assert ndcg_at_k(np.array([1.0, 2.0]), np.zeros(2)) == 0.0
    with pytest.raises(ConfigError):
        ndcg_at_k(np.array([1.0, 2.0]), np.array([-1.0, 1.0]))
