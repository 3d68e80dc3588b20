"""Small random Gaussian posteriors for the ranking tests."""

from __future__ import annotations

import numpy as np

from assistant.ranking.base import DensePosterior


def random_posterior(n: int, seed: int, scale: float = 1.0) -> DensePosterior:
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n, n)) * scale / np.sqrt(n)
    return DensePosterior(rng.normal(size=n), a @ a.T + 0.05 * np.eye(n))
