"""Issue 33: the window opens on a usable Ask page at once; the domain loads behind it with its progress and
Cancel, and a question typed meanwhile is kept and answered once the domain is ready."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from gui_helpers import TIMEOUT_MS, TinyAgents, close_window, wait_idle
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton, QWidget

from assistant.progress import Progress

ROOT = Path(__file__).resolve().parents[2]


class Gate:
    """A domain loader that reports progress until it is let through (Cancel ends it at its next step)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = threading.Event()
        self.names: list[str] = []

    def __call__(self, name: str):
        self.names.append(name)
        yield Progress(0, 0, "checking the models")
        self.started.set()
        step = 0
        while not self.release.wait(0.01):
            step += 1
            yield Progress(min(step, 99), 100, "loading the models")
        yield Progress(100, 100, "ready")
        return TinyAgents(turns=3, name=name)


def loading_window(qtbot, settings, gate: Gate, domain: str = "tiny"):
    from gui.main_window import MainWindow

    window = MainWindow(settings=settings, domain_loader=gate, initial_domain=domain)
    qtbot.addWidget(window, before_close_func=close_window)
    window.show()  # the domain starts loading once the event loop runs
    qtbot.waitUntil(gate.started.is_set, timeout=TIMEOUT_MS)
    qtbot.waitUntil(lambda: window.ask_page.loading.isVisible(), timeout=TIMEOUT_MS)
    return window


def type_and_ask(qtbot, window, question: str) -> None:
    page = window.ask_page
    page.query_input.clear()
    qtbot.keyClicks(page.query_input, question)
    qtbot.keyClick(page.query_input, Qt.Key.Key_Return)


def test_the_ask_page_takes_a_question_before_the_domain_is_ready(qtbot, settings):
    gate = Gate()
    window = loading_window(qtbot, settings, gate)
    page = window.ask_page
    assert window.tabs.currentWidget() is page and window.domain is None and window.registries == {}
    assert page.query_input.isEnabled() and page.ask_button.isEnabled()  # no modal dialog in the way
    assert window.findChild(QWidget, "progressDialog") is None
    cancel = page.loading.findChild(QPushButton, "domainLoadingCancelButton")
    assert cancel.isVisible() and cancel.isEnabled()
    qtbot.waitUntil(lambda: page.loading.panel.bar.value() > 0, timeout=TIMEOUT_MS)  # the progress moves

    type_and_ask(qtbot, window, "red breast")
    assert "red breast" in page.loading.note.text() and "kept" in page.loading.note.text()
    assert window.pending_query == "red breast" and window.controller.snapshot is None
    assert gate.names == ["tiny"], "asking does not start a second loading"

    gate.release.set()
    qtbot.waitUntil(lambda: window.controller.snapshot is not None, timeout=TIMEOUT_MS)
    wait_idle(qtbot, window)
    snapshot = window.controller.snapshot
    assert snapshot.query == "red breast" and snapshot.domain == "tiny" and snapshot.question is not None
    assert not page.loading.isVisible() and window.pending_query is None
    assert page.card.title.text().startswith("Question")


def test_only_the_latest_question_typed_while_loading_is_asked(qtbot, settings):
    gate = Gate()
    window = loading_window(qtbot, settings, gate)
    type_and_ask(qtbot, window, "red breast")
    type_and_ask(qtbot, window, "small yellow bird")
    gate.release.set()
    qtbot.waitUntil(lambda: window.controller.snapshot is not None, timeout=TIMEOUT_MS)
    wait_idle(qtbot, window)
    assert window.controller.snapshot.query == "small yellow bird"
    sessions: list = []
    window.controller.sessionsListed.connect(sessions.append)
    window.controller.list_sessions()
    qtbot.waitUntil(lambda: bool(sessions), timeout=TIMEOUT_MS)
    assert [s.query for s in sessions[0]] == ["small yellow bird"]


