"""Stable per-label splits of a data set's rows, shared by the adapters: a label's rows go to train, dev and
test by a random generator seeded with the label's key, so that a rebuild splits them the same way."""

from __future__ import annotations

import zlib

import numpy as np


def label_rng(key: str, salt: str = "") -> np.random.Generator:
    """A random generator seeded by a label key, so that per-label splits are stable across builds."""
    return np.random.default_rng(zlib.crc32(f"{salt}{key}".encode()))


def split_counts(n: int, dev: float, test: float) -> tuple[int, int, int]:
    """(train, dev, test) sizes for ``n`` items: at least one test and, with 3+ items, one dev item."""
    if n <= 1:
        return n, 0, 0
    n_test = max(1, round(test * n))
    n_dev = max(1, round(dev * n)) if n - n_test >= 2 and dev > 0 else 0
    return n - n_test - n_dev, n_dev, n_test


def texts_by_label(keys: list[str], queries: list[tuple[str, str, str]], split: str) -> list[list[str]]:
    """The texts of ``split`` of each label in ``keys``, from (label key, text, split) query rows."""
    found: dict[str, list[str]] = {key: [] for key in keys}
    for key, text, s in queries:
        if s == split:
            found[key].append(text)
    return [found[key] for key in keys]
