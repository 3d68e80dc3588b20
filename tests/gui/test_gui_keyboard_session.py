"""A whole session with the keyboard alone (issue 40): type the question and Enter, answer with the option
keys, compare with L / R, D for done, J rejects the proposal, T takes another compared answer; and Tab
leaves every table (the compared-answers table once kept a keyboard user in it, away from Reject)."""

from __future__ import annotations

from gui_helpers import activate, wait_idle
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget

from assistant.app.session.phases import Phase
from gui.widgets import make_table


def key(qtbot, window, which: Qt.Key, text: str = "") -> None:
    """One key press to whatever has the focus now, as a person's keyboard sends it."""
    target = QApplication.focusWidget() or window
    qtbot.keyClick(target, which)
    wait_idle(qtbot, window)


def phase(window) -> Phase | None:
    snapshot = window.controller.snapshot
    return snapshot.phase if snapshot is not None else None


def to_a_proposal(qtbot, window, option: Qt.Key = Qt.Key.Key_1) -> None:
    """Answer with an option key until the comparisons, then L (left is better) and D (done)."""
    for _ in range(10):
        if phase(window) != Phase.CLARIFYING:
            break
        key(qtbot, window, option)
    for pressed in range(10):
        if phase(window) != Phase.COMPARING:
            break
        key(qtbot, window, Qt.Key.Key_L if pressed == 0 else Qt.Key.Key_D)
    assert phase(window) == Phase.DECIDED


def test_a_session_rejects_and_accepts_with_keys_alone(qtbot, tiny_window):
    window = tiny_window
    activate(qtbot, window)
    field = window.ask_page.query_input
    field.setFocus()
    qtbot.waitUntil(field.hasFocus)
    qtbot.keyClicks(field, "red breast")
    key(qtbot, window, Qt.Key.Key_Return)
    to_a_proposal(qtbot, window)
    rejected = window.controller.snapshot.proposed.label_key
    # Tab leaves the compared-answers table; J rejects from wherever the focus is
    view = window.compare_page.shortlist_view
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    key(qtbot, window, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is not view
    key(qtbot, window, Qt.Key.Key_J)
    assert phase(window) == Phase.REJECTED
    if window.controller.snapshot.view.alternatives:  # another compared answer: T takes it
        key(qtbot, window, Qt.Key.Key_T)
    else:  # M: more questions without the rejected entry, then A accepts the next proposal
        key(qtbot, window, Qt.Key.Key_M)
        to_a_proposal(qtbot, window, Qt.Key.Key_2)
        key(qtbot, window, Qt.Key.Key_A)
    snapshot = window.controller.snapshot
    assert snapshot.phase == Phase.FINISHED
    assert snapshot.final.label_key != rejected
    kinds = [getattr(e, "kind", None) for e in snapshot.transcript]
    assert "reject" in kinds and ("accept" in kinds or "choose" in kinds)


def test_typing_a_reason_then_enter_rejects_with_it(qtbot, tiny_window):
    window = tiny_window
    activate(qtbot, window)
    field = window.ask_page.query_input
    field.setFocus()
    qtbot.keyClicks(field, "red breast")
    key(qtbot, window, Qt.Key.Key_Return)
    to_a_proposal(qtbot, window)
    reason = window.compare_page.final.reason
    reason.setFocus()
    qtbot.waitUntil(reason.hasFocus)
    qtbot.keyClicks(reason, "jaunty")  # a J typed in the field is a letter, not a rejection
    assert phase(window) == Phase.DECIDED
    key(qtbot, window, Qt.Key.Key_Return)
    assert phase(window) == Phase.REJECTED and window.controller.snapshot.rejection_reason == "jaunty"


def test_tab_leaves_a_table(qtbot):
    parent = QWidget()
    qtbot.addWidget(parent)
    view = make_table("someTable", "A table", parent)
    assert not view.tabKeyNavigation()
