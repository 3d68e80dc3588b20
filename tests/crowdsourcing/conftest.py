"""Fixtures for the crowdsourcing tests (the tiny banking domain `bank` and the fixture folder `data`: tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.store import KnowledgeBase


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
