"""The "Questions of this domain" dialog: listed from the store, Hide / Show / Reword run through assistant.app
in a worker, and the window reloads the domain after each change."""

from __future__ import annotations

import pytest
from gui_helpers import TIMEOUT_MS
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from assistant.app.desk.questions import list_questions
from assistant.store import KnowledgeBase, write_domain
from tests.support.tiny import BLACK, RED, SIZE, tiny_data


def _dialog(qtbot, window):
    with KnowledgeBase.create("tiny") as kb:
        write_domain(kb, tiny_data())
    reloads: list[str] = []
    window.updater.reload = reloads.append  # the real reload loads trained models the tiny domain lacks
    assert window.questions_action in window.menuBar().actions()[0].menu().actions()
    window.questions_action.trigger()
    dialog = window.questions_dialog
    qtbot.waitUntil(lambda: dialog.model.rowCount() == 3 and dialog.worker is None, timeout=TIMEOUT_MS)
    return dialog, reloads


def _select(dialog, tag: str) -> None:
    row = [e.tag for e in dialog.model.records].index(tag)
    dialog.view.selectRow(row)


def _click(qtbot, dialog, name: str) -> None:
    button = dialog.findChild(QPushButton, name)
    assert button.isEnabled(), f"{name} is disabled"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.worker is None and "Saving" not in dialog.status.text(), timeout=TIMEOUT_MS)


def test_hide_reword_and_show_from_the_dialog(qtbot, tiny_window):
    dialog, reloads = _dialog(qtbot, tiny_window)
    assert [e.tag for e in dialog.model.records] == [RED, BLACK, SIZE]
    assert dialog.model.index(2, 3).data() == "small / medium / large"

    _select(dialog, RED)
    assert not dialog.show_button.isEnabled()
    _click(qtbot, dialog, "hideQuestionButton")
    qtbot.waitUntil(lambda: dialog.model.records[0].hidden, timeout=TIMEOUT_MS)
    assert dialog.model.index(0, 5).data() == "yes"
    assert {e.tag: e.hidden for e in list_questions("tiny")}[RED]
    assert reloads == ["tiny"]

    _select(dialog, SIZE)
    dialog.wording.setText("What size is the bird?")
    _click(qtbot, dialog, "rewordQuestionButton")
    qtbot.waitUntil(lambda: dialog.model.records[2].text == "What size is the bird?", timeout=TIMEOUT_MS)
    _select(dialog, SIZE)
    dialog.option.setCurrentText("small")
    dialog.option_wording.setText("tiny")
    _click(qtbot, dialog, "rewordOptionButton")
    qtbot.waitUntil(lambda: dialog.model.records[2].options[0] == "tiny", timeout=TIMEOUT_MS)
    assert dialog.summary.text() == "3 questions: 1 hidden, 1 reworded"

    _select(dialog, RED)
    _click(qtbot, dialog, "showQuestionButton")
    qtbot.waitUntil(lambda: not dialog.model.records[0].hidden, timeout=TIMEOUT_MS)
    with KnowledgeBase.open("tiny") as kb:
        loaded = kb.load_domain()
    assert [q.text for q in loaded.questions] == ["Is it red?", "Is it black?", "What size is the bird?"]
    assert len(reloads) == 4


def test_a_bad_wording_is_reported_in_the_dialog(qtbot, tiny_window):
    dialog, reloads = _dialog(qtbot, tiny_window)
    _select(dialog, BLACK)
    dialog.wording.setText("black")
    _click(qtbot, dialog, "rewordQuestionButton")
    assert "end it with '?'" in dialog.status.text()
    assert reloads == [] and not any(e.reworded for e in list_questions("tiny"))


def test_tags_read_as_words():
    from gui.words import tag_words

    assert tag_words("object::account") == "about: account"
    assert tag_words("action::delete") == "to do: delete"
    assert tag_words("action@Gmail") == "what they want to do in Gmail"
    assert tag_words("category") == "which topic"
    assert tag_words("has_bill_shape::curved") == "has bill shape: curved"


@pytest.mark.parametrize("size", [(1366, 768), (1024, 700)])
def test_the_dialog_opens_readable_and_chooses_nothing_by_enter(qtbot, tiny_window, size):
    """Issue 34: at its opening size the Question column showed "I…", tags read "object::…", "Reading the
    questions…" stayed on screen and Hide was the default button."""
    tiny_window.resize(*size)
    dialog, _ = _dialog(qtbot, tiny_window)
    qtbot.waitUntil(lambda: dialog.isVisible(), timeout=TIMEOUT_MS)
    question = dialog.view.horizontalHeader().sectionSize(1)
    longest = max(dialog.view.fontMetrics().horizontalAdvance(e.text) for e in dialog.model.records)
    assert question >= min(longest, 300), (question, longest)
    assert not any("::" in dialog.model.index(r, 0).data() for r in range(dialog.model.rowCount()))
    assert "Reading" not in dialog.status.text()
    assert not any(b.isDefault() or b.autoDefault() for b in dialog.findChildren(QPushButton))
    hidden_before = [e.hidden for e in list_questions("tiny")]
    qtbot.keyClick(dialog.view, Qt.Key.Key_Return)
    assert [e.hidden for e in list_questions("tiny")] == hidden_before
    dialog.close()
