"""After a rejection: the person takes another compared answer, asks more questions without the rejected
one, hands the question on to a person (it waits in the desk's inbox, with what they typed as a note), or
gives up; Undo takes the rejection back. Nothing here decides: it shows ``snapshot.view.alternatives`` (never an
answer the person called not relevant) and sends the choice to the session."""

from __future__ import annotations

import itertools
from html import escape
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QWidget,
)

from gui.controller import SessionController
from gui.snapshot import SessionSnapshot
from gui.widgets import Card, key_hint, window_shortcuts

REJECTED_KEYS = (
    "Keys: ↑ / ↓ pick an answer · T or Enter use it · M more questions · P hand it on to a person · G give up"
)

if TYPE_CHECKING:  # the view loads with the session, in the session thread
    from assistant.app.session.view import CandidateView


def _snippet(text: str, width: int = 110) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


class RejectedPanel(Card):
    """See the module docstring."""

    def __init__(self, controller: SessionController, candidate_html, parent: QWidget | None = None) -> None:
        super().__init__("Not this answer. What now?", parent, "rejectedPanel")
        self.setAccessibleName("After a rejection")
        self.controller = controller
        self.candidate_html = candidate_html
        self.status = QLabel(self)
        self.status.setObjectName("rejectedStatus")
        self.status.setWordWrap(True)
        self.list = QListWidget(self)
        self.list.setObjectName("alternativesList")
        self.list.setAccessibleName("The other compared answers")
        self.list.setWordWrap(True)  # a long title wraps: no horizontal scrollbar hiding half of it
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setMinimumWidth(280)
        self.list.currentItemChanged.connect(self._preview)
        self.list.itemActivated.connect(lambda _: self.choose())
        self.preview = QTextBrowser(self)
        self.preview.setObjectName("alternativePreview")
        self.preview.setTabChangesFocus(True)
        self.preview.setAccessibleName("The selected answer")
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.list)
        split.addWidget(self.preview)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        split.setChildrenCollapsible(False)
        self.choose_button = self._button("Use &this answer", "chooseButton", "Take the selected answer instead")
        self.choose_button.clicked.connect(self.choose)
        self.more_button = self._button(
            "Ask &more questions", "rejectedMoreButton", "Back to the questions, without the rejected answer's topic"
        )
        self.more_button.clicked.connect(self.controller.ask_more)
        self.hand_on_button = self._button(
            "Hand it on to a &person",
            "rejectedHandOnButton",
            "A person at the desk answers it: the question waits in their inbox, with your reason as a note",
        )
        self.hand_on_button.clicked.connect(lambda: self.controller.hand_off())
        self.give_up_button = self._button("&Give up", "giveUpButton", "End without an answer (saved as unanswered)")
        self.give_up_button.clicked.connect(self.controller.give_up)
        self.undo_button = self._button("&Undo", "rejectedUndoButton", "Take the rejection back (Ctrl+Z)")
        self.undo_button.clicked.connect(self.controller.undo)
        row = QHBoxLayout()
        row.addWidget(self.undo_button)
        row.addStretch(1)
        row.addWidget(self.give_up_button)
        row.addWidget(self.hand_on_button)
        row.addWidget(self.more_button)
        row.addWidget(self.choose_button)
        chain = (
            self.list,
            self.preview,
            self.undo_button,
            self.give_up_button,
            self.hand_on_button,
            self.more_button,
            self.choose_button,
        )
        for first, second in itertools.pairwise(chain):  # Tab runs left to right, as the row reads
            QWidget.setTabOrder(first, second)
        self.keys = key_hint(REJECTED_KEYS, self, "rejectedKeys")
        self.body.addWidget(self.status)
        self.body.addWidget(split, 1)
        self.body.addLayout(row)
        self.body.addWidget(self.keys)
        # the underlined letters work without Alt too, wherever the focus is; Enter in the list takes its answer
        keys = (
            ("T", self.choose_button),
            ("M", self.more_button),
            ("P", self.hand_on_button),
            ("G", self.give_up_button),
        )
        self.shortcuts = window_shortcuts(self, keys)
        self.alternatives: tuple[CandidateView, ...] = ()

    def _button(self, text: str, name: str, tip: str) -> QPushButton:
        button = QPushButton(text, self)
        button.setObjectName(name)
        button.setAccessibleName(text.replace("&", ""))
        button.setToolTip(tip)
        button.setAutoDefault(False)
        button.setMinimumHeight(32)
        return button

    def show_rejection(self, snapshot: SessionSnapshot) -> None:
        rejected = snapshot.rejected
        reason = f" ({escape(snapshot.rejection_reason)})" if snapshot.rejection_reason else ""
        if rejected is not None:
            # one answer of a question is not the whole question: its other answers stay on offer
            which = "" if rejected.answer_number is None else f"answer {rejected.answer_number} of "
            head = f"You rejected {which}<b>{escape(rejected.label_name)}</b>{reason}."
        else:
            head = "Every shortlisted answer was ruled out."
        options = []
        if snapshot.view.alternatives:
            options.append("take another of the compared answers")
        if snapshot.can_ask_more:
            options.append("answer a few more questions (without it)")
        options += ["hand it on to a person", "give up"]
        self.status.setText(f"{head} You can {', '.join(options[:-1])} or {options[-1]}.")
        self.alternatives = snapshot.view.alternatives
        self.list.clear()
        for candidate in snapshot.view.alternatives:
            item = QListWidgetItem(candidate.title)
            item.setData(Qt.ItemDataRole.UserRole, candidate.id)
            item.setToolTip(_snippet(candidate.text, 500))
            self.list.addItem(item)
        if self.list.count():
            self.list.setCurrentRow(0)
        else:
            self.preview.setHtml("<p><i>No other answer was compared.</i></p>")
        self.choose_button.setEnabled(bool(self.list.count()))
        self.more_button.setEnabled(snapshot.can_ask_more)
        self.undo_button.setEnabled(snapshot.can_undo)
        self.hand_on_button.setEnabled(not snapshot.handed_off)
        (self.list if self.list.count() else self.hand_on_button).setFocus()

    def _preview(self, item: QListWidgetItem | None) -> None:
        if item is None:
            return
        chosen = next((c for c in self.alternatives if c.id == item.data(Qt.ItemDataRole.UserRole)), None)
        if chosen is not None:
            self.preview.setHtml(f"<h3>{escape(chosen.title)}</h3>" + self.candidate_html(chosen.text))

    def choose(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self.controller.choose(str(item.data(Qt.ItemDataRole.UserRole)))
