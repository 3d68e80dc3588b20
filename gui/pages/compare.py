"""The Compare page: two candidates side by side, the user's preference, the ranker's confidence, the
shortlist in its current order, and then the final answer card with Accept / Reject.

FAQ candidates are answer texts; bird candidates are species with their key attributes (the label's
summary text, "size: small; shape: perching-like; ..."), shown as a list.
"""

from __future__ import annotations

import re
from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from assistant.app.session import FinalAnswer
from gui.controller import SessionController
from gui.qt_models import ShortlistModel
from gui.snapshot import CandidateView, SessionSnapshot
from gui.widgets import Card, make_table, stretch_column

DECIDED_REASONS = {
    "confident": "The ranker is confident enough",
    "budget": "That was the last comparison",
    "exhausted": "Every pair has been compared",
    "single candidate": "Only one candidate was left",
}
_ATTRIBUTE = re.compile(r"^\s*([^:;]{1,40}):\s*(.+?)\s*$")


def candidate_html(text: str) -> str:
    """A candidate's text as HTML: 'key: value; key: value' summaries as a table, prose as paragraphs."""
    parts = [p for p in text.split(";") if p.strip()]
    pairs = [_ATTRIBUTE.match(p) for p in parts]
    if len(parts) >= 2 and all(pairs):
        rows = "".join(
            f"<tr><td style='color:#555; padding-right:10px'>{escape(m.group(1).strip())}</td>"
            f"<td><b>{escape(m.group(2))}</b></td></tr>"
            for m in pairs
            if m is not None
        )
        return f"<table cellspacing='0' cellpadding='3'>{rows}</table>"
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    return "".join(f"<p>{escape(p).replace(chr(10), '<br>')}</p>" for p in paragraphs) or "<p><i>(no text)</i></p>"


def _percent(value: float) -> str:
    points = 100 * value
    return f"{points:.0f}%" if abs(points - round(points)) < 0.05 else f"{points:.1f}%"


def _answer_number(candidate_id: str) -> str:
    return f" · answer {candidate_id.split('#', 1)[1]}" if "#" in candidate_id else ""


class CandidatePanel(Card):
    """One side of the comparison."""

    def __init__(self, side: str, name: str, parent: QWidget | None = None) -> None:
        super().__init__("", parent, name)
        self.side = side
        self.subtitle = QLabel(self)
        self.subtitle.setObjectName(f"{name}Subtitle")
        self.subtitle.setStyleSheet("color: #666")
        self.text = QTextBrowser(self)
        self.text.setObjectName(f"{name}Text")
        self.text.setAccessibleName(f"{side} candidate")
        self.text.setOpenExternalLinks(False)
        self.body.addWidget(self.subtitle)
        self.body.addWidget(self.text, 1)
        self.setAccessibleName(f"{side} candidate")
        self.candidate: CandidateView | None = None

    def show_candidate(self, candidate: CandidateView | None) -> None:
        self.candidate = candidate
        if candidate is None:
            self.title.setText("")
            self.subtitle.setText("")
            self.text.setHtml("")
            return
        self.title.setText(candidate.title)
        self.subtitle.setText(f"{self.side}{_answer_number(candidate.id)}")
        self.text.setHtml(candidate_html(candidate.text))


