"""sru's compiled op: built in the project's own folder, a build that cannot finish never hangs a launch, and
without the op the pure-PyTorch recurrence gives the same numbers. (A lock left by a killed build: see
tests/gui/test_gui_trust.py, which plants one under a real launch.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from models import sru_loader

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def built_copy(tmp_path) -> Path:
    built = sru_loader.extensions_dir()
    if not sru_loader.is_built(built):
        pytest.skip("sru's compiled op is not built here (make install builds it)")
    folder = tmp_path / "extensions"
    shutil.copytree(built, folder, ignore=shutil.ignore_patterns(sru_loader.LOCK_NAME))
    return folder


def test_the_op_lives_in_a_folder_of_the_projects_own(monkeypatch, tmp_path):
    monkeypatch.delenv(sru_loader.EXTENSIONS_ENV, raising=False)
    assert sru_loader.extensions_dir().is_relative_to(Path(sys.prefix))
    monkeypatch.setenv(sru_loader.EXTENSIONS_ENV, str(tmp_path))
    assert sru_loader.extensions_dir() == tmp_path


def test_a_live_owner_is_waited_for_then_given_up_on(built_copy):
    holder = sru_loader.BuildLock(built_copy)
    assert holder.try_acquire()
    try:
        steps = list(_run(sru_loader.build_steps(built_copy, timeout=0.5)))
        assert steps[:-1] and "waiting for another Clarify" in steps[0]
        status = steps[-1]
        assert not status.compiled and f"process {os.getpid()}" in status.notice
    finally:
        holder.release()


def test_a_build_that_cannot_finish_is_stopped_and_leaves_no_lock(tmp_path):
    folder = tmp_path / "empty"
    status = sru_loader.ensure_built(folder, timeout=0.5)
    assert not status.compiled and "took over" in status.notice
    assert not any(folder.glob("*/lock"))


def _run(steps):
    while True:
        try:
            yield next(steps)
        except StopIteration as done:
            yield done.value
            return


@pytest.mark.slow
def test_without_the_op_the_encoder_runs_pure_pytorch_with_the_same_numbers(tmp_path):
    from models.sru_encoder import BiSRU

    torch.manual_seed(0)
    layer = BiSRU(6, 5, 1, 0.0).eval()
    x = torch.randn(7, 3, 6)
    mask = torch.zeros(7, 3, dtype=torch.bool)
    mask[5:, 1] = True
    with torch.no_grad():
        compiled = layer(x, mask)
    torch.save({"state": layer.state_dict(), "x": x, "mask": mask}, tmp_path / "case.pt")
    script = f"""
import torch
from models import sru_loader
from models.sru_encoder import BiSRU
case = torch.load({str(tmp_path / "case.pt")!r})
layer = BiSRU(6, 5, 1, 0.0).eval()
layer.load_state_dict(case["state"])
with torch.no_grad():
    out = layer(case["x"], case["mask"])
assert not sru_loader.compiled()
torch.save(out, {str(tmp_path / "out.pt")!r})
"""
    env = {**os.environ, sru_loader.EXTENSIONS_ENV: str(tmp_path / "none"), "CXX": "/bin/false"}
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("pure-PyTorch SRU") == 1  # the one-line notice
    np.testing.assert_allclose(torch.load(tmp_path / "out.pt").numpy(), compiled.numpy(), atol=1e-5)
