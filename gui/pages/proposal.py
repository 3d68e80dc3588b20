"""The proposed (or final) answer on the Compare page: its text, how sure Clarify is of it and why it is
proposed, "Accept this answer?" with Accept / Reject (and the reason for a rejection), Undo, and Summarize
for a FAQ's several answers. Keys: A accepts, J rejects (Enter in the reason field rejects with it)."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QTextBrowser, QWidget

from assistant.app.session.numbers import percent
from assistant.app.session.phases import Phase, ProposalReason
from gui.controller import SessionController
from gui.rich_text import candidate_html
from gui.snapshot import SessionSnapshot
from gui.widgets import Card, key_hint, press_if_shown, window_shortcuts
from gui.words import counted, decided_words

if TYPE_CHECKING:
    from assistant.app.session.session_records import FinalAnswer

PROPOSAL_KEYS = "Keys: A accept · J reject · Tab to move"


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
        self.keys = key_hint(PROPOSAL_KEYS, self, "proposalKeys")
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
            proposal = snapshot.view.proposal
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
        self.summarize_button.setVisible(snapshot.view.answers_to_summarize is not None and answer is not None)
        self.undo_button.setEnabled(snapshot.can_undo)
        if decided:
            self.accept_button.setFocus()
