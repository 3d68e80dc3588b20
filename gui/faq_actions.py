"""The main window's parts for a desk's own FAQ: *File > New domain from my FAQ…* (gui.faq_wizard), *File >
Inbox…* (the questions Clarify could not answer, each resolved in one step) and learning from use (after a
session ends with an accepted answer, the accepted sessions become training pairs once there are enough,
and the models update in the background while the old ones keep answering).

Everything here runs app jobs in workers (assistant.app.desk.inbox, assistant.app.desk.learning); no logic of its own.
"""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from assistant.app.session.phases import Phase
from assistant.progress import Progress
from gui.qt_models import Column, RecordTableModel
from gui.widgets import make_table, stretch_column
from gui.words import counted
from gui.workers import JobWorker, WorkerPool, is_running


def _inbox() -> Any:
    """assistant.app.desk.inbox, loaded when the inbox first opens (the window opens before the models load)."""
    from assistant.app.desk import inbox

    return inbox


class InboxModel(RecordTableModel):
    """``InboxItem`` records: the question, why it is here, the person's note, when, the closest entries (by
    their titles: ``titles`` maps an entry's key to its title)."""

    columns = (
        Column("Question", lambda i: i.query, tooltip=lambda i: i.query),
        Column("Why", lambda i: i.reason),
        Column("Their note", lambda i: i.note, tooltip=lambda i: i.note),
        Column("When", lambda i: i.updated_at[:16].replace("T", " ")),
    )

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.titles: dict[str, str] = {}

    def closest_titles(self, item: Any, limit: int = 3) -> list[str]:
        return [self.titles.get(key, key) for key in item.closest[:limit]]


NO_ENTRY = "Choose the entry that answers it…"


class InboxDialog(QDialog):
    """The inbox of one domain: pick a question, then assign an entry, make a new entry, or dismiss it.

    Nothing is chosen for the person: no question and no entry is preselected, no button is the default (Enter
    files nothing), and every action says what it did."""

    def __init__(self, pool: WorkerPool, domain: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("inboxDialog")
        self.setWindowTitle(f"Inbox of {domain}")
        self.resize(820, 560)
        self.pool, self.domain = pool, domain
        self.summary = QLabel(self)
        self.summary.setObjectName("inboxSummary")
        self.summary.setWordWrap(True)
        self.done_label = QLabel(self)
        self.done_label.setObjectName("inboxDone")
        self.done_label.setWordWrap(True)
        self.done_label.setAccessibleName("What was done")
        self.model = InboxModel(self)
        self.table = make_table("inboxTable", "Questions Clarify could not answer", self)
        self.table.setModel(self.model)
        stretch_column(self.table, 0)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._selection_changed())
        self.details = QLabel(self)
        self.details.setObjectName("inboxDetails")
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.RichText)
        self.entry = QComboBox(self)
        self.entry.setObjectName("inboxEntry")
        self.entry.setAccessibleName("Entry that answers the question")
        self.entry.setPlaceholderText(NO_ENTRY)
        self.entry.currentIndexChanged.connect(lambda _: self._enable())
        self.assign_button = self._button("&Assign", "inboxAssign", self.assign_selected)
        self.new_title = QLineEdit(self)
        self.new_title.setObjectName("inboxNewTitle")
        self.new_title.setPlaceholderText("title of the new entry (default: the question)")
        self.new_answer = QPlainTextEdit(self)
        self.new_answer.setObjectName("inboxNewAnswer")
        self.new_answer.setPlaceholderText("its answer")
        self.new_answer.setMaximumHeight(80)
        self.new_button = self._button("&New entry", "inboxNewEntry", self.new_entry_for_selected)
        self.dismiss_button = self._button("&Dismiss", "inboxDismiss", self.dismiss_selected)
        assign_row = QHBoxLayout()
        assign_row.addWidget(self.entry, 1)
        assign_row.addWidget(self.assign_button)
        form = QFormLayout()
        form.addRow("Answered by:", assign_row)
        form.addRow("Or a new entry:", self.new_title)
        form.addRow("", self.new_answer)
        buttons = QHBoxLayout()
        buttons.addWidget(self.new_button)
        buttons.addWidget(self.dismiss_button)
        buttons.addStretch(1)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        close.rejected.connect(self.reject)
        for button in close.buttons():
            if isinstance(button, QPushButton):
                button.setAutoDefault(False)
                button.setDefault(False)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.details)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.done_label)
        self.refresh()

    def _button(self, text: str, name: str, slot: Any) -> QPushButton:
        button = QPushButton(text, self)
        button.setObjectName(name)
        button.setAutoDefault(False)  # Enter must not file a question anywhere the person did not choose
        button.setDefault(False)
        button.clicked.connect(slot)
        return button

    def refresh(self) -> None:
        items = _inbox().inbox_items(self.domain)
        labels = _inbox().entries_of(self.domain)
        self.model.titles = {label.key: label.name for label in labels}
        self.model.set_records(items)
        self.entry.blockSignals(True)
        self.entry.clear()
        for label in labels:
            self.entry.addItem(label.name, label.key)
        self.entry.setCurrentIndex(-1)
        self.entry.blockSignals(False)
        self.summary.setText(
            f"{counted(len(items), 'question')} {escape(self.domain)} could not answer (nothing fitted, handed on "
            "to a person, or its answers were rejected). Pick one, then resolve it in a step: Clarify learns it at "
            "its next update."
            if items
            else "The inbox is empty: no question is waiting for an answer."
        )
        self.table.clearSelection()
        self._selection_changed()

    def _selection_changed(self) -> None:
        item = self.selected()
        if item is None:
            self.details.setText("<i>Pick a question above.</i>" if self.model.records else "")
        else:
            closest = self.model.closest_titles(item)
            parts = [f"<b>{escape(item.query)}</b> ({escape(item.reason)})"]
            if item.note:
                parts.append(f"Their note: “{escape(item.note)}”")
            if closest:
                parts.append("Closest entries: " + "; ".join(escape(t) for t in closest))
            self.details.setText("<br>".join(parts))
        self._enable()

    def _enable(self) -> None:
        chosen = self.selected() is not None
        self.assign_button.setEnabled(chosen and self.entry.currentIndex() >= 0)
        self.new_button.setEnabled(chosen)
        self.dismiss_button.setEnabled(chosen)

    def selected(self) -> Any:
        """The question the person picked (None until they pick one)."""
        selection = self.table.selectionModel()
        rows = selection.selectedRows() if selection is not None else []
        if not rows or rows[0].row() >= len(self.model.records):
            return None
        return self.model.records[rows[0].row()]

    def _done(self, text: str) -> None:
        self.refresh()
        self.done_label.setText(f"✓ {text} The models learn it at their next update.")

    def assign_selected(self) -> dict | None:
        item = self.selected()
        if item is None or self.entry.currentIndex() < 0:
            return None
        done = _inbox().assign(self.domain, item.session_id, str(self.entry.currentData()))
        title = self.model.titles.get(done["label"], done["label"])
        self._done(f"Filed “{escape(item.query)}” under “{escape(title)}”{self._twins(done)}.")
        return done

    @staticmethod
    def _twins(done: dict) -> str:
        others = len(done["resolved"]) - 1
        return f" (and {counted(others, 'more question')} asked the same way)" if others else ""

    def dismiss_selected(self) -> dict | None:
        item = self.selected()
        if item is None:
            return None
        done = _inbox().dismiss(self.domain, item.session_id)
        self._done(f"Set aside “{escape(item.query)}”{self._twins(done)}.")
        return done

    def new_entry_for_selected(self) -> JobWorker | None:
        item = self.selected()
        answer = self.new_answer.toPlainText().strip()
        if item is None:
            return None
        if not answer:
            self.done_label.setText("<b>Write the answer of the new entry first.</b>")
            return None
        title = self.new_title.text().strip()
        worker = JobWorker(lambda: _inbox().new_entry_job(self.domain, item.session_id, answer, title), "New entry")
        self.done_label.setText(f"Adding the new entry “{escape(title or item.query)}”…")

        def added(done: dict) -> None:
            self.new_title.clear()
            self.new_answer.clear()
            self._done(
                f"New entry “{escape(done['title'])}” made; it answers “{escape(item.query)}”{self._twins(done)}."
            )

        worker.succeeded.connect(added)
        self.pool.start(worker)
        return worker


