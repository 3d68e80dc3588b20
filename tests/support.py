"""Helpers shared by test packages (fixtures stay in conftest.py files)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np


@contextmanager
def clarify_home(path: Path) -> Iterator[Path]:
    """Point CLARIFY_HOME at ``path`` for the block (for session-scoped fixtures, where monkeypatch is not
    available), restoring the previous value afterwards."""
    old = os.environ.get("CLARIFY_HOME")
    os.environ["CLARIFY_HOME"] = str(path)
    try:
        yield path
    finally:
        if old is None:
            os.environ.pop("CLARIFY_HOME", None)
        else:
            os.environ["CLARIFY_HOME"] = old


class WordHashEncoder:
    """Deterministic bag-of-words features: a real (cheap) text encoder for the comparison phase."""

    def encode(self, texts):
        out = np.zeros((len(texts), 16), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                out[i, sum(map(ord, word)) % 16] += 1.0
        return out
