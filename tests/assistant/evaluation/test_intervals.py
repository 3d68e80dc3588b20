"""The bootstrap intervals and the paired comparison of the bench's headline figures."""

import numpy as np
import pytest

from assistant.errors import ConfigError
from assistant.evaluation.intervals import bootstrap_interval, paired_difference


def test_the_interval_holds_the_mean_and_narrows_with_more_queries():
    rng = np.random.default_rng(0)
    few = bootstrap_interval(rng.random(50) < 0.8, seed=1)
    many = bootstrap_interval(rng.random(5000) < 0.8, seed=1)
    assert few.low <= few.mean <= few.high and many.low <= many.mean <= many.high
    assert many.high - many.low < (few.high - few.low) / 5
    assert many.holds(0.8)


def test_the_same_seed_gives_the_same_interval():
    values = np.arange(40) % 3 == 0
    assert bootstrap_interval(values, seed=4) == bootstrap_interval(values, seed=4)


def test_constant_values_have_a_point_interval():
    interval = bootstrap_interval(np.ones(30))
    assert (interval.mean, interval.low, interval.high) == (1.0, 1.0, 1.0)


def test_seeds_that_disagree_widen_the_interval():
    queries = np.random.default_rng(2).random(400)
    steady = bootstrap_interval(np.stack([queries, queries, queries]), seed=0)
    shifted = bootstrap_interval(np.stack([queries - 0.3, queries, queries + 0.3]), seed=0)
    assert steady.mean == pytest.approx(shifted.mean)
    assert shifted.high - shifted.low > 2 * (steady.high - steady.low)


def test_a_paired_difference_says_tie_only_when_its_interval_holds_zero():
    rng = np.random.default_rng(3)
    ours = rng.random(2000) < 0.7
    flips = rng.random(2000) < 0.004  # a handful of queries differ, both ways
    other = np.where(flips, ~ours, ours)
    tie = paired_difference(ours, other)
    assert tie["verdict"] == "tie" and tie["interval"][0] <= 0 <= tie["interval"][1]
    better = paired_difference(ours, ours | (rng.random(2000) < 0.2))
    assert better["verdict"] == "other higher" and better["difference"] > 0.03
    assert paired_difference(ours | (rng.random(2000) < 0.2), ours)["verdict"] == "ours higher"


def test_bad_inputs_say_what_to_pass():
    with pytest.raises(ConfigError, match="same queries"):
        paired_difference(np.ones(5), np.ones(6))
    with pytest.raises(ConfigError, match="NaN"):
        bootstrap_interval([1.0, float("nan")])
    with pytest.raises(ConfigError, match="per-query"):
        bootstrap_interval([])
