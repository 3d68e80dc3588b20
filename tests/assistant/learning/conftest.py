"""The learning tests: tiny answer-selection problems (tests/support/problems.py), torch on one thread."""

from __future__ import annotations

import pytest

from tests.support.problems import make_problems


@pytest.fixture
def problems():
    return make_problems(60)


@pytest.fixture(autouse=True)
def _one_torch_thread(one_torch_thread):
    """Every test here runs torch on one thread (tests/conftest.py)."""
