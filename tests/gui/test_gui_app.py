"""The app shell: start-up without a display, menus and shortcuts, settings, the domain picker, dialogs."""

from __future__ import annotations

import sys
import time

from gui_helpers import TIMEOUT_MS, TinyAgents, activate, make_window, wait_idle
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QAbstractButton, QComboBox, QLineEdit, QMessageBox, QPushButton, QWidget

from assistant.errors import DomainNotFoundError
from assistant.progress import Progress
from gui import app
from gui.dialogs import session_config
from gui.plots import LearningCurve


def test_without_a_display_it_explains_the_terminal_mode(monkeypatch, capsys):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    assert app.main(["--domain", "birds"]) == 2
    err = capsys.readouterr().err
    assert 'clarify ask birds "your question"' in err and "QT_QPA_PLATFORM=offscreen" in err


def test_options_are_checked_before_anything_starts(capsys):
    assert app.main(["--domain"]) == 2  # click's usage error, exit code 2 as before
    assert "requires an argument" in capsys.readouterr().err
    assert app.main(["--help"]) == 0
    assert "--no-open" in capsys.readouterr().out


def test_display_detection():
    assert not app.display_available({}, "linux")
    assert app.display_available({"DISPLAY": ":0"}, "linux")
    assert app.display_available({"WAYLAND_DISPLAY": "wayland-0"}, "linux")
    assert app.display_available({"QT_QPA_PLATFORM": "offscreen"}, "linux")
    assert app.display_available({}, "win32") and app.display_available({}, "darwin")
    assert app.command.make_context("clarify-gui", ["--domain", "faq"]).params == {"domain": "faq", "no_open": False}


def test_the_qt_binding_keeps_none_alive(qtbot):
    """PySide6 6.12.0 drops a reference to None on every void call under Python 3.11; the app then aborts."""
    from PySide6.QtWidgets import QLabel

    label = QLabel()
    qtbot.addWidget(label)
    before = sys.getrefcount(None)
    for _ in range(2000):
        label.setText("x")
    assert sys.getrefcount(None) - before > -100


def test_menus_shortcuts_and_accessible_names(qtbot, tiny_window):
    window = tiny_window
    shortcuts = {a.objectName(): a.shortcut().toString() for a in window.actions()}
    assert shortcuts["newAction"] == "Ctrl+N"
    assert shortcuts["undoAction"] == "Ctrl+Z"
    assert shortcuts["quitAction"] == "Ctrl+Q"
    assert shortcuts["helpAction"] == "F1"
    titles = [a.text() for a in window.menuBar().actions()]
    assert titles == ["&File", "&Edit", "&View", "&Help"]
    for cls in (QAbstractButton, QLineEdit, QComboBox):
        for widget in window.findChildren(cls):
            if widget.isVisibleTo(window) and widget.objectName() and not widget.objectName().startswith("qt_"):
                name = widget.accessibleName() or (widget.text() if isinstance(widget, QAbstractButton) else "")
                assert name, f"{widget.objectName()} has no accessible name"
    for name in (
        "queryInput",
        "askButton",
        "questionText",
        "answerButtons",
        "posteriorView",
        "undoButton",
        "shortlistView",
        "compareLeft",
        "compareRight",
        "preferLeftButton",
        "preferRightButton",
        "tieButton",
        "finalAnswer",
        "domainPicker",
    ):
        assert window.findChild(QWidget, name) is not None, name
    assert window.findChild(QWidget, "labPage") is None  # made when first shown (the research stack is heavy)
    window.show_page("lab")
    assert window.findChild(QWidget, "labPage") is window.lab_page


def test_pages_help_and_about_from_the_keyboard(qtbot, tiny_window):
    window = tiny_window
    activate(qtbot, window)
    for key, page in (
        (Qt.Key.Key_5, window.summarize_page),
        (Qt.Key.Key_4, window.lab_page),
        (Qt.Key.Key_3, window.history_page),
        (Qt.Key.Key_1, window.ask_page),
    ):
        qtbot.keyClick(window, key, Qt.KeyboardModifier.ControlModifier)
        assert window.tabs.currentWidget() is page
    qtbot.keyClick(window, Qt.Key.Key_F1)
    assert window.help_dialog is not None and window.help_dialog.isVisible()
    assert "Ctrl+Z" in window.help_dialog.findChild(QWidget, "helpText").toPlainText()
    window.help_dialog.close()
    about = window.show_about()
    assert about.isVisible() and "Clarify" in about.text()
    about.close()
    window.ask_page.query_input.setText("something")
    window.show_page("lab")
    activate(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)  # new question
    wait_idle(qtbot, window)
    assert window.tabs.currentWidget() is window.ask_page
    assert window.ask_page.query_input.hasFocus() and window.ask_page.query_input.selectedText() == "something"


def test_geometry_domain_and_session_settings_are_kept(qtbot, tmp_path):
    path = str(tmp_path / "kept.ini")
    settings = QSettings(path, QSettings.Format.IniFormat)
    window = make_window(qtbot, settings)
    # the offscreen screen is 800 x 800: a saved size kept must leave room for a window frame (see window_size)
    window.resize(window.minimumSizeHint().width(), 700)
    dialog = window.open_settings()
    dialog.shortlist.setValue(4)
    dialog.budget.setValue(6)
    dialog.accept()
    assert session_config(settings).shortlist_size == 4 and window.controller.config.ranking_budget == 6
    window._force_close = True
    window.close()
    reread = QSettings(path, QSettings.Format.IniFormat)
    assert reread.value("app/last_domain") == "tiny"
    again = make_window(qtbot, reread)
    assert again.height() == 700
    assert again.domain_picker.currentData() == "tiny"
    assert session_config(reread).ranking_budget == 6


