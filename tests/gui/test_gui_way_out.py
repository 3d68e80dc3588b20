"""The way out after a rejection (issue 34), at the two window sizes people use: no answer the person called
not relevant is offered again, the list has no horizontal scrollbar, "Hand it on to a person" is always
there, and the page after giving up or handing on shows no rejected answer and no percentage."""

from __future__ import annotations

import itertools

import pytest
from gui_helpers import ask, click, make_window, named
from PySide6.QtWidgets import QListWidget, QPushButton, QTableView, QWidget

from assistant.store import KnowledgeBase
from assistant.store.inbox import Inbox

SIZES = [(1366, 768), (1024, 700)]


def rejected_window(qtbot, settings, size, neither: bool = False):
    settings.setValue("session/shortlist_size", 4)
    settings.setValue("session/ranking_budget", 5)
    window = make_window(qtbot, settings)
    window.resize(*size)
    ask(qtbot, window, "bird")
    click(qtbot, window, QPushButton, "skipButton")
    assert window.controller.snapshot.phase == "comparing"
    ruled_out = set()
    if neither:
        ruled_out = {c.id for c in window.controller.snapshot.view.pair}
        click(qtbot, window, QPushButton, "neitherButton")
    if window.controller.snapshot.phase == "comparing":
        click(qtbot, window, QPushButton, "doneButton")
    named(window, QWidget, "rejectReason").setText("not about crows")
    click(qtbot, window, QPushButton, "rejectButton")
    assert window.controller.snapshot.phase == "rejected"
    return window, ruled_out


@pytest.mark.parametrize("size", SIZES)
def test_the_way_out_offers_no_answer_called_not_relevant(qtbot, settings, size):
    window, ruled_out = rejected_window(qtbot, settings, size, neither=True)
    panel = named(window, QWidget, "rejectedPanel")
    offered = {c.id for c in panel.alternatives}
    assert ruled_out and offered and offered.isdisjoint(ruled_out)
    listed = named(window, QListWidget, "alternativesList")
    assert listed.count() == len(offered)
    assert not listed.horizontalScrollBar().isVisible() and listed.width() >= 280
    assert named(window, QPushButton, "rejectedHandOnButton").isVisible()
    assert "hand it on to a person" in panel.status.text()


@pytest.mark.parametrize("size", SIZES)
def test_the_way_out_hands_the_question_on_to_a_person(qtbot, settings, size):
    window, _ = rejected_window(qtbot, settings, size)
    rejected = window.controller.snapshot.rejected
    hand_on = named(window, QPushButton, "rejectedHandOnButton")
    assert hand_on.isVisible() and hand_on.isEnabled() and "&" in hand_on.text()
    buttons = [named(window, QPushButton, n) for n in ("rejectedUndoButton", "giveUpButton", "rejectedHandOnButton")]
    assert buttons[0].nextInFocusChain() is buttons[1] and buttons[1].nextInFocusChain() is buttons[2]
    click(qtbot, window, QPushButton, "rejectedHandOnButton")
    snap = window.controller.snapshot
    assert snap.phase == "failed" and snap.handed_off
    card = named(window, QWidget, "finalAnswer")
    assert card.title.text() == "Handed on to a person" and rejected.label_name not in card.title.text()
    assert rejected.text[:40] not in card.text.toPlainText() and "%" not in card.status.text()
    assert named(window, QTableView, "shortlistView").model().rowCount() == 0  # no ★ 100% after it ended
    with KnowledgeBase.open("tiny") as kb:
        (item,) = Inbox(kb).items()
    assert item.reason == "handed on" and item.note == "not about crows"


@pytest.mark.parametrize("size", SIZES)
def test_giving_up_shows_no_answer_not_the_rejected_one(qtbot, settings, size):
    window, _ = rejected_window(qtbot, settings, size)
    rejected = window.controller.snapshot.rejected
    click(qtbot, window, QPushButton, "giveUpButton")
    card = named(window, QWidget, "finalAnswer")
    assert card.title.text() == "No answer found" and "No answer:" not in card.title.text()
    assert rejected.text[:40] not in card.text.toPlainText()
    assert "gave up" in card.status.text() and "%" not in card.status.text() and "(s)" not in card.status.text()
    assert named(window, QTableView, "shortlistView").model().rowCount() == 0
    assert not named(window, QPushButton, "summarizeAnswersButton").isVisible()


def test_the_answer_row_tabs_left_to_right(qtbot, settings):
    window = make_window(qtbot, settings)
    ask(qtbot, window, "bird")
    click(qtbot, window, QPushButton, "skipButton")
    while window.controller.snapshot.phase == "comparing":
        click(qtbot, window, QPushButton, "preferLeftButton")
    order = [named(window, QWidget, n) for n in ("rejectReason", "finalUndoButton", "rejectButton", "acceptButton")]
    assert [a.nextInFocusChain() is b for a, b in itertools.pairwise(order)] == [True, True, True]
    assert "&" in named(window, QPushButton, "rejectButton").text()  # Alt+J


def test_the_way_out_stars_no_rejected_answer_and_reads_the_one_belief(qtbot, settings):
    """Issue 32: after a rejection the compared answers' table gives the ★ to the first answer still on offer,
    never the rejected one, and the rejected row reads its dismissed share (at most DISMISS_ERROR) from the
    session's own belief; the status bar counts the domain's entries in desk words."""
    from assistant.clarification.belief import DISMISS_ERROR

    window, _ = rejected_window(qtbot, settings, SIZES[0])
    snap = window.controller.snapshot
    rows = {row.id: row for row in snap.view.answers}
    assert not rows[snap.rejected.candidate_id].best
    assert [r.id for r in snap.view.answers if r.best] == [snap.view.alternatives[0].id]
    assert rows[snap.rejected.candidate_id].chance <= DISMISS_ERROR + 1e-9
    model = named(window, QTableView, "shortlistView").model()
    titles = [model.index(r, 1).data() for r in range(model.rowCount())]
    assert sum(t.startswith("★") for t in titles) == 1
    assert not next(t for t in titles if snap.rejected.label_name in t).startswith("★")
    status = window.status_domain.text()
    assert "labels" not in status and "entries" in status
