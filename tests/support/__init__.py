"""Helpers shared by the test packages (fixtures stay in conftest.py files): where the repository and its test
data are, a temporary CLARIFY_HOME, and cheap deterministic text encoders. The modules beside this one hold the
small domains and data that tests of several rooms build on."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
TEST_DATA = REPO / "tests" / "data"
EXAMPLES = REPO / "docs" / "examples"


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


class HashingEncoder:
    """Bag of words hashed (md5) into ``dim`` dimensions, L2-normalised: a deterministic, instant stand-in for
    MiniLM's sentence vectors (``dim=384`` where vectors must match MiniLM's width)."""

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[i, int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dim] += 1.0
            out[i] /= max(float(np.linalg.norm(out[i])), 1e-6)
        return out
