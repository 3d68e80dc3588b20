"""Helpers for the ranking tests: small posteriors and a fast, deterministic stand-in for MiniLM."""

from __future__ import annotations

import hashlib
import re

import numpy as np
import pytest

from assistant.ranking.base import DensePosterior


class HashingEncoder:
    """Bag-of-words hashed into 64 dimensions, L2-normalised: deterministic and instant (tests only)."""

    dim = 64

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[i, int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dim] += 1.0
            out[i] /= max(np.linalg.norm(out[i]), 1e-6)
        return out


def random_posterior(n: int, seed: int, scale: float = 1.0) -> DensePosterior:
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n, n)) * scale / np.sqrt(n)
    return DensePosterior(rng.normal(size=n), a @ a.T + 0.05 * np.eye(n))


@pytest.fixture
def hashing_encoder() -> HashingEncoder:
    return HashingEncoder()


@pytest.fixture(autouse=True)
def one_torch_thread():
    """Small torch ops run faster on one thread on a busy 2-core machine; restore the setting afterwards."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
