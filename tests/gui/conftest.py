"""GUI test fixtures: every test here is marked ``gui`` and runs offscreen.

Two kinds of agents drive the window:

- ``tiny``: the engine tests' 4-label domain with a keyword prior and a fixed number of questions, for fast
  tests of every widget and action;
- ``trained_home``: the bundled birds and faq domains with really trained (tiny-budget) encoder and policies,
  built once per test session, for the end-to-end tests and the Lab. MiniLM's sentence vectors are replaced by
  hashed words of the same width, while training and in every test that uses the home: the answers' cached
  vectors and the person's query then live in one vector space, so the comparisons rank something real.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from gui_helpers import make_window, use_hashed_sentences

from tests.support import clarify_home

GUI_DIR = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items):
    for item in items:
        if Path(str(item.fspath)).resolve().parent == GUI_DIR:
            item.add_marker(pytest.mark.gui)


@pytest.fixture(autouse=True)
def collect_garbage_in_the_gui_thread(qapp):
    """As the app does (see ``GuiThreadGarbageCollection``): a collection in a worker thread can deadlock."""
    from gui.workers import GuiThreadGarbageCollection

    collection = GuiThreadGarbageCollection()
    collection.start()
    yield
    collection.stop()


@pytest.fixture
def settings(tmp_path):
    from PySide6.QtCore import QSettings

    settings = QSettings(str(tmp_path / "clarify-gui.ini"), QSettings.Format.IniFormat)
    # a short comparison phase that always asks at least once (as the engine's session tests do)
    settings.setValue("session/shortlist_size", 3)
    settings.setValue("session/ranking_budget", 3)
    settings.setValue("session/ranking_threshold", 0.999)
    return settings


@pytest.fixture
def tiny_window(qtbot, settings):
    return make_window(qtbot, settings)


# ---- the bundled domains, trained with tiny budgets -------------------------------------------------------
TRAINED_DOMAINS = ("faq", "birds")


@pytest.fixture(scope="session")
def trained_home(built_home, tmp_path_factory):
    """A CLARIFY_HOME with faq and birds built and their models trained with tiny budgets (once)."""
    from gui_training import train_tiny_models

    home = tmp_path_factory.mktemp("trained-home")
    (home / "domains").mkdir()
    for name in TRAINED_DOMAINS:
        shutil.copy(built_home / "domains" / f"{name}.db", home / "domains" / f"{name}.db")
    with clarify_home(home), pytest.MonkeyPatch.context() as patch:
        use_hashed_sentences(patch)
        for name in TRAINED_DOMAINS:
            print(f"trained {name} in {train_tiny_models(name):.1f} s")
    return home


@pytest.fixture
def use_trained_home(trained_home, monkeypatch):
    monkeypatch.setenv("CLARIFY_HOME", str(trained_home))
    use_hashed_sentences(monkeypatch)
    return trained_home
