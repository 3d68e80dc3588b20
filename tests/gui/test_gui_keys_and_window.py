"""Keys and window (gui/main_window.py, gui/pages): every answer button shows its key, 0 answers the tenth, the keys work wherever
the focus is (but not while typing in a field), L/R/E work on Summarize as on Compare, and the window fits a
1366x768 screen without cutting off a button."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from gui_helpers import (
    ELEVEN_OPTIONS,
    activate,
    ask,
    click,
    make_window,
    many_options_loader,
    wait_idle,
)
from PySide6.QtCore import QPoint, QRect, QSettings, QSize, Qt
from PySide6.QtWidgets import QAbstractButton, QApplication, QPushButton, QWidget

from assistant.app.session.session import OutOfScopeView, Phase, open_knowledge_base
from assistant.store import SessionLog
from gui.options import option_key
from gui.window_size import FRAME, fit_to_screen, initial_geometry
from gui.workers import is_running
from tests.support import HashingEncoder

ROOT = Path(__file__).resolve().parents[2]
SMALL_SCREEN = QRect(0, 0, 1366, 768)


@pytest.fixture
def many_window(qtbot, settings):
    return make_window(qtbot, settings, many_options_loader, "many")


def answers(window) -> list[str]:
    return [e.option_text for e in window.controller.snapshot.transcript if e.kind == "answer"]


def press(qtbot, window, widget: QWidget, key: Qt.Key) -> None:
    """A key press as a person makes it: to the widget that has the focus."""
    widget.setFocus()
    qtbot.waitUntil(widget.hasFocus)
    qtbot.keyClick(widget, key)
    wait_idle(qtbot, window)


def test_option_keys_1_to_9_then_0_for_the_tenth_or_for_the_way_out():
    assert [option_key(i, 10) for i in range(10)] == list("1234567890")
    # more than ten: 0 answers the last option ("something else"), those between have no key
    assert [option_key(i, 12) for i in range(12)] == [*"123456789", None, None, "0"]
    assert option_key(2, 3) == "3" and option_key(3, 3) is None


def test_every_option_shows_its_key_and_0_answers_something_else(qtbot, many_window):
    window = many_window
    activate(qtbot, window)
    ask(qtbot, window, "share things")
    buttons = window.ask_page.option_buttons
    assert [b.text() for b in buttons] == list(ELEVEN_OPTIONS)
    keys = [b.label.text().split("</b>")[0].rsplit(">", 1)[-1] if b.key else None for b in buttons]
    assert keys == ["1", "2", "3", "4", "5", "6", "7", "8", "9", None, "0"]  # shown on the buttons
    assert [b.key for b in buttons] == [option_key(i, 11) for i in range(11)]
    assert "(key 0)" in buttons[10].toolTip() and "key" not in buttons[9].toolTip()
    press(qtbot, window, window.ask_page.transcript, Qt.Key.Key_0)
    assert answers(window) == ["something else"]


def test_keys_work_after_clicking_the_conversation_but_not_while_typing(qtbot, many_window):
    window = many_window
    activate(qtbot, window)
    ask(qtbot, window, "share things")
    page = window.ask_page
    # a click on the conversation takes the focus; the answer keys still work (they used not to)
    transcript = page.transcript
    qtbot.mouseClick(transcript.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(20, 20))
    qtbot.waitUntil(lambda: QApplication.focusWidget() is transcript)
    qtbot.keyClick(transcript, Qt.Key.Key_3)
    wait_idle(qtbot, window)
    assert answers(window) == ["send"]
    # typing a digit in a text field types it
    words = page.words_input
    press(qtbot, window, words, Qt.Key.Key_1)
    qtbot.keyClick(words, Qt.Key.Key_N)  # nor is N "not sure" there
    wait_idle(qtbot, window)
    assert words.text() == "1n" and answers(window) == ["send"]
    assert window.controller.snapshot.questions_answered == 1
    # N (not sure) from the posterior table, P ticks "probably"
    press(qtbot, window, page.posterior_view, Qt.Key.Key_P)
    assert page.probably.isChecked()
    press(qtbot, window, page.posterior_view, Qt.Key.Key_N)
    assert window.controller.snapshot.questions_answered == 2


def test_compare_keys_after_clicking_a_candidate(qtbot, many_window):
    window = many_window
    activate(qtbot, window)
    ask(qtbot, window, "share things")
    click(qtbot, window, QPushButton, "skipButton")
    page = window.compare_page
    assert window.controller.snapshot.view.pair is not None
    text = page.right.text
    qtbot.mouseClick(text.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(10, 10))
    qtbot.waitUntil(lambda: QApplication.focusWidget() is text)
    qtbot.keyClick(text, Qt.Key.Key_R)
    wait_idle(qtbot, window)
    compares = [e.preferred for e in window.controller.snapshot.transcript if e.kind == "compare"]
    assert compares == ["right"]


def test_l_r_e_work_on_the_summarize_page(qtbot, tiny_window):
    window = tiny_window
    page = window.summarize_page
    page.encoder, page.candidates, page.episodes = HashingEncoder(384), 40, 40
    window.show_page("summarize")
    activate(qtbot, window)
    page.source.setCurrentIndex(page.source.findData("multiling/M000"))
    page.start()
    qtbot.waitUntil(lambda: page.session is not None and not is_running(page.worker), timeout=60_000)
    qtbot.wait(20)
    for key in (Qt.Key.Key_L, Qt.Key.Key_E, Qt.Key.Key_Right):
        press(qtbot, window, page.left.text, key)  # after a click on a summary, too
    assert page.session.comparisons == 3
    with open_knowledge_base("tiny") as kb:
        entries = SessionLog(kb).entries(page.log.id)
    assert [payload["preferred"] for _, payload in entries] == ["left", "tie", "right"]
    press(qtbot, window, page.question, Qt.Key.Key_L)  # typed into the question, not a comparison
    assert page.question.text() == "l" and page.session.comparisons == 3


# ---- the window fits a 1366x768 screen ---------------------------------------------------------------------
def test_the_size_comes_from_the_screen():
    minimum = QSize(900, 600)
    assert initial_geometry(SMALL_SCREEN, minimum).size() == QSize(1280, 768 - FRAME.height())
    assert initial_geometry(QRect(0, 0, 2560, 1440), minimum).size() == QSize(1280, 820)
    assert initial_geometry(QRect(0, 0, 1024, 600), minimum).size() == QSize(1024 - FRAME.width(), 600)
    assert SMALL_SCREEN.contains(initial_geometry(SMALL_SCREEN, minimum))


def visible_buttons_outside(window: QWidget) -> list[str]:
    """The visible buttons of the current page that do not lie wholly inside the window."""
    inside = window.rect()
    outside = []
    for button in window.findChildren(QAbstractButton):
        if button.isVisible() and button.window() is window:
            rect = QRect(button.mapTo(window, QPoint(0, 0)), button.size())
            if not inside.contains(rect) and not _scrolled(button):
                outside.append(button.objectName() or button.text())
    return outside


def _scrolled(widget: QWidget) -> bool:
    """Inside a scroll area (it may be scrolled out of view on purpose)."""
    parent = widget.parentWidget()
    while parent is not None:
        if parent.objectName() == "qt_scrollarea_viewport":
            return True
        parent = parent.parentWidget()
    return False


def test_every_page_fits_1366x768_without_cutting_off_a_button(qtbot, many_window):
    window = many_window
    ask(qtbot, window, "share things")  # the question with eleven options (one of them long)
    geometry = fit_to_screen(window, available=SMALL_SCREEN)
    assert geometry.width() + FRAME.width() <= 1366 and geometry.height() + FRAME.height() <= 768
    minimum = window.minimumSizeHint()
    assert minimum.width() <= 1366 - FRAME.width() and minimum.height() <= 768 - FRAME.height(), minimum
    for page in ("ask", "compare", "history", "lab", "summarize"):
        window.show_page(page)
        qtbot.wait(30)
        assert window.size() == geometry.size(), page  # no page pushes the window wider or taller
        assert visible_buttons_outside(window) == [], page
    window.show_page("ask")
    click(qtbot, window, QPushButton, "skipButton")
    window.show_page("compare")
    qtbot.wait(30)
    assert window.size() == geometry.size() and visible_buttons_outside(window) == []


def test_a_geometry_saved_on_a_bigger_screen_is_brought_back(qtbot, tiny_window, tmp_path):
    settings = QSettings(str(tmp_path / "big.ini"), QSettings.Format.IniFormat)
    tiny_window.setGeometry(0, 0, 1900, 1150)
    settings.setValue("window/geometry", tiny_window.saveGeometry())
    geometry = fit_to_screen(tiny_window, settings, SMALL_SCREEN)
    assert geometry.width() <= 1366 - FRAME.width() and geometry.height() <= 768 - FRAME.height()


SCREEN_SCRIPT = """
import json, os, sys
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QPushButton
app = QApplication([])
from gui.main_window import MainWindow
window = MainWindow(settings=QSettings(sys.argv[1], QSettings.Format.IniFormat), open_initial=False)
window.show()
app.processEvents()
screen = window.screen().availableGeometry()
ask = window.findChild(QPushButton, "askButton")
print(json.dumps({
    "screen": [screen.width(), screen.height()],
    "window": [window.width(), window.height()],
    "ask_right": ask.mapTo(window, ask.rect().topRight()).x(),
}), flush=True)
os._exit(0)  # as the app ends (gui.app.run): the session thread stays behind
"""


def test_a_real_1366x768_screen(tmp_path):
    """The window on an offscreen screen of 1366x768 (Qt's offscreen plugin reads the screen from a file):
    it opened 1611 px wide before, and cut off the Ask button."""
    config = tmp_path / "screen.json"
    screen = {"name": "laptop", "x": 0, "y": 0, "width": 1366, "height": 768, "logicalDpi": 96}
    config.write_text(json.dumps({"screens": [screen]}))
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}", "PYTHONPATH": str(ROOT)}
    env["CLARIFY_HOME"] = str(tmp_path / "home")
    done = subprocess.run(
        [sys.executable, "-c", SCREEN_SCRIPT, str(tmp_path / "settings.ini")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    shown = json.loads(done.stdout.strip().splitlines()[-1])
    assert shown["screen"] == [1366, 768]
    width, height = shown["window"]
    assert width + FRAME.width() <= 1366 and height + FRAME.height() <= 768
    assert shown["ask_right"] < width


# ---- Alt+letter: one widget per letter on each page --------------------------------------------------------
def mnemonics(window) -> dict[str, list[str]]:
    """The Alt+letter keys of everything shown now (buttons, labels' buddies, tabs, the menu bar) by letter."""
    from PySide6.QtWidgets import QLabel, QMenuBar, QTabBar

    def letter(text: str) -> str | None:
        match = re.search(r"&([^&\s])", text.replace("&&", ""))
        return match.group(1).lower() if match else None

    found: dict[str, list[str]] = {}
    for widget in window.findChildren(QWidget):
        if not widget.isVisible():
            continue
        texts = []
        if isinstance(widget, QAbstractButton) or (isinstance(widget, QLabel) and widget.buddy() is not None):
            texts = [widget.text()]
        elif isinstance(widget, QTabBar):
            texts = [widget.tabText(i) for i in range(widget.count())]
        elif isinstance(widget, QMenuBar):
            texts = [a.text() for a in widget.actions()]
        for text in texts:
            key = letter(text)
            if key:
                found.setdefault(key, []).append(text.replace("&", ""))
    return found


def test_no_two_alt_keys_clash_on_a_page(qtbot, tiny_window):
    """An Alt+letter that two shown widgets share only moves the focus (it does not click): "Hand it on" and
    the Help menu once did that."""
    window = tiny_window
    states = {}

    def record(state: str) -> None:
        qtbot.wait(20)
        states[state] = {k: v for k, v in mnemonics(window).items() if len(v) > 1}

    record("start")
    ask(qtbot, window, "red breast")
    record("a question")
    click(qtbot, window, QPushButton, "skipButton")
    record("comparing")
    click(qtbot, window, QPushButton, "doneButton")
    record("an answer proposed")
    click(qtbot, window, QPushButton, "rejectButton")
    record("after a rejection")
    for page in ("history", "lab", "summarize"):
        window.show_page(page)
        record(page)
    # the out-of-scope ending (the tiny domain never reaches it: its snapshot is rendered as it would be)
    ending = dataclasses.replace(
        window.controller.snapshot,
        phase=Phase.OUT_OF_SCOPE,
        question=None,
        nothing_fits=OutOfScopeView(0.8, "Nothing here fits.", ("birds",), (("Robin", 0.1),)),
    )
    window.show_page("ask")
    window.ask_page.render(ending)
    assert window.ask_page.hand_off_button.isVisible()
    record("nothing fits")
    assert {state: clash for state, clash in states.items() if clash} == {}


def test_switching_domains_clears_the_question_and_hints_belong_to_faq(qtbot, settings):
    """Issue 34: the previous domain's question stayed in the field after switching (31-*.jpg); faq's example
    hints ("e.g. it was in gmail") showed on another desk; the domain picker was in no order."""
    from gui_helpers import make_window, named
    from PySide6.QtWidgets import QLineEdit

    from assistant.app.desk.domains import DomainEntry

    window = make_window(qtbot, settings)
    ask_field = named(window, QLineEdit, "queryInput")
    ask_field.setText("my card is blocked")
    assert "gmail" not in ask_field.placeholderText() and "gmail" not in window.ask_page.words_input.placeholderText()
    window.open_domain("other")
    qtbot.waitUntil(lambda: window.domain == "other" and window.controller.attached, timeout=20_000)
    assert ask_field.text() == ""
    window.ask_page.set_domain("faq", changed=False)
    assert "gmail" in window.ask_page.words_input.placeholderText()
    entries = [DomainEntry(n, "", True) for n in ("zeta", "alpha", "mid")]
    window.domain_picker.fill(entries, ["beta"])
    names = [window.domain_picker.itemData(i) for i in range(window.domain_picker.count())]
    assert names == ["alpha", "mid", "zeta", "beta"]