class FinalAnswerCard(Card):
    """The proposed or final answer with Accept / Reject."""

    def __init__(self, controller: SessionController, parent: QWidget | None = None) -> None:
        super().__init__("", parent, "finalAnswer")
        self.setAccessibleName("Final answer")
        self.controller = controller
        self.status = QLabel(self)
        self.status.setObjectName("finalAnswerStatus")
        self.status.setWordWrap(True)
        self.text = QTextBrowser(self)
        self.text.setObjectName("finalAnswerText")
        self.text.setAccessibleName("Answer text")
        self.reason = QLineEdit(self)
        self.reason.setObjectName("rejectReason")
        self.reason.setAccessibleName("Why the answer is wrong (optional)")
        self.reason.setPlaceholderText("Optional: why is it not the answer?")
        self.accept_button = QPushButton("&Accept this answer", self)
        self.accept_button.setObjectName("acceptButton")
        self.accept_button.setAccessibleName("Accept this answer")
        self.accept_button.clicked.connect(self.controller.accept)
        self.reject_button = QPushButton("Re&ject", self)
        self.reject_button.setObjectName("rejectButton")
        self.reject_button.setAccessibleName("Reject the answer")
        self.reject_button.setToolTip("None of these answers it: the conversation is logged as a failure")
        self.reject_button.clicked.connect(lambda: self.controller.reject(self.reason.text().strip()))
        self.undo_button = QPushButton("&Undo", self)
        self.undo_button.setObjectName("finalUndoButton")
        self.undo_button.setAccessibleName("Undo the last comparison")
        self.undo_button.clicked.connect(self.controller.undo)
        row = QHBoxLayout()
        row.addWidget(self.reason, 1)
        row.addWidget(self.undo_button)
        row.addWidget(self.reject_button)
        row.addWidget(self.accept_button)
        self.body.addWidget(self.status)
        self.body.addWidget(self.text, 1)
        self.body.addLayout(row)

    def show_answer(self, snapshot: SessionSnapshot) -> None:
        answer: FinalAnswer | None = snapshot.final or snapshot.proposed
        decided = snapshot.phase == "decided"
        if answer is None:
            self.title.setText("No answer")
            self.text.setHtml("")
        else:
            prefix = {"decided": "Proposed answer", "finished": "Answer", "failed": "Rejected answer"}[snapshot.phase]
            self.title.setText(f"{prefix}: {answer.label_name}")
            self.text.setHtml(candidate_html(answer.text))
        questions = f"{snapshot.questions_answered} question(s), {snapshot.comparisons} comparison(s)"
        if decided:
            reason = next((e.get("reason") for e in reversed(snapshot.transcript) if e.get("kind") == "decided"), "")
            why = DECIDED_REASONS.get(reason, "The comparisons are done")
            status = f"{why} after {questions}. Is this what you were looking for?"
        elif snapshot.phase == "finished":
            status = f"Accepted after {questions}. Saved as session {snapshot.session_id}."
        else:
            status = f"Rejected after {questions}: logged as a failure (session {snapshot.session_id})."
        if answer is not None:
            status += f"  Clarifier's belief in this label: {100 * answer.probability:.0f}%."
        self.status.setText(status)
        for widget in (self.reason, self.accept_button, self.reject_button, self.undo_button):
            widget.setVisible(decided)
        self.undo_button.setEnabled(snapshot.can_undo)
        if decided:
            self.accept_button.setFocus()