def test_cancel_while_loading_keeps_the_question_and_says_what_happened(qtbot, settings):
    gate = Gate()
    window = loading_window(qtbot, settings, gate)
    page = window.ask_page
    type_and_ask(qtbot, window, "red breast")
    page.loading.findChild(QPushButton, "domainLoadingCancelButton").click()
    qtbot.waitUntil(lambda: window.opening is None, timeout=TIMEOUT_MS)
    note = page.loading.note.text()
    assert page.loading.isVisible() and "cancelled" in note and "still in the box" in note
    assert not page.loading.panel.cancel_button.isVisible() and not page.loading.panel.message.isVisible()
    assert "cancelled" in window.statusBar().currentMessage()
    assert page.query_input.text() == "red breast" and page.query_input.isEnabled()
    assert window.controller.snapshot is None and window.pending_query is None

    gate2 = Gate()  # press Ask again: the domain gets ready again, and the question is answered
    gate2.release.set()
    window.domain_loader = gate2
    page.ask_button.click()
    qtbot.waitUntil(lambda: window.controller.snapshot is not None, timeout=TIMEOUT_MS)
    wait_idle(qtbot, window)
    assert window.controller.snapshot.query == "red breast" and gate2.names == ["tiny"]
    assert not page.loading.isVisible()


def test_another_domain_picked_while_loading_waits_its_turn(qtbot, settings):
    gate = Gate()
    window = loading_window(qtbot, settings, gate)
    window.open_domain("other")
    assert window.domain_picker.currentData() == "tiny"
    assert "tiny is getting ready" in window.statusBar().currentMessage()
    gate.release.set()
    qtbot.waitUntil(lambda: window.domain == "tiny", timeout=TIMEOUT_MS)
    wait_idle(qtbot, window)
    assert gate.names == ["tiny"]


def test_settings_changed_while_loading_hold_once_the_domain_is_ready(qtbot, settings):
    gate = Gate()
    window = loading_window(qtbot, settings, gate)
    dialog = window.open_settings()
    dialog.budget.setValue(5)
    dialog.accept()
    gate.release.set()
    qtbot.waitUntil(lambda: window.domain == "tiny" and window.controller.attached, timeout=TIMEOUT_MS)
    wait_idle(qtbot, window)
    assert window.controller.config.ranking_budget == 5


def test_the_lab_waits_for_the_first_domain_instead_of_freezing_the_window(qtbot, settings):
    """Making the Lab imports the research stack, which the loading worker is importing: the GUI thread would
    wait for it. While the first domain loads, the Lab's tab says it opens once the domain is ready."""
    gate = Gate()
    window = loading_window(qtbot, settings, gate)
    window.show_page("lab")
    assert window.tabs.currentWidget().objectName() == "labPlaceholder"
    assert window.findChild(QWidget, "labPage") is None
    gate.release.set()
    qtbot.waitUntil(lambda: window.findChild(QWidget, "labPage") is not None, timeout=TIMEOUT_MS)
    assert window.tabs.currentWidget() is window.lab_page and window.lab_page.domain == "tiny"
    wait_idle(qtbot, window)


def test_the_window_opens_without_the_model_stack(tmp_path):
    """What makes the window show at once: constructing and showing it imports no torch, sklearn,
    scipy, transformers, pyqtgraph or model registry (they load in the worker that opens the domain)."""
    heavy = (
        "torch",
        "sklearn",
        "scipy",
        "transformers",
        "pyqtgraph",
        "assistant.app.lifecycle.registry",
        "gui.pages.lab",
    )
    script = (
        "import sys, json\n"
        "from PySide6.QtWidgets import QApplication\n"
        "app = QApplication([])\n"
        "from gui.main_window import MainWindow\n"
        "window = MainWindow(open_initial=False)\n"
        "window.show()\n"
        "app.processEvents()\n"
        f"print(json.dumps([m for m in {heavy!r} if m in sys.modules]))\n"
        "window.close()\n"
    )
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "CLARIFY_HOME": str(tmp_path / "home"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
