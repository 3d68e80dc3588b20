"""Checkpoints: a torch ``state_dict`` (``<name>.pt``) plus a JSON sidecar (``<name>.json``).

The sidecar records the model config, library versions, a hash of the training data and any metrics,
so that a stale checkpoint (trained on other data or by an incompatible version) is detected instead of
silently used. Weights load with ``weights_only=True``: a checkpoint file can never run code.

Serving reads the same files without torch (``load_checkpoint_arrays``, ``models.state_arrays``): torch is
imported only by the functions that write or load torch tensors.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from models.errors import CheckpointError
from models.files import atomic_write
from models.state_arrays import DamagedCheckpoint, UnknownLayout, check_checkpoint_file, read_state_arrays

FORMAT_VERSION = 1


def clarify_version() -> str:
    """The installed Clarify's version (recorded in every sidecar)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("clarify-assistant")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "unknown"


def hash_state(parts: Iterable[object], start: Any = None) -> Any:
    """The sha256 state of ``data_hash`` after ``parts``, continued from a copy of ``start`` (a state this
    returned): a caller that hashes the same large arrays before different settings hashes them once."""
    digest = start.copy() if start is not None else hashlib.sha256()
    for part in parts:
        if isinstance(part, np.ndarray):
            digest.update(str(part.shape).encode())
            digest.update(np.ascontiguousarray(part).tobytes())
        else:
            digest.update(repr(part).encode())
        digest.update(b"\x00")
    return digest


def data_hash(parts: Iterable[object], start: Any = None) -> str:
    """A short stable hash of training inputs (strings, numbers, numpy arrays), after ``start``'s (``hash_state``)."""
    return hash_state(parts, start).hexdigest()[:16]


