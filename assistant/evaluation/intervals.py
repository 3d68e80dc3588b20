"""95% intervals for the bench's headline figures, and the paired comparison of two systems.

A figure such as Acc@1 or mean questions is a mean over queries (and, where a benchmark runs several
simulator seeds, over seeds too). ``bootstrap_interval`` resamples the queries (and the seeds) with
replacement and takes the percentile interval of the mean; ``paired_difference`` resamples the same
queries for both systems (they met the same targets, queries and simulated answers), so the interval is
that of the difference, and says "tie" when it holds 0.

Written with numpy rather than ``scipy.stats.bootstrap``: the two-level resampling (seeds x queries) and
the paired difference are a few lines of index arithmetic, and the generator is the caller's (seeded).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from assistant.errors import ConfigError

RESAMPLES = 2000
CONFIDENCE = 0.95
# Rows of resampled indices drawn at once: bounds memory at ~8 MB per 1,000 queries.
CHUNK = 250


def _cells(values: np.ndarray | list) -> np.ndarray:
    """``values`` as a [seeds, queries] float array (one seed when 1-d)."""
    cells = np.asarray(values, dtype=np.float64)
    if cells.ndim == 1:
        cells = cells[None, :]
    if cells.ndim != 2 or cells.size == 0:
        raise ConfigError(
            f"an interval needs per-query values ([queries] or [seeds, queries]), got shape {cells.shape}"
        )
    if np.isnan(cells).any():
        raise ConfigError("per-query values must not be NaN: leave out the queries a figure does not cover")
    return cells


def bootstrap_means(values: np.ndarray | list, rng: np.random.Generator, resamples: int = RESAMPLES) -> np.ndarray:
    """[resamples] means of ``values`` ([queries] or [seeds, queries]) under resampling of the queries and,
    with several seeds, of the seeds, both with replacement."""
    cells = _cells(values)
    seeds, n = cells.shape
    out = np.empty(resamples)
    for start in range(0, resamples, CHUNK):
        size = min(CHUNK, resamples - start)
        queries = rng.integers(0, n, (size, n))
        if seeds == 1:
            out[start : start + size] = cells[0][queries].mean(axis=1)
            continue
        drawn = rng.integers(0, seeds, (size, seeds))
        per_seed = cells[:, queries]  # [seeds, size, n]
        means = per_seed.mean(axis=2)  # [seeds, size]
        out[start : start + size] = np.take_along_axis(means.T, drawn, axis=1).mean(axis=1)
    return out


@dataclass(frozen=True)
class Interval:
    """A mean with its percentile bootstrap interval."""

    mean: float
    low: float
    high: float

    def holds(self, value: float) -> bool:
        return self.low <= value <= self.high

    def text(self, digits: int = 3) -> str:
        return f"{self.mean:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"

    def to_list(self, digits: int = 4) -> list[float]:
        return [round(self.low, digits), round(self.high, digits)]


def bootstrap_interval(
    values: np.ndarray | list, seed: int = 0, resamples: int = RESAMPLES, confidence: float = CONFIDENCE
) -> Interval:
    """The mean of ``values`` ([queries] or [seeds, queries]) with its ``confidence`` percentile interval."""
    if not 0.0 < confidence < 1.0:
        raise ConfigError(f"the confidence must be in (0, 1), got {confidence}")
    cells = _cells(values)
    means = bootstrap_means(cells, np.random.default_rng(seed), resamples)
    tail = 100 * (1.0 - confidence) / 2
    low, high = np.percentile(means, [tail, 100 - tail])
    return Interval(float(cells.mean()), float(low), float(high))


def paired_difference(
    ours: np.ndarray | list,
    other: np.ndarray | list,
    seed: int = 0,
    resamples: int = RESAMPLES,
    confidence: float = CONFIDENCE,
    names: tuple[str, str] = ("ours", "other"),
) -> dict:
    """other - ours, per query (the same queries and seeds for both), with its interval and a verdict:
    "tie" when the interval holds 0, else which of the two (``names``) is higher."""
    a, b = _cells(ours), _cells(other)
    if a.shape != b.shape:
        raise ConfigError(f"a paired comparison needs the same queries for both systems: {a.shape} vs {b.shape}")
    interval = bootstrap_interval(b - a, seed, resamples, confidence)
    verdict = "tie" if interval.holds(0.0) else f"{names[1] if interval.low > 0 else names[0]} higher"
    return {"difference": round(interval.mean, 4), "interval": interval.to_list(), "verdict": verdict}
