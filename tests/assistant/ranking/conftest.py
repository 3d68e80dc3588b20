"""Helpers for the ranking tests: small posteriors and a fast, deterministic stand-in for MiniLM."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.ranking.base import DensePosterior
from tests.support import HashingEncoder


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