def test_a_pace_chosen_in_one_domain_stays_with_that_domain(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "paces.ini"), QSettings.Format.IniFormat)
    settings.setValue("session/pace", "quick")  # saved once for every domain by older versions: not used
    window = make_window(qtbot, settings)
    assert window.controller.config.pace is None  # the domain's own default
    dialog = window.open_settings()
    assert dialog.pace.currentData() == "domain default" and dialog.pace.isEnabled()
    dialog.pace.setCurrentIndex(dialog.pace.findData("quick"))
    dialog.accept()
    assert window.controller.config.pace == "quick"
    assert settings.value("pace/tiny") == "quick"

    window.open_domain("other")  # the tiny loader prepares any name
    qtbot.waitUntil(lambda: window.domain == "other" and window.controller.domain == "other", timeout=TIMEOUT_MS)
    wait_idle(qtbot, window)
    assert window.controller.config.pace is None, "quick was chosen for tiny, not for other"
    dialog = window.open_settings()
    assert dialog.pace.currentData() == "domain default"
    dialog.pace.setCurrentIndex(dialog.pace.findData("thorough"))
    dialog.accept()
    assert session_config(settings, "other").pace == "thorough" and session_config(settings, "tiny").pace == "quick"

    window.open_domain("tiny")
    qtbot.waitUntil(lambda: window.domain == "tiny", timeout=TIMEOUT_MS)
    wait_idle(qtbot, window)
    assert window.controller.config.pace == "quick"
    window.ask_page.query_input.setText("red breast")
    window.ask_page.ask_button.click()
    wait_idle(qtbot, window)
    assert window.controller.snapshot is not None


def slow_loader(name: str):
    for i in range(2000):
        time.sleep(0.01)
        yield Progress(i, 2000, f"training {name}")
    return TinyAgents(turns=3, name=name)


def failing_loader(name: str):
    yield Progress(0, 1, "checking")
    raise DomainNotFoundError(f"domain {name!r} does not exist: import it first or pick a bundled one")


def test_opening_a_domain_can_be_cancelled_or_fail_without_harm(qtbot, tiny_window):
    window = tiny_window
    picker = window.domain_picker
    assert picker.objectName() == "domainPicker"
    assert {picker.itemData(i) for i in range(picker.count())} >= {"faq", "birds", "banking", "tiny"}
    window.domain_loader = slow_loader
    window.open_domain("birds")
    banner = window.findChild(QWidget, "domainLoading")  # on the Ask page: the window stays usable
    assert banner is not None and banner.isVisible()
    qtbot.waitUntil(lambda: window.opening.last_progress is not None, timeout=TIMEOUT_MS)
    banner.findChild(QPushButton, "domainLoadingCancelButton").click()
    qtbot.waitUntil(lambda: window.opening is None, timeout=TIMEOUT_MS)
    assert window.domain == "tiny" and picker.currentData() == "tiny"
    assert "cancelled" in window.statusBar().currentMessage()

    window.domain_loader = failing_loader
    window.open_domain("nowhere")
    qtbot.waitUntil(lambda: window.opening is None, timeout=TIMEOUT_MS)
    assert window.last_error is not None and "does not exist" in window.last_error[1]
    assert window.domain == "tiny"
    for box in window.findChildren(QMessageBox):
        box.close()
    # the open domain still works
    window.ask_page.query_input.setText("red breast")
    window.ask_page.ask_button.click()
    wait_idle(qtbot, window)
    assert window.controller.snapshot is not None and window.controller.snapshot.domain == "tiny"


def test_the_engine_never_imports_qt_or_the_gui():
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    pattern = re.compile(r"^\s*(from|import)\s+(PySide6|PyQt\d|pyqtgraph|gui)\b", re.MULTILINE)
    offenders = [
        str(path.relative_to(root))
        for package in ("assistant", "models", "crowdsourcing")
        for path in (root / package).rglob("*.py")
        if pattern.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_opening_a_domain_speaks_a_desk_persons_words(qtbot, tiny_window):
    """Issue 34: opening a domain showed "checking the text encoder", "training the stop policy · reward 17.36
    … λ (trust in the text)" and the training curves."""

    def engine_words(name):
        yield Progress(0, 0, "getting ready to read questions (checking the text encoder)")
        for step in range(5):
            yield Progress(step, 5, "training the stop policy", {"reward": 17.0, "lambda": 0.9})
        yield Progress(5, 5, "loading the models")
        return TinyAgents(turns=3, name=name)

    window = tiny_window
    window.domain_loader = engine_words
    shown: list[str] = []
    window.open_domain("birds")
    banner = window.ask_page.loading
    worker = window.opening
    worker.progressed.connect(lambda _: shown.append(banner.panel.message.text()))
    qtbot.waitUntil(lambda: window.opening is None, timeout=TIMEOUT_MS)
    text = " ".join(shown)
    assert shown and not any(w in text for w in ("encoder", "policy", "reward", "λ", "trust in the text"))
    assert not window.findChildren(LearningCurve)  # no training curves
