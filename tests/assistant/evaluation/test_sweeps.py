"""Sweeps: the merged result does not depend on where the shards ran (1 or 2 local workers, a local Ray)."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from assistant.app.research.bench import sweep_job
from assistant.app.research.sweeps import noisy_answers, ranking_shards, sweep_function
from assistant.errors import ConfigError
from assistant.evaluation.cqa.protocol import evaluate
from assistant.evaluation.sweeps import SweepConfig, merge
from assistant.progress import run_job

CONFIG = {
    "function": "ranking",
    "fixed": {
        "dataset": "coffee",
        "split": "all",
        "candidates": 8,
        "max_questions": 5,
        "questions_per_shard": 2,
        "interactions": 3,
    },
    "grid": {"seed": [0, 1], "t": [0.3, 1.0]},
}


def _values(result) -> dict:
    return {(r["seed"], r["t"], r["metric"], r["step"]): (r["value"], r["count"]) for r in result.rows}


@pytest.fixture
def serial_result(fast_encoder, tmp_path):
    return run_job(sweep_job(SweepConfig.from_dict(CONFIG), tmp_path / "serial"))


@pytest.mark.slow
def test_a_sweep_merges_to_the_protocol_s_own_numbers(serial_result, tmp_path, fast_encoder):
    assert serial_result.shards == 4 * 3  # 4 points x 3 shards of at most 2 of the 5 questions
    direct = run_job(
        evaluate("coffee", 3, ["imp"], ["gppl"], seed=1, t=1.0, split="all", max_questions=5, n_candidates=8)
    )
    values = _values(serial_result)
    for row in direct["rows"]:
        if row["model"] == "gppl":
            k = row["interactions"]
            assert values[(1, 1.0, "accuracy", k)] == (pytest.approx(row["accuracy"], abs=1e-12), 5)
            assert values[(1, 1.0, "ndcg5", k)][0] == pytest.approx(row["ndcg5"], abs=1e-12)
    with (tmp_path / "serial" / "sweep.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 4 * 2 * 4 and set(rows[0]) == {"seed", "t", "metric", "step", "value", "count"}
    assert {p.name for p in (tmp_path / "serial" / "plots").iterdir()} == {"accuracy.png", "ndcg5.png"}


@pytest.mark.slow
def test_one_and_two_local_workers_and_ray_give_equal_results(serial_result, fast_encoder):
    config = SweepConfig.from_dict(CONFIG)
    two = run_job(sweep_job(config, backend="loky", workers=2))
    assert two.backend == "loky" and _values(two) == _values(serial_result)
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        on_ray = run_job(sweep_job(config, backend="ray", workers=2))
    finally:
        ray.shutdown()
    assert on_ray.backend == "ray" and _values(on_ray) == _values(serial_result)


def test_merging_adds_sums_in_shard_order():
    shards = [
        [{"metric": "acc", "step": 0, "sum": 1.0, "count": 2}, {"metric": "acc", "step": 1, "sum": 2.0, "count": 2}],
        [{"metric": "acc", "step": 0, "sum": 0.0, "count": 1}, {"metric": "acc", "step": 1, "sum": 1.0, "count": 1}],
    ]
    rows = merge({"seed": 4, "unused": 1}, shards, ["seed"])
    assert rows == [
        {"seed": 4, "metric": "acc", "step": 0, "value": 1 / 3, "count": 3},
        {"seed": 4, "metric": "acc", "step": 1, "value": 1.0, "count": 3},
    ]


def test_sweep_files_are_checked_with_messages_that_say_how_to_fix_them(tmp_path, fast_encoder):
    bad = tmp_path / "bad.toml"
    bad.write_text('function = "ranking"\n[grid]\nseed = 3\n')
    with pytest.raises(ConfigError, match=r"grid\.seed must be a non-empty list"):
        SweepConfig.from_toml(bad)
    bad.write_text("function = ranking\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        SweepConfig.from_toml(bad)
    with pytest.raises(ConfigError, match="unknown sweep function 'nope'"):
        sweep_function("nope")
    with pytest.raises(ConfigError, match="has no setting colour"):
        run_job(ranking_shards({"dataset": "coffee", "colour": 1}))
    with pytest.raises(ConfigError, match="deep rankers"):
        run_job(ranking_shards({"dataset": "coffee", "model": "mcd", "candidates": 8}))
    with pytest.raises(ConfigError, match="both"):
        SweepConfig.from_dict({"function": "ranking", "grid": {"seed": [0]}, "fixed": {"seed": 1}})
    assert SweepConfig.from_dict(
        {"function": "ranking", "grid": {"a": [1, 2], "b": [3]}, "fixed": {"c": 0}}
    ).points() == [
        {"c": 0, "a": 1, "b": 3},
        {"c": 0, "a": 2, "b": 3},
    ]


def test_user_noise_mixes_the_answers_with_the_uniform_distribution():
    mask = np.array([[True, True, False], [True, True, True]])
    answers = np.zeros((2, 3, 1))
    answers[0, :2, 0] = [1.0, 0.0]
    answers[1, :, 0] = [0.0, 0.0, 1.0]
    mixed = noisy_answers(answers, mask, 0.3)
    np.testing.assert_allclose(mixed[0, :, 0], [0.85, 0.15, 0.0])
    np.testing.assert_allclose(mixed[1, :, 0], [0.1, 0.1, 0.8])
    np.testing.assert_allclose(noisy_answers(answers, mask, 0.0), answers)
    with pytest.raises(ConfigError, match="user_noise"):
        noisy_answers(answers, mask, 1.5)
