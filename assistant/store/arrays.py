"""The domain's arrays stored as arrays (issue 42), beside its knowledge base: ``domains/<name>.arrays/``.

A large FAQ's annotation counts and held-out answers are millions of SQLite rows; reading them costs seconds
on every new process, and checking the file's pages (``PRAGMA quick_check``) another few, each time a saved
session changed the file. So the arrays a ``Domain`` is made of are written once, when the domain is first
read after it changed (at build, import and prepare time, and once for a home made before schema 7), as
numpy files that a later process reads without parsing:

- ``counts`` and ``heldout``: the [Q, R, Y] annotation counts and held-out answers, sparse (the flat index
  into [Q, R, Y] and the value of every entry that is not 0: most option slots are padding or empty);
- ``query_labels``, ``query_splits``: the label index and split of every stored query;
- ``query_text``: the queries' texts, UTF-8 bytes end to end, with ``query_text_ends`` (where each one ends).

SQLite stays the truth. ``manifest.json`` says what the arrays were read from (``ArraysStamp``: the file's
data identity and revision from the ``domain_data`` table, which every write of a domain table moves on, and
the largest row ids of the array tables, which catch a write from outside Clarify) and each array file's
shape, type, size and CRC-32. A stamp that differs from the knowledge base's (stale arrays) or a file that
does not match its line (damaged, half written) makes the reader fall back to SQLite and write them again;
arrays are never trusted otherwise.
"""

from __future__ import annotations

import functools
import json
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from assistant.store.connection import ARRAY_TABLES  # the tables the arrays stand for

FORMAT = "domain-arrays-v1"
MANIFEST = "manifest.json"
_FILES = ("counts_index", "counts_value", "heldout_index", "heldout_value", "query_labels", "query_splits")
_TEXT_FILES = ("query_text", "query_text_ends")


@dataclass(frozen=True)
class ArraysStamp:
    """What a set of arrays was read from: equal stamps, same rows in the array tables."""

    identity: str
    revision: int
    rowids: tuple[int, ...]  # MAX(rowid) of each of ARRAY_TABLES


@dataclass
class DomainArrays:
    """The arrays of a ``Domain`` as stored (before the desk's review is applied)."""

    counts: np.ndarray  # [Q, R, Y] float32
    heldout: np.ndarray | None  # [Q, R, Y] float32, or None where no held-out answers are stored
    query_texts: list[str]
    query_labels: np.ndarray  # [N] int64
    query_splits: np.ndarray  # [N] <U5


def arrays_dir(db_path: Path, name: str) -> Path | None:
    """Where the arrays of the domain ``name`` kept in ``db_path`` live (a folder beside the file); None for a
    file under another name (a first build's temporary file: a build killed before it is in place leaves no
    arrays behind, and the file's arrays are written on its first read where it belongs)."""
    if db_path.name != f"{name}.db":
        return None
    return db_path.parent / f"{name}.arrays"


def read_manifest(folder: Path | None) -> dict | None:
    if folder is None:
        return None
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) and manifest.get("format") == FORMAT else None


def stamp_matches(folder: Path | None, stamp: ArraysStamp | None) -> bool:
    """Whether the arrays in ``folder`` say they were read from ``stamp`` (their files are not read)."""
    manifest = read_manifest(folder)
    if manifest is None or stamp is None:
        return False
    return manifest.get("stamp") == _stamp_json(stamp)


def _stamp_json(stamp: ArraysStamp) -> dict:
    return {**asdict(stamp), "rowids": list(stamp.rowids)}


