"""The window opens a prepared faq with the engine's own loader (``assistant.app.desk.domains.open_domain``,
which serves without the training stack since issue 33) and asks a first question from a typed query."""

from __future__ import annotations

import shutil

import pytest
from gui_helpers import TIMEOUT_MS, ask, close_window, wait_idle
from PySide6.QtWidgets import QLabel

pytestmark = pytest.mark.slow  # the prepared faq home (tests/conftest.py)


def test_a_prepared_faq_opens_and_asks(qtbot, settings, prepared_faq_home, tmp_path, monkeypatch):
    from gui.main_window import MainWindow

    home = tmp_path / "home"
    shutil.copytree(prepared_faq_home, home)  # the window writes sessions: a copy of the shared home
    monkeypatch.setenv("CLARIFY_HOME", str(home))
    window = MainWindow(settings=settings, initial_domain="faq")  # the real loader
    qtbot.addWidget(window, before_close_func=close_window)
    window.show()
    qtbot.waitUntil(lambda: window.domain == "faq" and window.controller.attached, timeout=6 * TIMEOUT_MS)
    wait_idle(qtbot, window, timeout=6 * TIMEOUT_MS)
    ask(qtbot, window, "my email does not sync")
    qtbot.waitUntil(lambda: window.controller.snapshot is not None, timeout=3 * TIMEOUT_MS)
    wait_idle(qtbot, window)
    snapshot = window.controller.snapshot
    assert snapshot.phase == "clarifying" and snapshot.question is not None
    shown = window.findChild(QLabel, "questionText")
    assert shown is not None and shown.text()
