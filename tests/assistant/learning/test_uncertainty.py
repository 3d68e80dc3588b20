"""The expected ranking loss (DASL eq. 8-11) against brute-force enumerations, BALD, and pseudo-labels."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

from assistant.errors import ConfigError
from assistant.learning.uncertainty import (
    bald_score,
    expected_ranking_loss,
    mean_ranks,
    pseudo_grades,
)


def dcg(order, relevance):
    """Eq. 8 written out: sum over positions i (1-based) of (2^rel - 1) / log2(i + 1)."""
    return sum((2.0 ** relevance[c] - 1.0) / np.log2(i + 2) for i, c in enumerate(order))


def brute_force_expected_loss(samples):
    """Eq. 9-11 by enumeration: the ideal DCG by trying every permutation, the predicted order by the mean."""
    samples = np.asarray(samples, dtype=np.float64)
    n = samples.shape[1]
    predicted = sorted(range(n), key=lambda c: (-samples[:, c].mean(), c))
    losses = []
    for s in samples:
        relevance = np.zeros(n)
        relevance[int(np.argmax(s))] = 1.0
        ideal = max(dcg(perm, relevance) for perm in itertools.permutations(range(n)))
        losses.append(1.0 - dcg(predicted, relevance) / ideal)
    return float(np.mean(losses))


@pytest.mark.parametrize("seed", range(6))
def test_expected_loss_matches_the_enumeration_of_rankings(seed):
    rng = np.random.default_rng(seed)
    samples = rng.normal(size=(5, 4)) + np.array([0.8, 0.5, 0.0, -0.2])
    assert expected_ranking_loss(samples) == pytest.approx(brute_force_expected_loss(samples), abs=1e-12)


def test_agreeing_samples_cost_nothing_and_disagreement_costs_the_dcg_discount():
    agree = np.array([[3.0, 1.0, 0.0], [2.0, 1.5, 0.0]])
    assert expected_ranking_loss(agree) == 0.0
    split = np.array([[3.0, 0.0, 0.0], [0.0, 0.0, 3.1]])  # mean order: 2, 0, 1 -> candidate 0 is second
    assert expected_ranking_loss(split) == pytest.approx(0.5 * (1 - 1 / np.log2(3)))
    np.testing.assert_array_equal(mean_ranks(split), [2, 3, 1])


def tiny_network_scores(x, mask):
    """A 2-candidate scorer whose only randomness is a dropout mask over 3 hidden units (p = 0.5)."""
    w1 = torch.tensor([[1.0, -0.5, 0.3], [0.2, 0.9, -0.4]])
    w2 = torch.tensor([1.0, 0.7, -1.2])
    h = torch.relu(x @ w1) * mask / 0.5
    return h @ w2


def test_mc_estimate_converges_to_the_exact_expectation_over_dropout_masks():
    """The MC estimate over random masks agrees with the exact expectation over all 2^3 equally likely masks."""
    x = torch.tensor([[1.0, 0.2], [0.4, 0.8], [0.9, 0.9]])  # 3 candidates, 2 input features
    masks = [torch.tensor(m, dtype=torch.float32) for m in itertools.product([0.0, 1.0], repeat=3)]
    exact_samples = torch.stack([tiny_network_scores(x, m) for m in masks]).numpy()  # each mask has p = 1/8
    exact = brute_force_expected_loss(exact_samples)
    gen = torch.Generator().manual_seed(0)
    draws = torch.stack(
        [tiny_network_scores(x, (torch.rand(3, generator=gen) >= 0.5).float()) for _ in range(20000)]
    ).numpy()
    assert expected_ranking_loss(draws) == pytest.approx(exact, abs=0.01)
    assert exact > 0.05  # the masks really disagree: the test is not about a zero


def test_bald_is_zero_for_identical_samples_and_positive_for_disagreement():
    same = np.tile([[2.0, 0.0, -1.0]], (4, 1))
    assert bald_score(same) == pytest.approx(0.0, abs=1e-12)
    torn = np.array([[10.0, 0.0], [0.0, 10.0]])
    # H[mean] = log 2, each sample nearly certain: I is close to log 2
    assert bald_score(torn) == pytest.approx(np.log(2), abs=0.02)
    with pytest.raises(ConfigError):
        bald_score(torn, temperature=0.0)


def test_pseudo_label_is_the_top_of_the_mean_scores():
    samples = np.array([[0.0, 1.0, 0.5], [0.0, 0.8, 0.6]])
    np.testing.assert_array_equal(pseudo_grades(samples), [0, 1, 0])
    with pytest.raises(ConfigError):
        expected_ranking_loss(np.zeros(3))
