"""The reliability tests (marker ``reliability``): a test per defect of issues 12 and 27 and a quick slice of the
reliability probe (``benchmarks.reliability``; the full run is ``make soak``)."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items):
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.reliability)