def _sparse(dense: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    flat = dense.reshape(-1)
    index = np.flatnonzero(flat)
    kind = np.int32 if flat.size < 2**31 else np.int64
    return index.astype(kind), flat[index].astype(np.float32)


def _dense(index: np.ndarray, value: np.ndarray, shape: tuple[int, int, int]) -> np.ndarray:
    dense = np.zeros(int(np.prod(shape)), dtype=np.float32)
    if index.size and (index.min() < 0 or index.max() >= dense.size):
        raise ValueError("a sparse index lies outside the array")
    dense[index] = value
    return dense.reshape(shape)


def write_arrays(folder: Path, stamp: ArraysStamp, arrays: DomainArrays) -> None:
    """Write ``arrays``, read from ``stamp``, into ``folder``: each file atomically, the manifest last (a reader
    that finds a file from another write sees its CRC differ, and reads SQLite)."""
    from models.files import atomic_write

    encoded = [text.encode("utf-8") for text in arrays.query_texts]
    files: dict[str, np.ndarray] = {
        "query_labels": np.asarray(arrays.query_labels, dtype=np.int64),
        "query_splits": np.asarray(arrays.query_splits, dtype="<U5"),
        "query_text": np.frombuffer(b"".join(encoded), dtype=np.uint8),
        "query_text_ends": np.cumsum([len(b) for b in encoded], dtype=np.int64),
    }
    files["counts_index"], files["counts_value"] = _sparse(arrays.counts)
    if arrays.heldout is not None:
        files["heldout_index"], files["heldout_value"] = _sparse(arrays.heldout)
    folder.mkdir(parents=True, exist_ok=True)
    entries = {}
    for key, array in files.items():
        path = folder / f"{key}.npy"
        atomic_write(path, functools.partial(_save, array=array))
        data = path.read_bytes()
        entries[key] = {
            "shape": list(array.shape),
            "dtype": array.dtype.str,
            "bytes": len(data),
            "crc32": zlib.crc32(data),
        }
    manifest = {
        "format": FORMAT,
        "stamp": _stamp_json(stamp),
        "shape": list(arrays.counts.shape),
        "files": entries,
    }
    text = json.dumps(manifest, indent=1)
    atomic_write(folder / MANIFEST, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


def _save(tmp: str, array: np.ndarray) -> None:
    with open(tmp, "wb") as handle:
        np.save(handle, array, allow_pickle=False)


def _load(folder: Path, key: str, entry: dict) -> np.ndarray:
    """One array file, memory-mapped, after its size and CRC-32 were found as the manifest says."""
    path = folder / f"{key}.npy"
    data = path.read_bytes()
    if len(data) != entry.get("bytes") or zlib.crc32(data) != entry.get("crc32"):
        raise ValueError(f"{path.name} does not match the manifest")
    array = np.load(path, mmap_mode="c", allow_pickle=False)
    if list(array.shape) != entry.get("shape") or array.dtype.str != entry.get("dtype"):
        raise ValueError(f"{path.name} has another shape or type than the manifest says")
    return array


def read_arrays(folder: Path | None, stamp: ArraysStamp | None, shape: tuple[int, int, int]) -> DomainArrays | None:
    """The arrays in ``folder`` when they were read from ``stamp`` for a [Q, R, Y] ``shape`` and every file is
    whole; None otherwise (stale, damaged, absent: the caller reads SQLite and writes them again)."""
    if not stamp_matches(folder, stamp):
        return None
    manifest = read_manifest(folder)
    assert manifest is not None and folder is not None  # stamp_matches read it
    entries = manifest.get("files", {})
    if manifest.get("shape") != list(shape) or not isinstance(entries, dict):
        return None
    try:
        loaded = {key: _load(folder, key, entry) for key, entry in entries.items() if key in (*_FILES, *_TEXT_FILES)}
        text, ends = loaded["query_text"], loaded["query_text_ends"]
        starts = np.concatenate([[0], ends[:-1]]).astype(np.int64)
        blob = text.tobytes()
        query_texts = [blob[s:e].decode("utf-8") for s, e in zip(starts.tolist(), ends.tolist())]
        counts = _dense(loaded["counts_index"], loaded["counts_value"], shape)
        heldout = None
        if "heldout_index" in loaded:
            heldout = _dense(loaded["heldout_index"], loaded["heldout_value"], shape)
        labels, splits = loaded["query_labels"], loaded["query_splits"]
    except (KeyError, OSError, ValueError, UnicodeDecodeError):
        return None
    if not (len(query_texts) == len(labels) == len(splits)):
        return None
    if labels.size and (labels.min() < 0 or labels.max() >= shape[2]):
        return None
    return DomainArrays(counts, heldout, query_texts, np.asarray(labels), np.asarray(splits))


def data_stamp(db: Any) -> ArraysStamp | None:
    """The knowledge base's stamp now (None for a file before schema 7, or not yet built)."""
    if "domain_data" not in db.table_names():
        return None
    row = db.execute("SELECT identity, revision FROM domain_data WHERE id = 1").fetchone()
    if row is None:
        return None
    rowids = tuple(int(db.execute(f"SELECT COALESCE(MAX(rowid), 0) FROM {t}").fetchone()[0]) for t in ARRAY_TABLES)
    return ArraysStamp(str(row[0]), int(row[1]), rowids)


def mark_changed(db: Any) -> None:
    """Move the knowledge base's data revision on: called by every write of a table a ``Domain`` is read from,
    inside its transaction, so that arrays read before it count as stale."""
    if "domain_data" in db.table_names():
        db.execute("UPDATE domain_data SET revision = revision + 1 WHERE id = 1")
