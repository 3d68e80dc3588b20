"""Helpers for the bench tests: MiniLM replaced by the deterministic hashing encoder (as in tests/ranking)."""

from __future__ import annotations

import pytest

from tests.support import HashingEncoder


@pytest.fixture
def fast_encoder(monkeypatch):
    """Replace MiniLM by the hashing encoder wherever the ranking code asks for the default encoder (in this
    process: sweeps embed in the planning process and ship the vectors with the shards)."""
    import models.pretrained

    monkeypatch.setattr(models.pretrained, "SentenceEncoder", HashingEncoder)
