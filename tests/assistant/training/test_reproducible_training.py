"""Same seed, same weights: training a tiny domain twice, in two fresh homes and two processes that differ in
everything that must not matter (Python's string hashing, hence the order of sets; the caller's torch and BLAS
thread counts), gives the same bytes for every model file, and training is limited by steps, never by time."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import torch

from assistant.training.encoder import EncoderTrainConfig
from models.determinism import reproducible
from tests.support import REPO  # the repository root (this file moved deeper than tests/engine)

# Builds the colour domain, trains its encoder and a policy, tunes the coverage rule, and prints the SHA-256 of
# every model file (the JSON sidecars carry the time of training and are left out: weights only).
TRAIN = """
import hashlib, json, sys
import torch
torch.set_num_threads(int(sys.argv[1]))  # the caller's setting: the jobs must fix their own
from assistant import paths
from assistant.app.lifecycle.registry import ModelRegistry
from assistant.app.lifecycle.training_jobs import fit_prior_job, train_policy_job, tune_coverage_job
from assistant.progress import run_job
from assistant.training.encoder import train_encoder
from assistant.training.policy import PolicyConfig
from tests.support.colours import store_colour_domain
from tests.assistant.training.test_encoder import TINY

store_colour_domain()
run_job(train_encoder(ModelRegistry("colours").domain, TINY, seed=0, save=True))
registry = ModelRegistry("colours")
run_job(fit_prior_job(registry, 0))  # the mention weight: the registry loads it, never fits it
run_job(train_policy_job(registry, "all", "learned", PolicyConfig(iterations=15, batch_size=32), seed=0, pace="quick"))
coverage = run_job(tune_coverage_job(registry, "all", "quick", episodes=40))["grid"]
folder = paths.models_dir("colours")
files = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.glob("*.pt"))}
print(json.dumps({"files": files, "coverage_grid": coverage, "threads_after": torch.get_num_threads()}))
"""


def _train_in_a_fresh_home(home: Path, hash_seed: str, threads: int) -> dict:
    env = {
        **os.environ,
        "CLARIFY_HOME": str(home),
        "PYTHONHASHSEED": hash_seed,
        "PYTHONPATH": str(REPO),
        "OMP_NUM_THREADS": str(threads),
    }
    done = subprocess.run(
        [sys.executable, "-c", TRAIN, str(threads)], env=env, cwd=REPO, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_same_seed_gives_the_same_model_files_in_two_fresh_homes(tmp_path):
    first = _train_in_a_fresh_home(tmp_path / "a", "1", threads=1)
    second = _train_in_a_fresh_home(tmp_path / "b", "2", threads=2)
    assert set(first["files"]) == {"encoder.pt", "policy-all-learned-quick.pt"}
    assert first["files"] == second["files"], "same seed, other weights"
    assert first["coverage_grid"] == second["coverage_grid"]
    assert first["threads_after"] == 1 and second["threads_after"] == 2  # the caller's setting comes back


def test_training_is_limited_by_steps_never_by_wall_clock_time():
    fields = {f.name for f in dataclasses.fields(EncoderTrainConfig)}
    assert not {name for name in fields if "second" in name or "time" in name}, fields
    # older checkpoints recorded a wall-clock cap: their settings still load (fine-tuning reads them)
    legacy = {**EncoderTrainConfig().to_dict(), "max_seconds": 570.0}
    assert EncoderTrainConfig.from_dict(legacy) == EncoderTrainConfig()


def test_reproducible_fixes_the_threads_and_restores_them():
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        with reproducible(1):
            assert torch.get_num_threads() == 1 and torch.are_deterministic_algorithms_enabled()
        assert torch.get_num_threads() == 2 and not torch.are_deterministic_algorithms_enabled()
    finally:
        torch.set_num_threads(before)


def test_a_checkpoint_of_the_same_weights_has_the_same_bytes_whatever_its_file_name(tmp_path):
    from models.checkpoint import save_checkpoint

    weights = {"w": torch.arange(6, dtype=torch.float32).reshape(2, 3)}
    save_checkpoint(tmp_path / "one" / "encoder", weights, {})
    save_checkpoint(tmp_path / "two" / "other-name", weights, {})
    one = hashlib.sha256((tmp_path / "one" / "encoder.pt").read_bytes()).hexdigest()
    two = hashlib.sha256((tmp_path / "two" / "other-name.pt").read_bytes()).hexdigest()
    assert one == two
