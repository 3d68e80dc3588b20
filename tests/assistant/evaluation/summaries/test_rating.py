"""The summary-rating metrics (BO Table 5) against the formulas they are defined by, worked in numpy."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.evaluation.summaries.rating import ndcg_at_percent, pearson


def reference_pearson(scores: np.ndarray, gold: np.ndarray) -> float:
    """The hand-written Pearson r ``pearson`` was before scipy (0.0 when a side has no spread)."""
    s, g = scores - scores.mean(), gold - gold.mean()
    denom = np.sqrt((s * s).sum() * (g * g).sum())
    return float((s * g).sum() / denom) if denom > 0 else 0.0


def bo_ndcg_at_k(relevance_in_rank_order: np.ndarray, k: int) -> float:
    """BO's ``rank_metrics.ndcg_at_k`` (method 0: discounts 1, 1, 1/log2(3), ...), as in their code."""

    def dcg(r: np.ndarray) -> float:
        r = np.asarray(r, dtype=np.float64)[:k]
        return float(r[0] + np.sum(r[1:] / np.log2(np.arange(2, r.size + 1)))) if r.size else 0.0

    best = dcg(np.sort(relevance_in_rank_order)[::-1])
    return dcg(relevance_in_rank_order) / best if best else 0.0


@pytest.mark.parametrize("seed", range(20))
def test_pearson_matches_the_formula_it_replaced(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 300))
    gold = rng.uniform(0, 10, n)
    scores = 0.3 * gold + rng.normal(size=n) * rng.uniform(0.1, 5)
    assert pearson(scores, gold) == pytest.approx(reference_pearson(scores, gold), abs=1e-12)


def test_pearson_is_zero_where_it_is_undefined():
    gold = np.array([1.0, 2.0, 4.0])
    assert pearson(np.full(3, 0.25), gold) == 0.0 == reference_pearson(np.full(3, 0.25), gold)
    assert pearson(gold, np.zeros(3)) == 0.0
    assert pearson(np.array([1.0]), np.array([2.0])) == 0.0
    assert pearson(np.array([1.0, 2.0, 3.0]), gold) == pytest.approx(0.9819805060619657)


@pytest.mark.parametrize("seed", range(20))
def test_ndcg_at_percent_is_bos_formula(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 2000))
    gold = rng.uniform(0, 10, n)
    scores = gold + rng.normal(size=n) * 3
    percent = float(rng.choice([1.0, 5.0, 50.0]))
    k = max(1, int(n * percent / 100))
    expected = bo_ndcg_at_k(gold[np.argsort(-scores)], k)
    assert ndcg_at_percent(scores, gold, percent) == pytest.approx(expected, abs=1e-12)
