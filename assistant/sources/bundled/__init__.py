"""Locations of the raw data files bundled with Clarify (see README.md in this folder)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from assistant.errors import ConfigError


def bundled_file(dataset: str, relative: str) -> Path:
    """Path of a bundled file; raises ConfigError naming the missing file (a broken install)."""
    path = Path(str(resources.files("assistant.sources") / "bundled" / dataset / relative))
    if not path.is_file():
        raise ConfigError(
            f"bundled data file {dataset}/{relative} is missing from {path.parent}: reinstall Clarify "
            "(`make install` or `pip install -e .`)"
        )
    return path
