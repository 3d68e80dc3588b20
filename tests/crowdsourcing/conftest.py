"""Fixtures for the crowdsourcing tests: a tiny banking domain built in the test's own CLARIFY_HOME."""

from __future__ import annotations

from pathlib import Path

import pytest
from crowd_helpers import DATA, build_bank

from assistant.store import KnowledgeBase


@pytest.fixture
def bank() -> str:
    """The name of a freshly built tiny domain 'bank' in this test's CLARIFY_HOME."""
    return build_bank()


@pytest.fixture
def data() -> Path:
    """The folder of crowd fixture files."""
    return DATA


@pytest.fixture
def faq_copy(use_built_home, tmp_path, monkeypatch) -> str:
    """A private, writable copy of the bundled 'faq' domain (the session's built home stays untouched)."""
    source = Path(use_built_home) / "domains" / "faq.db"
    home = tmp_path / "faq-home"
    (home / "domains").mkdir(parents=True)
    with KnowledgeBase(source, "faq") as kb:
        kb.backup(home / "domains" / "faq.db")
    monkeypatch.setenv("CLARIFY_HOME", str(home))
    return "faq"
