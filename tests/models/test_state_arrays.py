"""models.state_arrays: serving reads a checkpoint's tensors without torch, as the same arrays torch loads, and
refuses what it does not know (the caller then asks torch) instead of guessing."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest
import torch

from models.checkpoint import save_checkpoint
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
