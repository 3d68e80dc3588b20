"""The Compare page: two candidates side by side, the person's preference (or "neither is relevant"),
one number for how sure Clarify is of its current best, the shortlist in its current order with each
answer's chance of being the best, then the proposed answer (``gui.pages.proposal``: "Accept this answer?"),
and after a rejection the way on (``gui.pages.rejected``).

FAQ candidates are answer texts headed by their FAQ question; bird candidates are species with their key
attributes (the label's summary text, "size: small; shape: perching-like; ..."), shown as a list.
Keys: ← / L left is better, → / R right is better, E / = equally good, N neither is relevant.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractButton,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from assistant.app.session.numbers import percent
from assistant.app.session.phases import Phase
from gui.controller import SessionController
from gui.pages.proposal import FinalAnswerCard
from gui.pages.rejected import RejectedPanel
from gui.qt_models import ShortlistModel
from gui.rich_text import candidate_html
from gui.snapshot import SessionSnapshot
from gui.widgets import (
    Card,
    key_hint,
    make_table,
    preference_keys,
    press_if_shown,
    stretch_column,
    window_shortcuts,
)

if TYPE_CHECKING:
    from assistant.app.session.view import CandidateView

COMPARE_KEYS = "Keys: L / R which is better · E equally good · N neither · D done · Tab to move"
CONFIDENCE_TIP = (
    "How likely Clarify thinks its current best (★) is the best of the compared answers. It starts from "
    "what your answers to the questions made likely and learns from every comparison; the comparisons "
    "stop when it passes the threshold (Settings)."
)


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
        self.text.setTabChangesFocus(True)
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


class ComparePage(QWidget):
    """See the module docstring. ``newQuestionRequested``: back to the Ask page for a new question."""

    newQuestionRequested = Signal()
    summarizeAnswersRequested = Signal(object)  # AnswersToSummarize

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
        self.query_label.setTextFormat(Qt.TextFormat.RichText)  # escaped text: "won't" must not show as &#x27;
        self.query_label.setWordWrap(True)
        self.confidence = QProgressBar(self)
        self.confidence.setObjectName("confidenceBar")
        self.confidence.setAccessibleName("How sure Clarify is of its current best")
        self.confidence.setRange(0, 1000)
        self.confidence.setTextVisible(True)
        self.confidence.setToolTip(CONFIDENCE_TIP)
        self.progress_label = QLabel(self)
        self.progress_label.setObjectName("comparisonCount")
        conf_label = QLabel("How sure Clarify is of its best answer (★):", self)
        conf_label.setToolTip(CONFIDENCE_TIP)
        conf_row = QHBoxLayout()
        conf_row.addWidget(conf_label)
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
        self.neither = self._button(
            "&Neither is relevant", "neitherButton", "Neither answer is about your question: both are set aside (N)"
        )
        self.neither.clicked.connect(lambda: self.controller.prefer("neither"))
        self.done_button = self._button(
            "&Done: show the best", "doneButton", "Stop comparing: Clarify proposes its current best for you to accept"
        )
        self.done_button.clicked.connect(self.controller.done)
        choices = QHBoxLayout()
        choices.addWidget(self.prefer_left, 2)
        choices.addWidget(self.tie, 1)
        choices.addWidget(self.prefer_right, 2)
        extras = QHBoxLayout()
        extras.addWidget(self.undo_button)
        extras.addWidget(self.more_button)
        extras.addStretch(1)
        extras.addWidget(self.neither)
        extras.addWidget(self.done_button)
        comparison = QWidget(self)
        comparison.setObjectName("comparisonPanel")
        comp_layout = QVBoxLayout(comparison)
        comp_layout.setContentsMargins(0, 0, 0, 0)
        comp_layout.addLayout(sides, 1)
        comp_layout.addLayout(choices)
        comp_layout.addLayout(extras)
        comp_layout.addWidget(key_hint(COMPARE_KEYS, comparison, "compareKeys"))

        # the final answer, or nothing yet
        self.final = FinalAnswerCard(controller, self)
        self.final.summarize_button.clicked.connect(self._summarize_answers)
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
        self.rejected = RejectedPanel(controller, candidate_html, self)
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.empty)
        self.stack.addWidget(comparison)
        self.stack.addWidget(self.final)
        self.stack.addWidget(self.rejected)
        self.comparison = comparison

        # the shortlist in the ranker's order
        self.shortlist_model = ShortlistModel(self)
        self.shortlist_view = make_table("shortlistView", "Shortlist in the ranker's order", self)
        self.shortlist_view.setModel(self.shortlist_model)
        stretch_column(self.shortlist_view, 2)
        shortlist_box = QGroupBox("The compared answers, best first (★ = Clarify's current best)", self)
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

        # window-wide while the pair shows (the shortcuts belong to the comparison panel, which is visible only
        # then), wherever the focus is, except in a text field (a field claims the keys it can type)
        keys = [
            *preference_keys(self.prefer_left, self.prefer_right, self.tie),
            ("N", self.neither),
            ("D", self.done_button),
            ("M", self.more_button),
        ]
        self.shortcuts = window_shortcuts(comparison, keys, self._press)
        controller.snapshotChanged.connect(self.render)
        self.render(None)

    def _summarize_answers(self) -> None:
        if self.snapshot is not None and self.snapshot.view.answers_to_summarize is not None:
            self.summarizeAnswersRequested.emit(self.snapshot.view.answers_to_summarize)

    def _button(self, text: str, name: str, tip: str) -> QPushButton:
        button = QPushButton(text, self)
        button.setObjectName(name)
        button.setAccessibleName(text.replace("&", "").strip(" ◀▶"))
        button.setToolTip(tip)
        button.setAutoDefault(False)
        button.setMinimumHeight(34)
        return button

    def _press(self, button: QAbstractButton) -> None:
        """A comparison key: only while a pair is shown (the page's other views have their own keys)."""
        if self.stack.currentWidget() is self.comparison:
            press_if_shown(button)

    def _show_confidence(self, snapshot: SessionSnapshot | None) -> None:
        """The bar: how sure Clarify is that its current best is the right answer (the one belief); beside it
        in words, once compared, the ranker's chance that it is the best of the compared (never "sure")."""
        view = snapshot.view if snapshot is not None else None
        showing = snapshot is not None and snapshot.phase in (Phase.COMPARING, Phase.DECIDED)
        proposal = view.proposal if showing and view is not None else None
        if proposal is None or view is None:
            self.confidence.setValue(0)
            self.confidence.setFormat("—")
            return
        self.confidence.setValue(int(1000 * proposal.chance))
        best = view.best_of_compared
        compared = (
            f"; best of the compared: {percent(best)} chance (stops at {percent(view.threshold)})"
            if best is not None
            else "; not compared yet"
        )
        self.confidence.setFormat(f"{proposal.sure}{compared}")

    def render(self, snapshot: SessionSnapshot | None) -> None:  # type: ignore[override]  # shadows QWidget.render(device): a page draws a snapshot
        previous = self.snapshot.session_id if self.snapshot is not None else None
        self.snapshot = snapshot
        ended_without = snapshot is not None and snapshot.phase == Phase.FAILED  # no "best" to star after giving up
        self.shortlist_model.set_records(snapshot.view.answers if snapshot and not ended_without else ())
        if snapshot is None or snapshot.session_id != previous:  # a new session starts at the top of the list
            self.shortlist_view.scrollToTop()
        query = f"Your question: “{escape(snapshot.query)}”" if snapshot else ""
        if snapshot is not None and snapshot.ruled_out_labels and snapshot.phase in (Phase.COMPARING, Phase.DECIDED):
            left_out = ", ".join(f"“{escape(name)}”" for name in snapshot.ruled_out_labels)
            query += f" <span style='color:#666'>· not compared, since your answers rule them out: {left_out}</span>"
        if snapshot is not None and snapshot.stop_explanation:
            query += f"<br>{escape(snapshot.stop_explanation)}"
        self.query_label.setText(query)
        self._show_confidence(snapshot)
        self.progress_label.setText(
            f"{snapshot.comparisons} of at most {snapshot.budget} comparisons"
            if snapshot and snapshot.view.answers
            else ""
        )
        self.new_button.setVisible(snapshot is not None and not snapshot.active)
        if snapshot is None or snapshot.phase in (Phase.CLARIFYING, Phase.OUT_OF_SCOPE):
            self.heading.setText(
                "Which answer is better?" if snapshot is None or snapshot.nothing_fits is None else "Nothing here fits"
            )
            self.left.show_candidate(None)
            self.right.show_candidate(None)
            if snapshot is not None and snapshot.nothing_fits is not None:
                self.empty.setText(
                    f"{snapshot.nothing_fits.message}\n\nOn the Ask page: say it differently, show the closest "
                    "answers anyway, or hand the question on to a person."
                )
            elif snapshot is not None:
                self.empty.setText(
                    "The assistant is still asking questions (see the Ask page). Skip to the shortlist there to "
                    "compare the candidates now."
                )
            self.stack.setCurrentWidget(self.empty)
            return
        if snapshot.phase == Phase.COMPARING and snapshot.view.pair is not None:
            self.heading.setText("Which answer is better?")
            left, right = snapshot.view.pair
            self.left.show_candidate(left)
            self.right.show_candidate(right)
            self.more_button.setVisible(snapshot.can_ask_more)
            self.undo_button.setEnabled(snapshot.can_undo)
            self.stack.setCurrentIndex(1)
            self.prefer_left.setFocus()
            return
        if snapshot.phase == Phase.REJECTED:
            self.heading.setText("Not this answer")
            self.rejected.show_rejection(snapshot)
            self.stack.setCurrentWidget(self.rejected)
            return
        self.heading.setText(
            {Phase.DECIDED: "Is this your answer?", Phase.FAILED: "No answer"}.get(snapshot.phase, "The answer")
        )
        self.final.show_answer(snapshot)
        self.stack.setCurrentWidget(self.final)
