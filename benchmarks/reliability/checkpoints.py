"""Hostile checkpoints in torch's zip layout (issue 41): a tensor header of one's choosing over a storage of
one's choosing, and a zip bomb. What `torch.save` would write for a tensor, except that nothing checks the
header: the serving reader (``models.state_arrays``) must refuse every one of them before it reads a byte out
of bounds or inflates an entry."""

from __future__ import annotations

import collections
import io
import pickle
import zipfile

import torch

_FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # the same bytes for the same tensors (the fuzz test's examples replay)


class _Storage:
    """Pickled as torch's persistent id of a FloatStorage (``key``, ``numel`` as declared, not as stored)."""

    def __init__(self, key: str, numel: int) -> None:
        self.key, self.numel = key, numel


class _Tensor:
    """Pickled as torch's call ``_rebuild_tensor_v2(storage, offset, size, stride, False, OrderedDict())``."""

    def __init__(self, storage: _Storage, offset: object, size: object, stride: object) -> None:
        self.args: tuple = (storage, offset, size, stride, False, collections.OrderedDict())

    def __reduce__(self) -> tuple:
        return (torch._utils._rebuild_tensor_v2, self.args)


class _Pickler(pickle.Pickler):
    def persistent_id(self, obj: object) -> tuple | None:
        if isinstance(obj, _Storage):
            return ("storage", torch.FloatStorage, obj.key, "cpu", obj.numel)
        return None


def header_pickle(tensors: dict[str, tuple[int, object, object, object]]) -> bytes:
    """data.pkl of a dict name -> (storage numel, offset, size, stride), every tensor over storage "0"."""
    buffer = io.BytesIO()
    state = {name: _Tensor(_Storage("0", numel), offset, size, stride) for name, (numel, offset, size, stride) in tensors.items()}  # fmt: skip
    _Pickler(buffer, protocol=2).dump(state)
    return buffer.getvalue()


def crafted_checkpoint(tensors: dict[str, tuple[int, object, object, object]], storage: bytes,
                       byteorder: bytes = b"little") -> bytes:  # fmt: skip
    """A checkpoint zip (torch's entries, stored) whose tensors are ``tensors`` over the bytes ``storage``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for name, data in (("data.pkl", header_pickle(tensors)), ("byteorder", byteorder), ("data/0", storage),
                           ("version", b"3\n")):  # fmt: skip
            archive.writestr(zipfile.ZipInfo(f"archive/{name}", date_time=_FIXED_TIME), data)
    return buffer.getvalue()


def negative_stride_checkpoint() -> bytes:
    """The file of issue 41: a storage of shape (10**6,) read with stride -(1 << 40) (SIGSEGV before)."""
    return crafted_checkpoint({"weight": (1, 0, (10**6,), (-(1 << 40),))}, b"\x00" * 4)


def zip_bomb(inflated_bytes: int) -> bytes:
    """A checkpoint whose storage entry is ``inflated_bytes`` of zeros, deflated (3 GiB take 3 MB), and whose
    header asks for exactly that many float32s, so that only the entry's compression gives it away."""
    numel = inflated_bytes // 4
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("archive/data.pkl", header_pickle({"weight": (numel, 0, (numel,), (1,))}))
        archive.writestr("archive/byteorder", b"little")
        info = zipfile.ZipInfo("archive/data/0")
        info.compress_type = zipfile.ZIP_DEFLATED
        chunk, left = b"\x00" * (1 << 24), numel * 4
        with archive.open(info, "w", force_zip64=True) as entry:
            while left:
                entry.write(chunk[: min(left, len(chunk))])
                left -= min(left, len(chunk))
        archive.writestr("archive/version", b"3\n")
    return buffer.getvalue()
