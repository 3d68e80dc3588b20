"""Every example in a docstring of the engine (assistant/, models/, crowdsourcing/) runs and shows what it says:
the modules are found by their ``>>>``, so a new example is run without being listed anywhere."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("assistant", "models", "crowdsourcing")


def _modules_with_examples() -> list[str]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if ">>>" in path.read_text(encoding="utf-8"):
                parts = list(path.relative_to(ROOT).with_suffix("").parts)
                if parts[-1] == "__init__":
                    parts.pop()
                found.append(".".join(parts))
    return found


MODULES = _modules_with_examples()


def test_the_examples_are_found():
    assert "assistant.ranking.ranking_session" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(importlib.import_module(name), optionflags=flags, report=True)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed (printed above)"
