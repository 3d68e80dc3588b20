"""The Compare page: two candidates side by side, the person's preference (or "neither is relevant"),
one number for how sure Clarify is of its current best, the shortlist in its current order with each
answer's chance of being the best, then the proposed answer ("Accept this answer?") with Accept / Reject,
and after a rejection the way on (``gui.pages.rejected``).

FAQ candidates are answer texts headed by their FAQ question; bird candidates are species with their key
attributes (the label's summary text, "size: small; shape: perching-like; ..."), shown as a list.
Keys: ← / L left is better, → / R right is better, E / = equally good, N neither is relevant.
"""

from __future__ import annotations

import itertools
from html import escape
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractButton,
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

from assistant.app.session.numbers import percent
from assistant.app.session.phases import Phase, ProposalReason
from gui.controller import SessionController
from gui.pages.rejected import RejectedPanel
from gui.qt_models import ShortlistModel
from gui.rich_text import candidate_html
from gui.snapshot import CandidateView, SessionSnapshot
from gui.widgets import Card, make_table, preference_keys, press_if_shown, stretch_column, window_shortcuts
from gui.words import counted, decided_words

if TYPE_CHECKING:
    from assistant.app.session.session_records import FinalAnswer

PROPOSAL_KEYS = "Keys: A accept · J reject · Tab to move"
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
        self.text.setTabChangesFocus(True)
        self.text.setAccessibleName("Answer text")
        self.reason = QLineEdit(self)
        self.reason.setObjectName("rejectReason")
        self.reason.setAccessibleName("Why the answer is wrong (optional)")
        self.reason.setPlaceholderText("Optional: why is it not the answer? (Enter rejects it)")
        self.accept_button = QPushButton("&Accept this answer", self)
        self.accept_button.setObjectName("acceptButton")
        self.accept_button.setAccessibleName("Accept this answer")
        self.accept_button.clicked.connect(self.controller.accept)
        self.reject_button = QPushButton("Re&ject", self)
        self.reject_button.setObjectName("rejectButton")
        self.reject_button.setAccessibleName("Reject the answer")
        self.reject_button.setToolTip(
            "Not this one: then take another answer, ask more questions, hand it on to a person or give up"
        )
        self.reject_button.clicked.connect(lambda: self.controller.reject(self.reason.text().strip()))
        # Enter in the field rejects with what was typed: the field is only for a rejection's reason
        self.reason.returnPressed.connect(lambda: press_if_shown(self.reject_button))
        self.undo_button = QPushButton("&Undo", self)
        self.undo_button.setObjectName("finalUndoButton")
        self.undo_button.setAccessibleName("Undo the last step")
        self.undo_button.clicked.connect(self.controller.undo)
        self.summarize_button = QPushButton("&Summarize these answers", self)
        self.summarize_button.setObjectName("summarizeAnswersButton")
        self.summarize_button.setAccessibleName("Summarize these answers")
        self.summarize_button.setToolTip(
            "This FAQ has several answers: compare summaries of them on the Summarize page"
        )
        row = QHBoxLayout()
        row.addWidget(self.summarize_button)
        row.addWidget(self.reason, 1)
        row.addWidget(self.undo_button)
        row.addWidget(self.reject_button)
        row.addWidget(self.accept_button)
        # Tab runs left to right, as the row reads (creation order ran it right to left)
        chain = (
            self.text,
            self.summarize_button,
            self.reason,
            self.undo_button,
            self.reject_button,
            self.accept_button,
        )
        for first, second in itertools.pairwise(chain):
            QWidget.setTabOrder(first, second)
        self.question = QLabel("Accept this answer?", self)
        self.question.setObjectName("acceptQuestion")
        font = self.question.font()
        font.setBold(True)
        self.question.setFont(font)
        self.keys = QLabel(PROPOSAL_KEYS, self)
        self.keys.setObjectName("proposalKeys")
        self.keys.setStyleSheet("color: #666")
        question_row = QHBoxLayout()
        question_row.addWidget(self.question)
        question_row.addStretch(1)
        question_row.addWidget(self.keys)
        self.body.addWidget(self.status)
        self.body.addWidget(self.text, 1)
        self.body.addLayout(question_row)
        self.body.addLayout(row)
        # the underlined letters work without Alt too, wherever the focus is (except in the reason field)
        self.shortcuts = window_shortcuts(self, (("A", self.accept_button), ("J", self.reject_button)))
        self._reason_for: tuple[int, str] | None = None

    def show_answer(self, snapshot: SessionSnapshot) -> None:
        answer: FinalAnswer | None = snapshot.final or snapshot.proposed
        decided = snapshot.phase == Phase.DECIDED
        if snapshot.phase == Phase.FAILED:  # the way out ended: the rejected answer is not shown again
            answer = None
        if answer is None:
            self.title.setText("Handed on to a person" if snapshot.handed_off else "No answer found")
            self.text.setHtml(
                "<p>Your question waits in the desk's inbox: a person will answer it.</p>"
                if snapshot.handed_off
                else "<p>Saved as unanswered: the desk sees it in its inbox.</p>"
            )
        else:
            prefix = {Phase.DECIDED: "Proposed answer", Phase.FINISHED: "Answer"}.get(snapshot.phase, "No answer")
            self.title.setText(f"{prefix}: {answer.label_name}")
            self.text.setHtml(candidate_html(answer.text))
        questions = f"{counted(snapshot.questions_answered, 'question')}, {counted(snapshot.comparisons, 'comparison')}"
        best_answer = decided and snapshot.decided_reason == ProposalReason.BEST_ANSWER
        if decided:
            why = decided_words(snapshot.decided_reason)
            status = f"{why} after {questions}."
            if answer is not None and answer.answer_number is not None:
                status += f" It is answer {answer.answer_number} of {answer.answers} to this question."
            proposal = snapshot.view.proposal if snapshot.view is not None else None
            if proposal is not None:
                status += f" Clarify is {proposal.sure}."
                if proposal.best_of_compared is not None:
                    status += (
                        f" Of the compared answers it is the best with a {percent(proposal.best_of_compared)} chance."
                    )
        elif snapshot.phase == Phase.FINISHED:
            status = f"Accepted after {questions}. Saved as session {snapshot.session_id}."
        elif snapshot.handed_off:
            status = f"Handed on after {questions} (session {snapshot.session_id})."
        else:
            status = f"You gave up after {questions}: saved as unanswered (session {snapshot.session_id})."
        self.status.setText(status)
        # a reason typed for one proposal never carries over to another one (or to the next session)
        shown = (snapshot.session_id, answer.candidate_id if answer is not None else "")
        if not decided or shown != self._reason_for:
            self.reason.clear()
        self._reason_for = shown if decided else None
        for widget in (self.reason, self.accept_button, self.reject_button, self.question, self.keys):
            widget.setVisible(decided)
        # one question left: "Did this answer it?" (its other answers come only after a no)
        self.question.setText(
            "Did this answer it? (If not, reject it to see its other answers.)"
            if best_answer
            else "Accept this answer?"
        )
        self.summarize_button.setVisible(snapshot.answers_to_summarize is not None and answer is not None)
        self.undo_button.setEnabled(snapshot.can_undo)
        if decided:
            self.accept_button.setFocus()


class ComparePage(QWidget):
    """See the module docstring. ``newQuestionRequested``: back to the Ask page for a new question."""

    newQuestionRequested = Signal()
    summarizeAnswersRequested = Signal(object)  # (FAQ question, query, answers)

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
        compare_keys = QLabel(COMPARE_KEYS, comparison)
        compare_keys.setObjectName("compareKeys")
        compare_keys.setStyleSheet("color: #666")
        comp_layout.addWidget(compare_keys)

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
        if self.snapshot is not None and self.snapshot.answers_to_summarize is not None:
            self.summarizeAnswersRequested.emit(self.snapshot.answers_to_summarize)

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
        showing = view is not None and snapshot is not None and snapshot.phase in (Phase.COMPARING, Phase.DECIDED)
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
        self.shortlist_model.set_records(snapshot.shortlist if snapshot and not ended_without else ())
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
            if snapshot and snapshot.shortlist
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
        if snapshot.phase == Phase.COMPARING and snapshot.pair is not None:
            self.heading.setText("Which answer is better?")
            left, right = snapshot.pair
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
