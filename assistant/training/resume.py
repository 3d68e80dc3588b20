"""Where a training that was cancelled stands, so that the next run goes on from there instead of step 1.

A *resume point* is written next to the checkpoint it will become (``<name>-resume.pt`` + ``.json``) at every
evaluation and when the training is cancelled: the weights, the optimiser and schedule, the random states
and the bookkeeping of early stopping. It is used only by a training of the same data, settings and seed
(its ``key``), and removed once the training finishes.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import torch

from models.files import atomic_write


def resume_path(checkpoint: Path) -> Path:
    return checkpoint.with_name(checkpoint.name + "-resume")


def plain(value: Any) -> Any:
    """``value`` with numpy scalars turned into Python numbers (torch's safe loading refuses them)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(plain(v) for v in value)
    if isinstance(value, np.generic):
        return value.item()
    return value


def save_resume(path: Path, key: str, tensors: dict[str, Any], state: dict[str, Any]) -> None:
    """Write a resume point: ``tensors`` (torch objects) in .pt, ``state`` (JSON) with its ``key`` in .json."""
    tensors = plain(tensors)
    atomic_write(path.with_suffix(".pt"), lambda tmp: torch.save(tensors, tmp))
    atomic_write(
        path.with_suffix(".json"), lambda tmp: Path(tmp).write_text(json.dumps({"key": key, **state}, default=float))
    )


def load_resume(path: Path, key: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(tensors, state) of the resume point at ``path`` if it belongs to a training with ``key``, else None."""
    try:
        state = json.loads(path.with_suffix(".json").read_text())
        if state.get("key") != key:
            return None
        tensors = torch.load(path.with_suffix(".pt"), map_location="cpu", weights_only=True)
    except (OSError, ValueError, RuntimeError, EOFError):
        return None
    return tensors, state


def clear_resume(path: Path) -> None:
    for suffix in (".pt", ".json"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(path.with_suffix(suffix))
