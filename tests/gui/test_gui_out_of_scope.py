"""The out-of-scope ending on the Ask and Compare pages (the tiny desk with the out-of-scope hypothesis)."""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path

from gui_helpers import ask, click, click_option, make_window, named, option_buttons
from PySide6.QtWidgets import QLabel, QLineEdit, QPushButton, QWidget

from assistant.progress import Progress
from tests.support.desk import DeskAgents


def desk_loader(name: str) -> Generator[Progress, None, DeskAgents]:
    yield Progress(0, 1, f"preparing {name}")
    agents = DeskAgents()
    yield Progress(1, 1, "ready")
    return agents


def test_the_ask_page_says_nothing_fits_and_hands_the_question_on(qtbot, settings):
    window = make_window(qtbot, settings, loader=desk_loader, domain="desk")
    ask(qtbot, window, "what is the weather like")
    while window.controller.snapshot.phase == "clarifying":
        # as in tests/assistant/app/test_session_out_of_scope.py: a "no" to "Is it about a card?" would point at flights
        if any("something else" in b.text() for b in option_buttons(window)):
            click_option(qtbot, window, "something else")
        else:
            click(qtbot, window, QPushButton, "notSureButton")
    snap = window.controller.snapshot
    assert snap.phase == "out_of_scope" and snap.status == "out_of_scope"
    card_text = named(window, QLabel, "questionText").text()
    assert card_text.startswith("I don't have an answer for that") and "I can help with: banking, travel" in card_text
    assert "Did you mean:" in card_text
    closest, hand_off = named(window, QPushButton, "showClosestButton"), named(window, QPushButton, "handOffButton")
    assert closest.isVisible() and hand_off.isVisible() and named(window, QLineEdit, "addWordsInput").isVisible()
    shots = os.environ.get("CLARIFY_SCREENSHOTS")
    if shots:
        window.resize(1280, 800)
        window.grab().save(str(Path(shots) / "desk-out-of-scope-ask.png"))
    window.tabs.setCurrentWidget(window.compare_page)
    assert "I don't have an answer for that" in named(window, QLabel, "compareEmpty").text()
    window.tabs.setCurrentWidget(window.ask_page)
    named(window, QLineEdit, "addWordsInput").setText("please call me back")
    click(qtbot, window, QPushButton, "handOffButton")
    snap = window.controller.snapshot
    assert snap.handed_off and "Handed on" in named(window, QLabel, "questionText").text()
    assert not named(window, QPushButton, "handOffButton").isEnabled()
    click(qtbot, window, QPushButton, "showClosestButton")  # still possible: look at the closest anyway
    assert window.controller.snapshot.phase == "comparing"
    assert named(window, QWidget, "compareLeft").title.text()
