"""Checkpoints: a torch ``state_dict`` (``<name>.pt``) plus a JSON sidecar (``<name>.json``).

The sidecar records the model config, library versions, a hash of the training data and any metrics,
so that a stale checkpoint (trained on other data or by an incompatible version) is detected instead of
silently used. Weights load with ``weights_only=True``: a checkpoint file can never run code.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import torch

from models.errors import CheckpointError

FORMAT_VERSION = 1


def clarify_version() -> str:
    """The installed Clarify's version (recorded in every sidecar)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("clarify-assistant")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "unknown"


def data_hash(parts: Iterable[object]) -> str:
    """A short stable hash of training inputs (strings, numbers, numpy arrays)."""
    digest = hashlib.sha256()
    for part in parts:
        if isinstance(part, np.ndarray):
            digest.update(str(part.shape).encode())
            digest.update(np.ascontiguousarray(part).tobytes())
        else:
            digest.update(repr(part).encode())
        digest.update(b"\x00")
    return digest.hexdigest()[:16]


def atomic_write(path: Path, write) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".")
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def save_checkpoint(
    path: str | Path, state_dict: dict, config: dict, data: str = "", metrics: dict | None = None
) -> None:
    """Write ``path``.pt and ``path``.json (both atomically)."""
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
    atomic_write(path.with_suffix(".pt"), lambda tmp: torch.save(state_dict, tmp))
    atomic_write(path.with_suffix(".json"), lambda tmp: Path(tmp).write_text(json.dumps(sidecar, indent=2)))


def read_sidecar(path: str | Path) -> dict | None:
    """The JSON sidecar of a checkpoint, or None if there is none."""
    sidecar = Path(path).with_suffix(".json")
    if not sidecar.is_file():
        return None
    try:
        return json.loads(sidecar.read_text())
    except json.JSONDecodeError:
        return None


def load_checkpoint(path: str | Path, expected_data: str | None = None) -> tuple[dict, dict]:
    """(state_dict, sidecar). Raises CheckpointError, saying how to fix it, if absent, unreadable or stale."""
    path = Path(path)
    weights = path.with_suffix(".pt")
    sidecar = read_sidecar(path)
    if not weights.is_file() or sidecar is None:
        raise CheckpointError(f"no trained model at {weights}: train it (see `clarify prepare --help`)")
    if sidecar.get("format") != FORMAT_VERSION:
        raise CheckpointError(f"{weights} has checkpoint format {sidecar.get('format')}; retrain it")
    if expected_data is not None and sidecar.get("data_hash") != expected_data:
        raise CheckpointError(
            f"{weights} was trained on different data (the domain changed since): retrain it "
            "(e.g. `clarify train encoder DOMAIN`)"
        )
    try:
        state = torch.load(weights, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises several types for damaged files
        raise CheckpointError(f"cannot read {weights} ({exc}): delete it and retrain") from exc
    return state, sidecar
