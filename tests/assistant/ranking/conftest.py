"""The ranking tests run torch on one thread (fixtures: tests/conftest.py; helpers: tests/support/posteriors.py)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _one_torch_thread(one_torch_thread):
    """Every test here runs torch on one thread (tests/conftest.py)."""
