"""models.checkpoint: damaged, empty, foreign or non-UTF-8 sidecars and .pt files give one-line
errors saying to retrain (never a traceback), and sidecars are written atomically (a failed write replaces
nothing)."""

from __future__ import annotations

import pytest
import torch

from models.checkpoint import load_checkpoint, load_checkpoint_arrays, read_json, save_checkpoint, write_json_atomic
from models.errors import CheckpointError

pytestmark = pytest.mark.reliability


@pytest.fixture
def checkpoint(tmp_path):
    path = tmp_path / "model"
    save_checkpoint(path, {"w": torch.ones(2)}, {"size": 2}, data="abc")
    return path


def one_line_error(path) -> str:
    """The error of loading ``path`` with torch, after checking that serving's torch-free reader gives the same."""
    with pytest.raises(CheckpointError) as caught:
        load_checkpoint(path, expected_data="abc")
    message = str(caught.value)
    assert "\n" not in message and "retrain" in message
    with pytest.raises(CheckpointError) as as_arrays:
        load_checkpoint_arrays(path, expected_data="abc")
    assert str(as_arrays.value) == message
    return message


def test_a_good_checkpoint_loads(checkpoint):
    state, sidecar = load_checkpoint(checkpoint, expected_data="abc")
    assert torch.equal(state["w"], torch.ones(2)) and sidecar["config"] == {"size": 2}
    arrays, same = load_checkpoint_arrays(checkpoint, expected_data="abc")
    assert arrays["w"].tolist() == [1.0, 1.0] and same == sidecar


def test_weights_that_are_not_finite_are_a_one_line_error(checkpoint):
    save_checkpoint(checkpoint, {"w": torch.tensor([1.0, float("nan")])}, {"size": 2}, data="abc")
    assert "not finite" in one_line_error(checkpoint)


def test_stale_weights_are_refused_by_both_loaders(checkpoint):
    for load in (load_checkpoint, load_checkpoint_arrays):
        with pytest.raises(CheckpointError, match="different data"):
            load(checkpoint, expected_data="other")


@pytest.mark.parametrize(
    "sidecar", [b"", b"\xff\xfe{\x00", b"{", b"[1, 2]", b'{"format": 1}', b'{"config": "x"}', b"1" * 5000]
)
def test_a_damaged_sidecar_is_a_one_line_error(checkpoint, sidecar):
    checkpoint.with_suffix(".json").write_bytes(sidecar)
    assert "damaged" in one_line_error(checkpoint)


@pytest.mark.parametrize("weights", [b"", b"not a checkpoint", b"PK\x03\x04" + b"\x00" * 40])
def test_damaged_weights_are_a_one_line_error(checkpoint, weights):
    checkpoint.with_suffix(".pt").write_bytes(weights)
    one_line_error(checkpoint)


def test_a_pt_file_of_something_else_is_refused(checkpoint):
    torch.save({"w": [1, 2, 3]}, checkpoint.with_suffix(".pt"))  # loads with weights_only, holds no tensors
    assert "no model weights" in one_line_error(checkpoint)


def test_damaged_json_reads_as_missing(tmp_path):
    path = tmp_path / "prior.json"
    for data in (b"", b"\xff", b'{"beta": ', b"[]", b"9" * 5000):
        path.write_bytes(data)
        assert read_json(path) is None


def test_a_failed_sidecar_write_keeps_the_old_file(tmp_path):
    folder = tmp_path / "models"
    path = folder / "prior.json"
    write_json_atomic(path, {"beta": 1.0})
    with pytest.raises(TypeError):
        write_json_atomic(path, {"beta": object()})  # fails while serialising: nothing may be replaced
    assert read_json(path) == {"beta": 1.0}
    assert sorted(p.name for p in folder.iterdir()) == ["prior.json"]
    with pytest.raises(CheckpointError) as caught:
        write_json_atomic(path / "below-a-file.json", {})
    assert "\n" not in str(caught.value)