def write_json_atomic(path: str | Path, data: object) -> None:
    """Write ``data`` as JSON to ``path`` atomically (small files that sit beside checkpoints)."""
    text = json.dumps(data, indent=2)
    atomic_write(Path(path), lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


def write_npz_atomic(path: str | Path, **arrays: np.ndarray) -> None:
    """Write ``arrays`` as one ``.npz`` to ``path`` atomically (caches of vectors; through a file handle, so
    numpy does not append ``.npz`` to the temporary file's name)."""

    def write(tmp: str) -> None:
        with open(tmp, "wb") as handle:
            np.savez(handle, **arrays)  # type: ignore[arg-type]  # numpy's stub reads **arrays as allow_pickle: bool

    atomic_write(Path(path), write)


def read_json(path: str | Path) -> dict | None:
    """The JSON object in ``path``; None when it is absent, unreadable, not UTF-8, not JSON or not an object
    (callers treat a damaged file like a missing one and rebuild it)."""
    try:
        data = json.loads(Path(path).read_bytes().decode("utf-8"))
    except (OSError, ValueError, RecursionError):  # ValueError: JSONDecodeError, UnicodeDecodeError, huge ints
        return None
    return data if isinstance(data, dict) else None


def save_checkpoint(
    path: str | Path, state_dict: dict, config: dict, data: str = "", metrics: dict | None = None
) -> None:
    """Write ``path``.pt and ``path``.json (both atomically)."""
    import torch

    path = Path(path)
    sidecar = {
        "format": FORMAT_VERSION,
        "clarify_version": clarify_version(),
        "torch_version": torch.__version__,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "config": config,
        "data_hash": data,
        "metrics": metrics or {},
    }
    # weights first, sidecar last: a sidecar never describes weights that are not there yet. Serialised in
    # memory: torch.save names the archive's folder after the file it writes (here a random temporary
    # name), so that the same weights would give other bytes; from memory it is always "archive".
    buffer = io.BytesIO()
    torch.save(state_dict, buffer)
    atomic_write(path.with_suffix(".pt"), lambda tmp: Path(tmp).write_bytes(buffer.getvalue()))
    write_json_atomic(path.with_suffix(".json"), sidecar)


def read_sidecar(path: str | Path) -> dict | None:
    """The JSON sidecar of a checkpoint; None if there is none or it is damaged (not UTF-8, not JSON, not an
    object with a 'config' object): a damaged checkpoint counts as missing and is retrained."""
    sidecar = read_json(Path(path).with_suffix(".json"))
    if sidecar is None or not isinstance(sidecar.get("config"), dict):
        return None
    return sidecar


def _checked_sidecar(path: Path, expected_data: str | None) -> dict:
    """The sidecar of the checkpoint at ``path``; CheckpointError if it or the weights are absent, of another
    format, or (``expected_data`` given) trained on other data."""
    weights = path.with_suffix(".pt")
    sidecar = read_sidecar(path)
    if sidecar is None and path.with_suffix(".json").exists():
        raise CheckpointError(
            f"{path.with_suffix('.json')} is damaged (not a checkpoint description): delete it and {weights}, then "
            "retrain (see `clarify prepare --help`)"
        )
    if not weights.is_file() or sidecar is None:
        raise CheckpointError(f"no trained model at {weights}: train it (see `clarify prepare --help`)")
    if sidecar.get("format") != FORMAT_VERSION:
        raise CheckpointError(f"{weights} has checkpoint format {sidecar.get('format')}; retrain it")
    if expected_data is not None and sidecar.get("data_hash") != expected_data:
        raise CheckpointError(
            f"{weights} was trained on different data (the domain changed since): retrain it "
            "(e.g. `clarify train encoder DOMAIN`)"
        )
    return sidecar


def _check_finite(weights: Path, floats: dict[str, bool]) -> None:
    """CheckpointError naming the weights whose values are not all finite (``floats``: name -> all finite)."""
    broken = [k for k, finite in floats.items() if not finite]
    if broken:  # NaN or inf: every answer would be NaN; a damaged model, replaced like a missing one
        raise CheckpointError(
            f"{weights} is damaged: its weights {', '.join(broken[:3])} hold values that are not finite numbers; "
            "delete it and retrain"
        )


def load_checkpoint(path: str | Path, expected_data: str | None = None) -> tuple[dict, dict]:
    """(state_dict of torch tensors, sidecar). Raises CheckpointError, saying how to fix it, if absent,
    unreadable or stale."""
    import torch

    path = Path(path)
    sidecar = _checked_sidecar(path, expected_data)
    weights = path.with_suffix(".pt")
    try:
        check_checkpoint_file(weights)  # a compressed entry (a zip bomb) is refused before torch inflates it
        state = torch.load(weights, map_location="cpu", weights_only=True)
    except DamagedCheckpoint as exc:
        raise CheckpointError(f"{weights} is damaged ({exc}): delete it and retrain") from exc
    except Exception as exc:  # torch raises several types for damaged files
        raise CheckpointError(f"cannot read {weights} ({_short(exc)}): delete it and retrain") from exc
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise CheckpointError(f"{weights} holds no model weights (a wrong or damaged file): delete it and retrain")
    _check_finite(weights, {k: bool(torch.isfinite(v).all()) for k, v in state.items() if v.is_floating_point()})
    return state, sidecar


def load_checkpoint_arrays(path: str | Path, expected_data: str | None = None) -> tuple[dict[str, np.ndarray], dict]:
    """``load_checkpoint`` with numpy arrays for tensors (same names, shapes and dtypes; 0-d for scalars), read
    without importing torch (``models.state_arrays``) unless the file is in a layout that reader does not know.
    The same checks and CheckpointErrors."""
    path = Path(path)
    sidecar = _checked_sidecar(path, expected_data)
    weights = path.with_suffix(".pt")
    try:
        state = read_state_arrays(weights)
    except DamagedCheckpoint as exc:  # never handed to torch: the registry replaces it like a missing model
        raise CheckpointError(f"{weights} is damaged ({exc}): delete it and retrain") from exc
    except UnknownLayout:  # an older or unusual layout: torch reads it (and says what is wrong with it)
        tensors, _ = load_checkpoint(path, expected_data)
        state = {k: v.detach().cpu().numpy() for k, v in tensors.items()}
    except OSError as exc:
        raise CheckpointError(f"cannot read {weights} ({_short(exc)}): delete it and retrain") from exc
    _check_finite(weights, {k: bool(np.isfinite(v).all()) for k, v in state.items() if v.dtype.kind == "f"})
    return state, sidecar


def _short(exc: Exception) -> str:
    """An exception's message on one line and short (torch's may span many lines)."""
    text = " ".join(str(exc).split())
    return text if len(text) <= 200 else text[:199] + "…"
