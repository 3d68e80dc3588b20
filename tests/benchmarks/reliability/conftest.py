"""The reliability probe's tests (marker ``reliability``, also set on the defect tests in the rooms): the
probe's simulated people, its targets and a quick slice of the probe (``benchmarks.reliability``; the full run is ``make soak``)."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items):
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.reliability)