class ComparePage(QWidget):
    """See the module docstring. ``newQuestionRequested``: back to the Ask page for a new question."""

    newQuestionRequested = Signal()

    def __init__(self, controller: SessionController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("comparePage")
        self.controller = controller
        self.snapshot: SessionSnapshot | None = None

        self.heading = QLabel("Which answer is better?", self)
        self.heading.setObjectName("compareHeading")
        self.heading.setWordWrap(True)
        font = self.heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        self.heading.setFont(font)
        self.query_label = QLabel(self)
        self.query_label.setObjectName("compareQuery")
        self.query_label.setWordWrap(True)
        self.confidence = QProgressBar(self)
        self.confidence.setObjectName("confidenceBar")
        self.confidence.setAccessibleName("Ranker confidence")
        self.confidence.setRange(0, 1000)
        self.confidence.setTextVisible(True)
        self.progress_label = QLabel(self)
        self.progress_label.setObjectName("comparisonCount")
        conf_row = QHBoxLayout()
        conf_row.addWidget(QLabel("Confidence in the current best:", self))
        conf_row.addWidget(self.confidence, 1)
        conf_row.addWidget(self.progress_label)

        # the comparison
        self.left = CandidatePanel("Left", "compareLeft", self)
        self.right = CandidatePanel("Right", "compareRight", self)
        sides = QHBoxLayout()
        sides.addWidget(self.left, 1)
        sides.addWidget(self.right, 1)
        self.prefer_left = self._button("◀  &Left is better", "preferLeftButton", "The left candidate is better (L)")
        self.tie = self._button("E&qually good", "tieButton", "Both are equally good (E)")
        self.prefer_right = self._button(
            "&Right is better  ▶", "preferRightButton", "The right candidate is better (R)"
        )
        self.prefer_left.clicked.connect(lambda: self.controller.prefer("left"))
        self.tie.clicked.connect(lambda: self.controller.prefer("tie"))
        self.prefer_right.clicked.connect(lambda: self.controller.prefer("right"))
        self.undo_button = self._button(
            "&Undo", "compareUndoButton", "Take back the last comparison or answer (Ctrl+Z)"
        )
        self.undo_button.clicked.connect(self.controller.undo)
        self.more_button = self._button("Ask me &more", "askMoreButton", "Go back to clarifying questions")
        self.more_button.clicked.connect(self.controller.ask_more)
        self.done_button = self._button("&Done", "doneButton", "Accept the current best candidate now")
        self.done_button.clicked.connect(self.controller.accept)
        choices = QHBoxLayout()
        choices.addWidget(self.prefer_left, 2)
        choices.addWidget(self.tie, 1)
        choices.addWidget(self.prefer_right, 2)
        extras = QHBoxLayout()
        extras.addWidget(self.undo_button)
        extras.addWidget(self.more_button)
        extras.addStretch(1)
        extras.addWidget(self.done_button)
        comparison = QWidget(self)
        comparison.setObjectName("comparisonPanel")
        comp_layout = QVBoxLayout(comparison)
        comp_layout.setContentsMargins(0, 0, 0, 0)
        comp_layout.addLayout(sides, 1)
        comp_layout.addLayout(choices)
        comp_layout.addLayout(extras)

        # the final answer, or nothing yet
        self.final = FinalAnswerCard(controller, self)
        self.empty = QLabel(
            "No comparison yet. Ask a question first: once the assistant has a shortlist, its candidates appear "
            "here two at a time.",
            self,
        )
        self.empty.setObjectName("compareEmpty")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.new_button = self._button("&New question", "newQuestionButton", "Start again (Ctrl+N)")
        self.new_button.clicked.connect(self.newQuestionRequested)
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.empty)
        self.stack.addWidget(comparison)
        self.stack.addWidget(self.final)

        # the shortlist in the ranker's order
        self.shortlist_model = ShortlistModel(self)
        self.shortlist_view = make_table("shortlistView", "Shortlist in the ranker's order", self)
        self.shortlist_view.setModel(self.shortlist_model)
        stretch_column(self.shortlist_view, 2)
        shortlist_box = QGroupBox("Shortlist, best first (★ = the ranker's current best)", self)
        QVBoxLayout(shortlist_box).addWidget(self.shortlist_view)
        shortlist_box.setMaximumHeight(230)

        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.query_label)
        layout.addLayout(conf_row)
        layout.addWidget(self.stack, 1)
        bottom = QHBoxLayout()
        bottom.addStretch(1)
        bottom.addWidget(self.new_button)
        layout.addLayout(bottom)
        layout.addWidget(shortlist_box)

        context = Qt.ShortcutContext.WidgetWithChildrenShortcut
        for key, button in (("L", self.prefer_left), ("R", self.prefer_right), ("E", self.tie), ("=", self.tie)):
            QShortcut(QKeySequence(key), comparison, context=context).activated.connect(button.click)
        controller.snapshotChanged.connect(self.render)
        self.render(None)

    def _button(self, text: str, name: str, tip: str) -> QPushButton:
        button = QPushButton(text, self)
        button.setObjectName(name)
        button.setAccessibleName(text.replace("&", "").strip(" ◀▶"))
        button.setToolTip(tip)
        button.setAutoDefault(False)
        button.setMinimumHeight(34)
        return button

    def render(self, snapshot: SessionSnapshot | None) -> None:
        self.snapshot = snapshot
        self.shortlist_model.set_records(snapshot.shortlist if snapshot else ())
        why = f"\n{snapshot.stop_explanation}" if snapshot and snapshot.stop_explanation else ""
        self.query_label.setText(f"Your question: “{snapshot.query}”{why}" if snapshot else "")
        confidence = snapshot.confidence if snapshot else None
        self.confidence.setValue(int(1000 * (confidence or 0.0)))
        self.confidence.setFormat(
            f"{100 * confidence:.0f}% (stops at {_percent(snapshot.threshold)})"
            if confidence is not None and snapshot
            else "—"
        )
        self.progress_label.setText(
            f"{snapshot.comparisons} of at most {snapshot.budget} comparisons"
            if snapshot and snapshot.shortlist
            else ""
        )
        self.new_button.setVisible(snapshot is not None and not snapshot.active)
        if snapshot is None or snapshot.phase == "clarifying":
            self.heading.setText("Which answer is better?")
            self.left.show_candidate(None)
            self.right.show_candidate(None)
            if snapshot is not None:
                self.empty.setText(
                    "The assistant is still asking questions (see the Ask page). Skip to the shortlist there to "
                    "compare the candidates now."
                )
            self.stack.setCurrentWidget(self.empty)
            return
        if snapshot.phase == "comparing" and snapshot.pair is not None:
            self.heading.setText("Which answer is better?")
            left, right = snapshot.pair
            self.left.show_candidate(left)
            self.right.show_candidate(right)
            self.more_button.setVisible(snapshot.can_ask_more)
            self.undo_button.setEnabled(snapshot.can_undo)
            self.stack.setCurrentIndex(1)
            self.prefer_left.setFocus()
            return
        self.heading.setText("The answer" if snapshot.phase != "decided" else "Is this your answer?")
        self.final.show_answer(snapshot)
        self.stack.setCurrentWidget(self.final)
