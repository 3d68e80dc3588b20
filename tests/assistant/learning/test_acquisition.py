"""Each acquisition and the self-paced pace on tiny hand-checkable pools."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.errors import ConfigError
from assistant.learning.acquisition import (
    BALD,
    DAL,
    DASL,
    CoreSet,
    PoolEstimate,
    RandomAcquisition,
    greedy_k_centre,
    make_acquisition,
)
from assistant.learning.pace import SelfPacedPace


def pool(losses, bald=None, embeddings=None, labelled=None) -> PoolEstimate:
    n = len(losses)
    return PoolEstimate(
        losses=np.asarray(losses, dtype=float),
        bald=np.asarray(bald if bald is not None else np.zeros(n), dtype=float),
        embeddings=np.asarray(embeddings if embeddings is not None else np.eye(n), dtype=float),
        labelled_embeddings=np.asarray(labelled if labelled is not None else np.zeros((0, n)), dtype=float),
    )


def test_dal_and_bald_take_the_highest_scores():
    p = pool([0.1, 0.5, 0.0, 0.5, 0.3], bald=[0.9, 0.0, 0.2, 0.1, 0.4])
    rng = np.random.default_rng(0)
    assert DAL()(p, 2, rng).tolist() == [1, 3]  # ties in index order
    assert BALD()(p, 2, rng).tolist() == [0, 4]
    assert DAL()(p, 10, rng).tolist() == [1, 3, 4, 0, 2]  # k larger than the pool: all of it
    assert DAL()(p, 0, rng).size == 0
    with pytest.raises(ConfigError):
        DAL()(p, -1, rng)


def test_random_is_seeded_and_without_repeats():
    p = pool(np.zeros(20))
    a = RandomAcquisition()(p, 8, np.random.default_rng(3))
    b = RandomAcquisition()(p, 8, np.random.default_rng(3))
    assert a.tolist() == b.tolist() and len(set(a.tolist())) == 8
    assert a.tolist() != RandomAcquisition()(p, 8, np.random.default_rng(4)).tolist()


def test_greedy_k_centre_picks_the_farthest_points_in_turn():
    points = np.array([[0.1, 0.0], [10.0, 0.0], [0.0, 10.0], [5.0, 5.0], [9.0, 1.0]])
    # labelled centre at the origin: (10, 0) and (0, 10) are farthest (tie -> first), then (0, 10) from both
    assert greedy_k_centre(points, np.array([[0.0, 0.0]]), 2).tolist() == [1, 2]
    # the order of the candidates does not change which points are chosen (small-text 1.4.1 got this wrong)
    order = np.array([3, 0, 4, 1, 2])
    picked = order[greedy_k_centre(points[order], np.array([[0.0, 0.0]]), 2)]
    assert sorted(picked.tolist()) == [1, 2]
    # no labelled centre yet: start from the first point, then the farthest from it
    assert greedy_k_centre(points, np.zeros((0, 2)), 2).tolist() == [0, 2]


def test_coreset_spreads_over_unit_vectors_away_from_the_labelled_ones():
    embeddings = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [-1.0, 0.0]])
    p = pool(np.zeros(4), embeddings=embeddings, labelled=[[1.0, 0.05]])
    assert CoreSet()(p, 2, np.random.default_rng(0)).tolist() == [3, 2]


def test_pace_threshold_grows_and_admits_the_easiest_first():
    pace = SelfPacedPace(start=0.1, growth=2.0, limit=0.5, max_fraction=1.0)
    assert [pace.threshold(r) for r in range(5)] == [0.1, 0.2, 0.4, 0.5, 0.5]
    losses = np.array([0.3, 0.05, 0.15, 0.0, 0.45])
    assert pace.select(losses, 0).tolist() == [3, 1]
    assert pace.select(losses, 1).tolist() == [3, 1, 2]
    assert pace.select(losses, 2, excluded=np.array([0, 0, 0, 1, 0], bool)).tolist() == [1, 2, 0]
    capped = SelfPacedPace(start=0.5, growth=1.0, limit=0.5, max_fraction=0.4)
    assert capped.select(losses, 0).tolist() == [3, 1]  # at most 40% of the pool
    with pytest.raises(ConfigError):
        SelfPacedPace(growth=0.5)
    with pytest.raises(ConfigError):
        pace.threshold(-1)


def test_dasl_labels_like_dal_and_pseudo_labels_the_confident_rest():
    p = pool([0.4, 0.01, 0.3, 0.0, 0.02])
    dasl = DASL(SelfPacedPace(start=0.015, growth=2.0, limit=0.5, max_fraction=1.0))
    chosen = dasl(p, 1, np.random.default_rng(0))
    assert chosen.tolist() == DAL()(p, 1, np.random.default_rng(0)).tolist() == [0]
    assert dasl.pseudo_labelled(p, chosen, 0).tolist() == [3, 1]
    assert dasl.pseudo_labelled(p, chosen, 1).tolist() == [3, 1, 4]
    assert make_acquisition("dasl").self_paced and not make_acquisition("dal").self_paced
    with pytest.raises(ConfigError, match="unknown acquisition"):
        make_acquisition("uncertainty")
