"""models.state_arrays: serving reads a checkpoint's tensors without torch, as the same arrays torch loads, and
refuses what it does not know (the caller then asks torch) instead of guessing."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest
import torch

from models.checkpoint import load_checkpoint, save_checkpoint
from models.errors import CheckpointError
from models.state_arrays import UnknownLayout, read_state_arrays


def _saved(tmp_path, state: dict) -> str:
    path = tmp_path / "model"
    save_checkpoint(path, state, {"size": 1}, data="abc")
    return str(path.with_suffix(".pt"))


def test_every_tensor_reads_as_torch_loads_it(tmp_path):
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    state = {
        "weight": torch.randn(5, 3),
        "transposed": base.t(),  # a view with other strides
        "slice": base[1:3, 2:],  # a view from an offset into a shared storage
        "shares_the_storage": base,
        "scalar": torch.tensor(0.25),
        "double": torch.randn(3, dtype=torch.float64),
        "half": torch.randn(3).half(),
        "count": torch.tensor([1, 2, 3], dtype=torch.int64),
        "int32": torch.tensor([4, -5], dtype=torch.int32),
        "flags": torch.tensor([True, False]),
        "bytes": torch.tensor([7, 255], dtype=torch.uint8),
        "empty": torch.zeros(0, 4),
    }
    path = _saved(tmp_path, state)
    arrays = read_state_arrays(path)
    loaded = torch.load(path, weights_only=True)
    assert list(arrays) == list(loaded)
    for name, tensor in loaded.items():
        expected = tensor.numpy()
        assert arrays[name].dtype == expected.dtype and arrays[name].shape == expected.shape, name
        np.testing.assert_array_equal(arrays[name], expected, err_msg=name)
        assert arrays[name].flags.writeable and arrays[name].flags.owndata


def test_a_released_policy_reads_the_same_without_torch():
    from assistant import paths

    path = paths.RELEASE_DIR / "faq" / "policy-all-learned-thorough.pt"
    arrays = read_state_arrays(path)
    for name, tensor in torch.load(path, weights_only=True).items():
        np.testing.assert_array_equal(arrays[name], tensor.numpy())


def _zip_with_pickle(tmp_path, payload: bytes) -> str:
    path = tmp_path / "odd.pt"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("archive/data.pkl", payload)
    path.write_bytes(buffer.getvalue())
    return str(path)


def test_a_foreign_global_is_refused_not_called(tmp_path):
    import pickle

    payload = pickle.dumps({"w": print}, protocol=2)  # any callable: the reader must never resolve it
    with pytest.raises(UnknownLayout, match=r"print in the pickle"):
        read_state_arrays(_zip_with_pickle(tmp_path, payload))


@pytest.mark.parametrize("content", [b"", b"not a zip", b"PK\x03\x04" + b"\x00" * 40])
def test_damaged_files_are_unknown_layouts(tmp_path, content):
    path = tmp_path / "bad.pt"
    path.write_bytes(content)
    with pytest.raises(UnknownLayout):
        read_state_arrays(path)


def test_objects_other_than_tensors_are_unknown_layouts(tmp_path):
    path = tmp_path / "list.pt"
    torch.save({"w": [1, 2, 3]}, path)
    with pytest.raises(UnknownLayout):
        read_state_arrays(path)


# Issue 41: hostile headers and entries are refused before anything is read out of bounds or inflated.


def _crafted(tmp_path, tensors: dict, storage: bytes = b"\x00" * 16, name: str = "policy.pt"):
    from benchmarks.reliability.checkpoints import crafted_checkpoint

    path = tmp_path / name
    path.write_bytes(crafted_checkpoint(tensors, storage))
    return path


def test_the_crafted_negative_stride_file_ends_as_a_damaged_checkpoint_in_a_process_of_its_own(tmp_path):
    import subprocess
    import sys

    from benchmarks.reliability.checkpoints import negative_stride_checkpoint
    from benchmarks.reliability.environment import REPO

    policy = tmp_path / "policy-all-learned-thorough"
    save_checkpoint(policy, {"w": torch.ones(3)}, {"size": 1})
    policy.with_suffix(".pt").write_bytes(negative_stride_checkpoint())  # storage (10**6,), stride -(1 << 40)
    code = (
        "import sys\nfrom models.checkpoint import load_checkpoint_arrays\nfrom models.errors import CheckpointError\n"
        f"try:\n    load_checkpoint_arrays({str(policy)!r})\nexcept CheckpointError as exc:\n    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, (done.returncode, done.stderr[-500:])  # -11 (SIGSEGV) before
    assert "is damaged (a tensor with a negative stride): delete it and retrain" in done.stdout
    assert done.stderr == ""


@pytest.mark.parametrize(
    ("tensor", "why"),
    [
        ((4, 0, (4,), (-1,)), "negative stride"),
        ((4, 3, (4,), (-1,)), "negative stride"),  # lowest address 0: still no torch tensor
        ((4, 1, (4,), (1,)), "reaches elements 1..4"),  # one past the end
        ((4, -1, (2,), (1,)), "starts at -1"),
        ((4, 5, (0,), (1,)), "starts at 5"),  # even an empty tensor starts inside
        ((4, 0, (2, 2), (1,)), "2 sizes and 1 strides"),
        ((4, 0, (10**9, 10**9), (0, 0)), "elements over a storage of 4"),  # repeats: terabytes from 16 bytes
        ((4, 0, (2,), (True,)), "non-integer"),
        ((4, 0.5, (2,), (1,)), "not integers"),
        ((2**40, 0, (2,), (1,)), "elements"),
        ((5, 0, (4,), (1,)), "declares 16 bytes, not the 20"),  # a storage shorter than its header says
    ],
)
def test_headers_that_reach_outside_their_storage_are_damaged(tmp_path, tensor, why):
    from models.state_arrays import DamagedCheckpoint

    with pytest.raises(DamagedCheckpoint, match=why):
        read_state_arrays(_crafted(tmp_path, {"w": tensor}))


def test_the_highest_and_lowest_elements_of_a_storage_are_read(tmp_path):
    values = np.arange(4, dtype="<f4")
    path = _crafted(tmp_path, {"last": (4, 3, (1,), (1,)), "all": (4, 0, (2, 2), (2, 1))}, values.tobytes())
    arrays = read_state_arrays(path)
    np.testing.assert_array_equal(arrays["last"], [3.0])
    np.testing.assert_array_equal(arrays["all"], [[0, 1], [2, 3]])


def test_a_zip_bomb_is_refused_from_its_directory_before_it_is_inflated(tmp_path):
    import tracemalloc

    from benchmarks.reliability.checkpoints import zip_bomb
    from models.state_arrays import DamagedCheckpoint

    save_checkpoint(tmp_path / "bomb", {"w": torch.ones(1)}, {"size": 1})  # its sidecar
    path = tmp_path / "bomb.pt"
    path.write_bytes(zip_bomb(64 << 20))  # 64 MiB of zeros in a few hundred KB
    assert path.stat().st_size < 1 << 20
    tracemalloc.start()
    try:
        with pytest.raises(DamagedCheckpoint, match="is compressed"):
            read_state_arrays(path)
        with pytest.raises(CheckpointError, match="is damaged"):  # torch's reader is never given it either
            load_checkpoint(path.with_suffix(""))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20  # nothing near the 64 MiB was inflated


def test_an_entry_that_declares_more_bytes_than_the_file_has_is_refused_unread(tmp_path):
    from models.state_arrays import DamagedCheckpoint

    path = _crafted(tmp_path, {"w": (4, 0, (4,), (1,))})
    data = bytearray(path.read_bytes())
    name = b"archive/data/0"
    record = next(i for i in range(len(data)) if data[i : i + 4] == b"PK\x01\x02" and data[i + 46 : i + 60] == name)
    data[record + 20 : record + 28] = (3 << 30).to_bytes(4, "little") * 2  # compressed and full size: 3 GiB
    path.write_bytes(bytes(data))
    with pytest.raises(DamagedCheckpoint, match="declare"):
        read_state_arrays(path)
