"""Shared fixtures: every test runs with its own empty CLARIFY_HOME, offline, Qt offscreen; the tiny domain, the
hashing stand-in for MiniLM and the crowd fixtures used by more than one room. Helpers that are not fixtures live
in tests/support/."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from tests.support import HashingEncoder, clarify_home

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
    from assistant.sources.adapters import build_domain

    home = tmp_path_factory.mktemp("built-home")
    with clarify_home(home):
        for name in ("birds", "faq", "banking"):
            run_job(build_domain(name))
    return home


@pytest.fixture(scope="session")
def prepared_faq_home(tmp_path_factory):
    """A CLARIFY_HOME with faq built and prepared as a person's first `clarify ask faq` leaves it: its release models
    installed, its prior calibrated (about 25 s of CPU: for slow tests; read-only use)."""
    from assistant.app.desk.domains import prepare
    from assistant.progress import run_job

    home = tmp_path_factory.mktemp("prepared-faq-home")
    with clarify_home(home):
        run_job(prepare("faq"))
    return home


@pytest.fixture
def use_built_home(built_home, monkeypatch):
    """Point CLARIFY_HOME at the session's built domains (do not modify them)."""
    monkeypatch.setenv("CLARIFY_HOME", str(built_home))
    return built_home


@pytest.fixture
def tiny_domain():
    """The tiny 4-bird domain (tests.support.tiny)."""
    from tests.support.tiny import make_tiny_domain

    return make_tiny_domain()


@pytest.fixture
def hashing_encoder() -> HashingEncoder:
    return HashingEncoder()


@pytest.fixture
def fast_encoder(monkeypatch) -> HashingEncoder:
    """Replace MiniLM by the hashing encoder wherever the default encoder is built (in this process: sweeps
    embed in the planning process and ship the vectors with the shards)."""
    import models.pretrained

    monkeypatch.setattr(models.pretrained, "SentenceEncoder", HashingEncoder)
    return HashingEncoder()


@pytest.fixture
def one_torch_thread():
    """Small torch ops run faster on one thread on a busy 2-core machine; restore the setting afterwards."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture
def bank() -> str:
    """The name of a freshly built tiny crowd domain 'bank' in this test's CLARIFY_HOME (tests.support.crowd)."""
    from tests.support.crowd import build_bank

    return build_bank()


@pytest.fixture
def data():
    """The folder of crowd fixture files (tests/data/crowd)."""
    from tests.support.crowd import DATA

    return DATA
