"""The Ask, Compare and History pages driven through their named widgets on the tiny domain."""

from __future__ import annotations

from gui_helpers import activate, ask, click, click_option, named, option_buttons, posterior, wait_idle
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QLineEdit, QPushButton, QTableView, QWidget

from assistant.app.session.session import Session
from assistant.store import KnowledgeBase


def test_a_whole_conversation_through_the_widgets(qtbot, tiny_window):
    window = tiny_window
    ask(qtbot, window, "red breast")
    question = named(window, QLabel, "questionText")
    assert window.controller.snapshot.phase == "clarifying"
    first_question = question.text()
    assert first_question and window.tabs.currentWidget() is window.ask_page
    texts = [b.text() for b in option_buttons(window)]
    assert texts == list(window.controller.snapshot.question.options)
    before = posterior(window)
    assert len(before) == 4  # the tiny domain has 4 labels; the view shows the top 10

    click_option(qtbot, window, texts[0])
    after_first = posterior(window)
    assert after_first != before, "the posterior view must change after an answer"
    assert named(window, QLabel, "questionText").text() != first_question

    click(qtbot, window, QPushButton, "notSureButton")  # "not sure" keeps the belief as it was
    assert [p for _, p in posterior(window)] == [p for _, p in after_first]
    assert window.controller.snapshot.questions_answered == 2

    click(qtbot, window, QPushButton, "undoButton")  # takes "not sure" back
    assert window.controller.snapshot.questions_answered == 1
    click_option(qtbot, window, option_buttons(window)[1].text())
    click_option(qtbot, window, option_buttons(window)[0].text())
    # three questions asked (FixedTurns(3)): the shortlist is compared on the Compare page
    snap = window.controller.snapshot
    assert snap.phase == "comparing"
    assert window.tabs.currentWidget() is window.compare_page
    left = named(window, QWidget, "compareLeft")
    right = named(window, QWidget, "compareRight")
    assert left.title.text() and right.title.text()
    shortlist = named(window, QTableView, "shortlistView").model()
    assert shortlist.rowCount() == len(snap.view.answers) > 1

    click(qtbot, window, QPushButton, "tieButton")
    assert window.controller.snapshot.comparisons == 1
    click(qtbot, window, QPushButton, "compareUndoButton")
    assert window.controller.snapshot.comparisons == 0
    click(qtbot, window, QPushButton, "preferLeftButton")
    while window.controller.snapshot.phase == "comparing":
        click(qtbot, window, QPushButton, "preferRightButton")
    assert window.controller.snapshot.phase == "decided"
    card = named(window, QWidget, "finalAnswer")
    assert card.isVisible() and "Proposed answer" in card.title.text()
    click(qtbot, window, QPushButton, "acceptButton")
    snap = window.controller.snapshot
    assert snap.phase == "finished" and snap.final is not None
    assert snap.final.label_name in card.title.text()

    with KnowledgeBase.open("tiny") as kb:
        [summary] = Session.saved(kb)
    assert summary.status == "finished" and summary.final_label == snap.final.label_key
    kinds = [e.kind for e in snap.transcript]
    assert kinds.count("undo") == 2 and kinds[-1] == "accept"
    transcript = window.ask_page.transcript.toPlainText()
    assert "red breast" in transcript and "Not sure" in transcript


def test_probably_not_visible_skip_and_reject(qtbot, tiny_window):
    window = tiny_window
    ask(qtbot, window, "black bird")
    not_visible = named(window, QPushButton, "notVisibleButton")
    assert not_visible.isVisible()  # the tiny domain is a birds-like domain
    named(window, QWidget, "probablyCheck").setChecked(True)
    click_option(qtbot, window, option_buttons(window)[1].text())
    answers = [e for e in window.controller.snapshot.transcript if e.kind == "answer"]
    assert answers[-1].answer == "probably"
    assert not named(window, QWidget, "probablyCheck").isChecked()
    click(qtbot, window, QPushButton, "notVisibleButton")
    if window.controller.snapshot.phase == "clarifying":
        click(qtbot, window, QPushButton, "skipButton")
    assert window.controller.snapshot.phase == "comparing"
    assert named(window, QPushButton, "askMoreButton").isVisible()
    click(qtbot, window, QPushButton, "askMoreButton")
    assert window.controller.snapshot.phase == "clarifying"
    assert window.tabs.currentWidget() is window.ask_page
    click(qtbot, window, QPushButton, "skipButton")
    if window.controller.snapshot.phase == "comparing":
        click(qtbot, window, QPushButton, "doneButton")  # proposes the current best: it does not accept it
    assert window.controller.snapshot.phase == "decided"
    assert named(window, QLabel, "acceptQuestion").isVisible()
    click(qtbot, window, QPushButton, "acceptButton")
    assert window.controller.snapshot.phase == "finished"
    ask(qtbot, window, "white seabird")
    click(qtbot, window, QPushButton, "skipButton")
    while window.controller.snapshot.phase == "comparing":
        click(qtbot, window, QPushButton, "preferLeftButton")
    named(window, QLineEdit, "rejectReason").setText("none of these")
    click(qtbot, window, QPushButton, "rejectButton")
    snap = window.controller.snapshot
    assert snap.phase == "rejected" and snap.transcript[-1].reason == "none of these"
    assert named(window, QWidget, "rejectedPanel").isVisible()
    click(qtbot, window, QPushButton, "giveUpButton")
    assert window.controller.snapshot.phase == "failed"
    assert "gave up" in named(window, QWidget, "finalAnswer").status.text()


