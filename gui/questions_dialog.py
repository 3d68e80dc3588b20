"""The "Questions of this domain" dialog: every question a domain may ask, with Hide / Show / Reword.

A table (``QuestionsModel`` over ``assistant.app.desk.questions.QuestionEntry`` records) lists tag, text, kind,
options and whether the question is induced, hidden or reworded. The buttons act on the selected row; the
new wording is typed in the line edit under the table (no modal prompt). Every read and write is a job of
``assistant.app.desk.questions`` run in a worker; ``changed`` tells the main window to load the domain afresh,
so that a hidden question is not asked from the next question on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QBrush, QColor
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gui.qt_models import Column, RecordTableModel
from gui.widgets import make_table, stretch_column
from gui.words import tag_words
from gui.workers import JobWorker, WorkerPool

if TYPE_CHECKING:  # loaded when the dialog first lists a domain's questions
    from assistant.app.desk.questions import QuestionEntry


def _yes(flag: bool) -> str:
    return "yes" if flag else ""


class QuestionsModel(RecordTableModel):
    """The questions of a domain (``QuestionEntry`` records); hidden rows greyed out."""

    columns = (
        Column("About", lambda e: tag_words(e.tag), tooltip=lambda e: f"For the command line: {e.tag}"),
        Column("Question", lambda e: e.text),
        Column("Kind", lambda e: "yes/no" if e.kind == "binary" else "choice"),
        Column("Options", lambda e: " / ".join(e.options) if e.kind == "choice" else ""),
        Column("Found in your entries", lambda e: e.induced, _yes),
        Column("Hidden", lambda e: e.hidden, _yes),
        Column("Reworded", lambda e: e.reworded, _yes, tooltip=lambda e: f"was: {e.original_text}"),
    )

    def extra_data(self, record: Any, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.ForegroundRole and record.hidden:
            return QBrush(QColor("#8a8a8a"))
        return None


class QuestionsDialog(QDialog):
    """Review the questions of ``domain``; ``changed(domain)`` after each stored change."""

    changed = Signal(str)
    READING = "Reading the questions…"

    def __init__(self, domain: str, pool: WorkerPool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("questionsDialog")
        self.setWindowTitle(f"Questions of this domain — {domain}")
        self.domain = domain
        self.pool = pool
        self.worker: JobWorker | None = None
        self.model = QuestionsModel(self)
        self.view = make_table("questionsView", "Questions of this domain", self)
        self.view.setModel(self.model)
        stretch_column(self.view, 1)
        header = self.view.horizontalHeader()
        for column, width in ((0, 170), (3, 220)):  # long tags and option lists must not squeeze the question
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(column, width)
        self.view.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.view.selectionModel().currentRowChanged.connect(lambda *_: self._selected())
        self.summary = QLabel(self)
        self.summary.setObjectName("questionsSummary")
        self.status = QLabel(self)
        self.status.setObjectName("questionsStatus")
        self.status.setWordWrap(True)
        self.hide_button = self._button("&Hide", "hideQuestionButton", "Never ask the selected question", "hide")
        self.show_button = self._button("&Show", "showQuestionButton", "Ask the selected question again", "show")
        self.reset_button = self._button("Rese&t", "resetQuestionButton", "Undo every change to it", "reset")
        self.wording = QLineEdit(self)
        self.wording.setObjectName("questionWording")
        self.wording.setAccessibleName("New wording of the selected question")
        self.reword_button = self._button("&Reword", "rewordQuestionButton", "Ask it as typed", "reword")
        self.option = QComboBox(self)
        self.option.setObjectName("optionChoice")
        self.option.setAccessibleName("Option to reword")
        self.option_wording = QLineEdit(self)
        self.option_wording.setObjectName("optionWording")
        self.option_wording.setAccessibleName("New wording of the option")
        self.option_button = self._button(
            "Reword &option", "rewordOptionButton", "Show the chosen option as typed", "reword_option"
        )
        close = QPushButton("&Close", self)
        close.setObjectName("closeQuestionsButton")
        close.clicked.connect(self.accept)
        for button in self.findChildren(QPushButton):  # Enter hides or rewords nothing by accident
            button.setAutoDefault(False)
            button.setDefault(False)
        rows = QVBoxLayout(self)
        rows.addWidget(self.summary)
        rows.addWidget(self.view, 1)
        for widgets in (
            (self.hide_button, self.show_button, self.reset_button),
            (QLabel("Question:", self), self.wording, self.reword_button),
            (QLabel("Option:", self), self.option, self.option_wording, self.option_button),
            (self.status, close),
        ):
            line = QHBoxLayout()
            for widget in widgets:
                line.addWidget(widget, 1 if isinstance(widget, QLineEdit | QLabel) and widget is not close else 0)
            rows.addLayout(line)
        self.resize(980, 600)
        self._selected()
        self.refresh()

    def _button(self, text: str, name: str, tip: str, change: str) -> QPushButton:
        button = QPushButton(text, self)
        button.setObjectName(name)
        button.setToolTip(tip)
        button.setAccessibleName(tip)
        button.clicked.connect(lambda _=False: self.apply(change))
        return button

    # ---- reading ---------------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Read the questions again (in a worker)."""
        saved = self.status.text()
        from assistant.app.desk.questions import listing_job

        self._run(lambda: listing_job(self.domain), self._listed, self.READING)
        if saved.startswith("Saved"):
            self.status.setText(saved)

    def _listed(self, entries: list[QuestionEntry]) -> None:
        if self.status.text() == self.READING:  # read: the label goes (a "Saved: ..." stays)
            self.status.clear()
        row = max(self.view.currentIndex().row(), 0)
        self.model.set_records(entries)
        hidden, reworded = sum(e.hidden for e in entries), sum(e.reworded for e in entries)
        self.summary.setText(f"{len(entries)} questions: {hidden} hidden, {reworded} reworded")
        if entries:
            self.view.selectRow(min(row, len(entries) - 1))
        self._selected()

    def selected(self) -> QuestionEntry | None:
        row = self.view.currentIndex().row()
        return self.model.record(row) if 0 <= row < len(self.model.records) else None

    def _selected(self) -> None:
        entry = self.selected()
        busy = self.worker is not None
        self.wording.setText(entry.text if entry else "")
        self.option.clear()
        if entry is not None and entry.kind == "choice":
            self.option.addItems(list(entry.options[:-1]))
        for button, enabled in (
            (self.hide_button, entry is not None and not entry.hidden),
            (self.show_button, entry is not None and entry.hidden),
            (self.reset_button, entry is not None and (entry.hidden or entry.reworded)),
            (self.reword_button, entry is not None),
            (self.option_button, entry is not None and entry.kind == "choice"),
        ):
            button.setEnabled(enabled and not busy)

    # ---- writing ---------------------------------------------------------------------------------------
    def apply(self, change: str) -> None:
        """Apply ``change`` ('hide', 'show', 'reword', 'reword_option', 'reset') to the selected question."""
        entry = self.selected()
        if entry is None or self.worker is not None:
            return
        args: tuple[str, ...] = ()
        if change == "reword":
            args = (self.wording.text(),)
        elif change == "reword_option":
            args = (self.option.currentText(), self.option_wording.text())
        from assistant.app.desk.questions import change_job

        self._run(lambda: change_job(self.domain, change, entry.tag, *args), self._changed, "Saving…")

    def _changed(self, entry: QuestionEntry) -> None:
        self.status.setText(f"Saved: {entry.text}" + (" (hidden)" if entry.hidden else ""))
        self.changed.emit(self.domain)
        self.refresh()

    def _run(self, make_job, on_success, message: str) -> None:
        worker = JobWorker(make_job, message)
        self.worker = worker
        self.status.setText(message)
        worker.succeeded.connect(lambda result: self._done(on_success, result))
        worker.failed.connect(self._failed)
        worker.cancelled.connect(lambda: self._done(None, None))
        self._selected()
        self.pool.start(worker)

    def _done(self, on_success, result) -> None:
        self.worker = None
        if on_success is not None:
            on_success(result)
        self._selected()

    def _failed(self, exc: BaseException, details: str) -> None:
        self.worker = None
        self.status.setText(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        self._selected()


def questions_action(window: Any) -> QAction:
    """The menu action "Questions of this domain…" of the main window ``window``: opens the dialog for the open
    domain; a change there reloads the domain's models (``window.models_changed``)."""
    action = QAction("&Questions of this domain…", window)
    action.setObjectName("questionsAction")
    action.setStatusTip("Review the questions Clarify may ask in this domain: hide or reword one")
    action.triggered.connect(lambda _=False: open_questions(window))
    window.questions_action = action
    return action


def open_questions(window: Any) -> QuestionsDialog | None:
    """Open the dialog for ``window``'s domain (or say that none is open)."""
    name = window.domain or window.domain_picker.currentData()
    if not name:
        window.statusBar().showMessage("Open a domain first.", 4000)
        return None
    dialog = QuestionsDialog(name, window.pool, window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.changed.connect(window.models_changed)
    dialog.open()
    window.questions_dialog = dialog
    return dialog
