"""Shared fixtures: every test runs with its own empty CLARIFY_HOME, offline, Qt offscreen."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from tests.support import clarify_home

# Property tests draw the same examples on every machine (CI has no example database): a failure is
# reproducible from the commit alone. Explore more with `pytest --hypothesis-profile=explore`.
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False, max_examples=200)
settings.load_profile("repeatable")

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")


@pytest.fixture(autouse=True)
def fresh_clarify_home(tmp_path, monkeypatch):
    """A fresh data folder per test, so tests never touch the user's real knowledge bases."""
    home = tmp_path / "clarify-home"
    home.mkdir()
    monkeypatch.setenv("CLARIFY_HOME", str(home))
    return home


@pytest.fixture(scope="session")
def built_home(tmp_path_factory):
    """A CLARIFY_HOME with the three bundled domains built once per test session (read-only use)."""
    from assistant.progress import run_job
    from crowdsourcing.adapters import build_domain

    home = tmp_path_factory.mktemp("built-home")
    with clarify_home(home):
        for name in ("birds", "faq", "banking"):
            run_job(build_domain(name))
    return home


@pytest.fixture
def use_built_home(built_home, monkeypatch):
    """Point CLARIFY_HOME at the session's built domains (do not modify them)."""
    monkeypatch.setenv("CLARIFY_HOME", str(built_home))
    return built_home