def test_resume_a_saved_session_from_the_history_page(qtbot, tiny_window):
    window = tiny_window
    ask(qtbot, window, "red breast")
    click_option(qtbot, window, option_buttons(window)[0].text())
    saved = window.controller.snapshot
    window.new_question()
    wait_idle(qtbot, window)
    assert window.controller.snapshot is None
    assert named(window, QLabel, "questionText").text().startswith("Type what")
    window.show_page("history")
    qtbot.waitUntil(lambda: named(window, QTableView, "historyView").model().rowCount() == 1)
    history = named(window, QTableView, "historyView")
    assert history.model().index(0, 1).data() == "red breast"
    history.selectRow(0)
    click(qtbot, window, QPushButton, "resumeButton")
    resumed = window.controller.snapshot
    assert resumed.session_id == saved.session_id and resumed.question == saved.question
    assert [p.probability for p in resumed.view.entries] == [p.probability for p in saved.view.entries]
    assert window.tabs.currentWidget() is window.ask_page
    click_option(qtbot, window, option_buttons(window)[0].text())
    assert window.controller.snapshot.questions_answered == 2


def test_keyboard_only(qtbot, tiny_window):
    window = tiny_window
    activate(qtbot, window)
    field = named(window, QLineEdit, "queryInput")
    field.setFocus()
    qtbot.keyClicks(field, "red breast")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    wait_idle(qtbot, window)
    assert window.controller.snapshot.phase == "clarifying"
    focus = window.ask_page.option_buttons[0]
    qtbot.waitUntil(lambda: focus.hasFocus())
    qtbot.keyClick(focus, Qt.Key.Key_1)  # answer with option 1
    wait_idle(qtbot, window)
    assert window.controller.snapshot.questions_answered == 1
    qtbot.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # Ctrl+Z: undo
    wait_idle(qtbot, window)
    assert window.controller.snapshot.questions_answered == 0
    button = window.ask_page.option_buttons[0]
    qtbot.waitUntil(lambda: button.hasFocus())
    qtbot.keyClick(button, Qt.Key.Key_Space)  # the focused answer button
    wait_idle(qtbot, window)
    assert window.controller.snapshot.questions_answered == 1


def test_errors_show_a_dialog_and_nothing_crashes(qtbot, tiny_window):
    from PySide6.QtWidgets import QMessageBox

    window = tiny_window
    ask(qtbot, window, "   ")  # an empty query: nothing happens, focus goes back to the field
    assert window.controller.snapshot is None
    window.controller.start("   ")  # the engine refuses it: a dialog says what to do
    wait_idle(qtbot, window)
    assert window.last_error is not None and "empty" in window.last_error[1]
    boxes = [b for b in window.findChildren(QMessageBox) if b.objectName() == "errorDialog"]
    assert boxes and boxes[-1].isVisible()
    boxes[-1].close()
    window.controller.prefer("left")  # no session yet
    wait_idle(qtbot, window)
    assert "no conversation" in window.last_error[1]


def test_comparisons_and_the_answer_from_the_keyboard(qtbot, tiny_window):
    window = tiny_window
    activate(qtbot, window)
    ask(qtbot, window, "red breast")
    qtbot.keyClick(window.ask_page.option_buttons[0], Qt.Key.Key_S, Qt.KeyboardModifier.AltModifier)  # Alt+S: skip
    qtbot.waitUntil(lambda: window.controller.snapshot.phase == "comparing")  # a mnemonic clicks after 100 ms
    page = window.compare_page
    qtbot.waitUntil(page.prefer_left.hasFocus)
    qtbot.keyClick(page.prefer_left, Qt.Key.Key_E)  # equally good
    wait_idle(qtbot, window)
    snap = window.controller.snapshot
    assert [e.preferred for e in snap.transcript if e.kind == "compare"] == ["tie"]
    while window.controller.snapshot.phase == "comparing":
        qtbot.keyClick(page.prefer_left, Qt.Key.Key_R)  # right is better
        wait_idle(qtbot, window)
    assert window.controller.snapshot.phase == "decided"
    accept = named(window, QPushButton, "acceptButton")
    qtbot.waitUntil(accept.hasFocus)
    qtbot.keyClick(accept, Qt.Key.Key_Space)
    wait_idle(qtbot, window)
    assert window.controller.snapshot.phase == "finished"