def learn_job(name: str):
    """Learning from use after a session: nothing until enough accepted sessions are new."""
    yield Progress(0, 0, f"checking the accepted sessions of {name}")
    from assistant.app.desk.learning import learn_from_use_job

    return (yield from learn_from_use_job(name))


class FaqActions(QObject):
    """Adds *New domain from my FAQ…* and *Inbox…* to the window's File menu, and learns from use."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window
        self.new_faq_action = QAction("New domain from my &FAQ…", window)
        self.new_faq_action.setObjectName("newFaqDomainAction")
        self.new_faq_action.setToolTip("Make a domain of your own FAQ (CSV, Markdown or a folder of articles)")
        self.new_faq_action.triggered.connect(self.open_wizard)
        self.inbox_action = QAction("&Inbox…", window)
        self.inbox_action.setObjectName("inboxAction")
        self.inbox_action.setToolTip("The questions Clarify could not answer: assign them, or make new entries")
        self.inbox_action.triggered.connect(self.open_inbox)
        self.learning: JobWorker | None = None
        self.phase: Phase | None = None

    def install(self, file_menu: Any, before: QAction) -> None:
        file_menu.insertAction(before, self.new_faq_action)
        file_menu.insertAction(before, self.inbox_action)

    def open_wizard(self) -> QWidget:
        from gui.faq_wizard import FaqWizard

        picker = self.window.domain_picker
        names = [picker.itemData(i) for i in range(picker.count())]
        wizard = FaqWizard(self.window.pool, [n for n in names if n], self.window)
        wizard.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        wizard.created.connect(self._created)
        wizard.open()
        return wizard

    def _created(self, name: str) -> None:
        self.window.refresh_domains()
        self.window.open_domain(name)

    def open_inbox(self) -> QWidget | None:
        if not self.window.domain:
            return None
        dialog = InboxDialog(self.window.pool, self.window.domain, self.window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.finished.connect(lambda _: self.window.models_changed(self.window.domain))
        dialog.open()
        return dialog

    def session_ended(self, phase: Phase) -> None:
        """After a session: an accepted answer may make a training round due (run in the background)."""
        name = self.window.domain
        changed, self.phase = phase != self.phase, phase
        if not changed or phase != Phase.FINISHED or not name or is_running(self.learning) or self.window.updater.busy:
            return
        worker = JobWorker(lambda: learn_job(name), f"Learning from the sessions of {name}")

        def learned(done: dict[str, Any]) -> None:
            if done["stored"]:
                self._learned(name, done)

        worker.succeeded.connect(learned)
        self.learning = worker
        self.window.pool.start(worker)

    def _learned(self, name: str, done: dict) -> None:
        self.window.statusBar().showMessage(
            f"{done['stored']} accepted sessions became training pairs; the models of {name} were updated.", 10000
        )
        self.window.updater.reload(name)
