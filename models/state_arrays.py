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
import math
import os
import pickle
import zipfile
from pathlib import Path
from typing import Any

import numpy as np


class UnknownLayout(Exception):
    """The file is not a torch zip checkpoint of plain tensors as this reader knows them."""


class DamagedCheckpoint(Exception):
    """The file claims to be a torch zip checkpoint but cannot be one torch wrote: a tensor that reaches outside
    its storage (at either end), a negative stride, a storage whose declared size is not the tensor's, a
    compressed or oversized entry (a zip bomb). Refused before anything is read out of bounds or inflated, and
    never handed to torch: the caller treats the model as damaged and replaces it."""


# What zipfile raises for a damaged archive: besides BadZipFile, a flipped byte in a header asks for a "zip
# file version 8.4" or strong encryption (NotImplementedError), or a password (RuntimeError): the fuzz test.
ZIP_ERRORS: tuple[type[Exception], ...] = (zipfile.BadZipFile, EOFError, ValueError, NotImplementedError, RuntimeError)
_LAYOUT_ERRORS: tuple[type[Exception], ...] = (*ZIP_ERRORS, pickle.UnpicklingError, KeyError, TypeError)

# torch.save stores every entry uncompressed; the pickle of a state dict is small (names and headers).
_MOST_PICKLE_BYTES = 64 << 20
_MOST_DIMENSIONS = 32
# A storage's declared element count beyond this is no model Clarify trains (4 GiB of float32).
_MOST_STORAGE_ELEMENTS = 1 << 30


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


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _rebuild_tensor(storage: np.ndarray, offset: int, size: tuple, stride: tuple, *_ignored: Any) -> np.ndarray:
    """``torch._utils._rebuild_tensor_v2`` for numpy: the view ``size``/``stride`` (in elements) of the flat
    storage from ``offset``, copied so that it owns its memory (requires_grad, hooks, metadata ignored).
    Every element the view would touch lies inside the storage, checked at both ends, before numpy is asked
    for the view (``as_strided`` trusts its arguments: a stride of -2**40 read memory before the buffer)."""
    if not isinstance(storage, np.ndarray) or storage.ndim != 1:
        raise DamagedCheckpoint("a tensor without a storage")
    if not (_is_int(offset) and isinstance(size, tuple) and isinstance(stride, tuple)):
        raise DamagedCheckpoint("a tensor whose offset, size or stride is not integers")
    if len(size) != len(stride) or len(size) > _MOST_DIMENSIONS:
        raise DamagedCheckpoint(f"a tensor of {len(size)} sizes and {len(stride)} strides")
    if not all(_is_int(n) and n >= 0 for n in size) or not all(_is_int(s) for s in stride):
        raise DamagedCheckpoint("a tensor with a negative or non-integer size or stride")
    if any(s < 0 for s in stride):  # torch has no negative strides; numpy's would read before the buffer
        raise DamagedCheckpoint("a tensor with a negative stride")
    if offset < 0 or offset > storage.size:
        raise DamagedCheckpoint(f"a tensor starts at {offset}, outside its storage of {storage.size}")
    elements = math.prod(size)
    if elements > 0:  # an empty tensor reads nothing
        lowest = offset + sum((n - 1) * s for n, s in zip(size, stride, strict=True) if s < 0)
        highest = offset + sum((n - 1) * s for n, s in zip(size, stride, strict=True) if s > 0)
        if lowest < 0 or highest >= storage.size:
            raise DamagedCheckpoint(f"a tensor reaches elements {lowest}..{highest} of a storage of {storage.size}")
        if elements > storage.size:  # stride-0 repeats: a tensor larger than its bytes is no saved parameter
            raise DamagedCheckpoint(f"a tensor of {elements} elements over a storage of {storage.size}")
    item = storage.itemsize
    view = np.lib.stride_tricks.as_strided(
        storage[offset:], shape=size, strides=tuple(s * item for s in stride), writeable=False
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
        if not isinstance(key, str) or not _is_int(numel) or not 0 <= numel <= _MOST_STORAGE_ELEMENTS:
            raise DamagedCheckpoint(f"a storage {key!r:.40} of {numel!r:.40} elements")
        dtype = storage_type.dtype.newbyteorder("<" if self._byteorder == "little" else ">")
        name = f"{self._folder}/data/{key}"
        _check_entry(self._archive.getinfo(name), numel * dtype.itemsize)  # before a byte of it is read
        with self._archive.open(name) as handle:
            raw = handle.read(numel * dtype.itemsize + 1)
        if len(raw) != numel * dtype.itemsize:
            raise DamagedCheckpoint(f"storage {key} holds {len(raw)} bytes, not {numel} x {dtype.itemsize}")
        return np.frombuffer(raw, dtype=dtype).astype(storage_type.dtype, copy=False)


def _check_entry(info: zipfile.ZipInfo, expected: int) -> None:
    """DamagedCheckpoint unless the zip directory declares ``info`` stored (not compressed) and ``expected``
    bytes long: a deflated entry of 3 GiB of zeros costs 3 MB on disk and 6 GB of memory to read."""
    if info.compress_type != zipfile.ZIP_STORED:
        raise DamagedCheckpoint(f"{info.filename} is compressed (torch stores every entry as it is)")
    if info.file_size != expected or info.compress_size != info.file_size:
        raise DamagedCheckpoint(f"{info.filename} declares {info.file_size} bytes, not the {expected} it needs")


def read_state_arrays(path: str | Path) -> dict[str, np.ndarray]:
    """The dict of tensors that ``torch.save`` wrote to ``path``, each as a numpy array of the same dtype and
    shape (0-d arrays for scalars). Raises UnknownLayout for a layout this reader does not know (a legacy
    file, other objects than tensors, bfloat16), DamagedCheckpoint for a file that torch cannot have written
    (out-of-bounds tensors, compressed or oversized entries: nothing is read beyond the declared sizes) and
    OSError when the file cannot be read."""
    try:
        with zipfile.ZipFile(path) as archive:
            check_entries(archive, os.path.getsize(path))
            pickles = [n for n in archive.namelist() if n.endswith("/data.pkl") and n.count("/") == 1]
            if len(pickles) != 1:
                raise UnknownLayout("no single <folder>/data.pkl")
            folder = pickles[0].split("/")[0]
            byteorder = _byteorder(archive, folder)
            info = archive.getinfo(pickles[0])
            _check_entry(info, info.file_size)
            if info.file_size > _MOST_PICKLE_BYTES:
                raise DamagedCheckpoint(f"{info.filename} declares {info.file_size} bytes")
            with archive.open(info) as handle:
                state = _Unpickler(handle, archive, folder, byteorder).load()
    except _LAYOUT_ERRORS as exc:
        raise UnknownLayout(f"{type(exc).__name__}: {exc}") from exc
    except (MemoryError, RecursionError, OverflowError, IndexError, AttributeError) as exc:  # a hostile pickle
        raise DamagedCheckpoint(f"{type(exc).__name__} while reading it") from exc
    if not isinstance(state, dict) or not all(isinstance(v, np.ndarray) for v in state.values()):
        raise UnknownLayout("not a dict of tensors")
    return dict(state)


def check_entries(archive: zipfile.ZipFile, file_bytes: int) -> None:
    """DamagedCheckpoint unless every entry of the zip directory is stored as it is and, all together, no
    larger than the file: read from the directory alone, so that a bomb is refused before it is inflated."""
    total = 0
    for info in archive.infolist():
        _check_entry(info, info.file_size)
        total += info.file_size
    if total > file_bytes:
        raise DamagedCheckpoint(f"its entries declare {total} bytes in a file of {file_bytes}")


def check_checkpoint_file(path: str | Path) -> None:
    """``check_entries`` of the zip at ``path`` (torch reads it next); nothing for a file that is no zip
    (torch's legacy layout, or a damage torch reports itself)."""
    try:
        with zipfile.ZipFile(path) as archive:
            check_entries(archive, os.path.getsize(path))
    except ZIP_ERRORS:
        return


def _byteorder(archive: zipfile.ZipFile, folder: str) -> str:
    try:
        info = archive.getinfo(f"{folder}/byteorder")
    except KeyError:  # files from before torch recorded it were written little-endian
        return "little"
    _check_entry(info, info.file_size)
    if info.file_size > 16:
        raise DamagedCheckpoint(f"{info.filename} declares {info.file_size} bytes")
    byteorder = archive.read(info).decode("ascii", errors="replace").strip()
    if byteorder not in ("little", "big"):
        raise DamagedCheckpoint(f"byte order {byteorder!r:.20}")
    return byteorder
