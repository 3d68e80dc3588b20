"""A checkpoint's weights as numpy arrays, read without torch (issue 33: serving never imports it).

``torch.save`` of a dict of tensors writes a zip: ``<folder>/data.pkl`` pickles the dict, each tensor as a call
``torch._utils._rebuild_tensor_v2(storage, offset, size, stride, ...)`` whose storage is a persistent id
``('storage', torch.FloatStorage, key, location, numel)``, and the storage's raw bytes lie in
``<folder>/data/<key>`` (``<folder>/byteorder`` says their byte order). Reading that takes a restricted
unpickler and ``np.frombuffer``; like ``torch.load(weights_only=True)``, the unpickler resolves no other
global than the few below, so a checkpoint file can never run code. A file in a layout this reader does not
know raises ``UnknownLayout`` and the caller reads it with torch instead (``models.checkpoint``).
"""

from __future__ import annotations

import collections
import pickle
import zipfile
from pathlib import Path
from typing import Any

import numpy as np


class UnknownLayout(Exception):
    """The file is not a torch zip checkpoint of plain tensors as this reader knows them."""


# torch's typed storages by the name they are pickled under -> the numpy dtype of their bytes.
_STORAGE_DTYPES = {
    "FloatStorage": np.float32,
    "DoubleStorage": np.float64,
    "HalfStorage": np.float16,
    "LongStorage": np.int64,
    "IntStorage": np.int32,
    "ShortStorage": np.int16,
    "CharStorage": np.int8,
    "ByteStorage": np.uint8,
    "BoolStorage": np.bool_,
}


class _StorageType:
    """Stands for ``torch.<name>Storage`` in the pickle: only its dtype matters."""

    def __init__(self, dtype: type) -> None:
        self.dtype = np.dtype(dtype)


def _rebuild_tensor(storage: np.ndarray, offset: int, size: tuple, stride: tuple, *_ignored: Any) -> np.ndarray:
    """``torch._utils._rebuild_tensor_v2`` for numpy: the view ``size``/``stride`` (in elements) of the flat
    storage from ``offset``, copied so that it owns its memory (requires_grad, hooks, metadata ignored)."""
    if all(n > 0 for n in size):  # an empty tensor reads nothing
        last = offset + sum((n - 1) * s for n, s in zip(size, stride, strict=True))
        if offset < 0 or last >= storage.size:
            raise UnknownLayout("a tensor reaches past its storage")
    item = storage.itemsize
    view = np.lib.stride_tricks.as_strided(
        storage[offset:], shape=tuple(size), strides=tuple(s * item for s in stride), writeable=False
    )
    return np.array(view)


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: Any, archive: zipfile.ZipFile, folder: str, byteorder: str) -> None:
        super().__init__(file)
        self._archive, self._folder, self._byteorder = archive, folder, byteorder

    def find_class(self, module: str, name: str) -> Any:
        if module == "torch._utils" and name == "_rebuild_tensor_v2":
            return _rebuild_tensor
        if module == "torch" and name in _STORAGE_DTYPES:
            return _StorageType(_STORAGE_DTYPES[name])
        if module == "collections" and name == "OrderedDict":
            return collections.OrderedDict
        raise UnknownLayout(f"{module}.{name} in the pickle")

    def persistent_load(self, pid: Any) -> np.ndarray:
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise UnknownLayout(f"persistent id {pid!r:.60}")
        storage_type, key, _location, numel = pid[1:]
        if not isinstance(storage_type, _StorageType):
            raise UnknownLayout("an untyped storage")
        dtype = storage_type.dtype.newbyteorder("<" if self._byteorder == "little" else ">")
        raw = self._archive.read(f"{self._folder}/data/{key}")
        if len(raw) != numel * dtype.itemsize:
            raise UnknownLayout(f"storage {key} holds {len(raw)} bytes, not {numel} x {dtype.itemsize}")
        return np.frombuffer(raw, dtype=dtype).astype(storage_type.dtype, copy=False)


def read_state_arrays(path: str | Path) -> dict[str, np.ndarray]:
    """The dict of tensors that ``torch.save`` wrote to ``path``, each as a numpy array of the same dtype and
    shape (0-d arrays for scalars). Raises UnknownLayout for anything else (a legacy or damaged file, other
    objects than tensors, bfloat16) and OSError when the file cannot be read."""
    try:
        with zipfile.ZipFile(path) as archive:
            pickles = [n for n in archive.namelist() if n.endswith("/data.pkl") and n.count("/") == 1]
            if len(pickles) != 1:
                raise UnknownLayout("no single <folder>/data.pkl")
            folder = pickles[0].split("/")[0]
            try:
                byteorder = archive.read(f"{folder}/byteorder").decode("ascii").strip()
            except KeyError:  # files from before torch recorded it were written little-endian
                byteorder = "little"
            with archive.open(pickles[0]) as handle:
                state = _Unpickler(handle, archive, folder, byteorder).load()
    except (zipfile.BadZipFile, pickle.UnpicklingError, EOFError, KeyError, ValueError, TypeError) as exc:
        raise UnknownLayout(f"{type(exc).__name__}: {exc}") from exc
    if not isinstance(state, dict) or not all(isinstance(v, np.ndarray) for v in state.values()):
        raise UnknownLayout("not a dict of tensors")
    return dict(state)
