"""The History page: the open domain's saved sessions, newest first; resume one to continue it."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from assistant.app.session.phases import SessionStatus
from gui.controller import SessionController
from gui.qt_models import SessionListModel
from gui.widgets import make_table, stretch_column


class HistoryPage(QWidget):
    """``resumed``: a session was asked to resume (the main window shows the Ask or Compare page)."""

    resumed = Signal(int)

    def __init__(self, controller: SessionController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("historyPage")
        self.controller = controller
        self.model = SessionListModel(self)
        self.view = make_table("historyView", "Saved sessions", self)
        self.view.setModel(self.model)
        stretch_column(self.view, 1)
        self.view.doubleClicked.connect(lambda index: self.resume(index.row()))
        self.view.activated.connect(lambda index: self.resume(index.row()))
        self.status = QComboBox(self)
        self.status.setObjectName("historyStatus")
        self.status.setAccessibleName("Show sessions with status")
        self.status.addItem("all", None)
        for status in SessionStatus:
            self.status.addItem(status.words, status)
        self.status.currentTextChanged.connect(lambda _: self._filter())
        self.refresh_button = QPushButton("&Refresh", self)
        self.refresh_button.setObjectName("refreshHistoryButton")
        self.refresh_button.setAccessibleName("Refresh the list")
        self.refresh_button.clicked.connect(self.refresh)
        self.resume_button = QPushButton("Re&sume", self)
        self.resume_button.setObjectName("resumeButton")
        self.resume_button.setAccessibleName("Resume the selected session")
        self.resume_button.setToolTip("Continue the selected conversation where it stopped (Enter)")
        self.resume_button.clicked.connect(lambda: self.resume(self.selected_row()))
        self.summary = QLabel(self)
        self.summary.setObjectName("historySummary")
        top = QHBoxLayout()
        label = QLabel("Sho&w:", self)
        label.setBuddy(self.status)
        top.addWidget(label)
        top.addWidget(self.status)
        top.addWidget(self.summary, 1)
        top.addWidget(self.refresh_button)
        top.addWidget(self.resume_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.view, 1)
        self.sessions: list = []
        controller.sessionsListed.connect(self.show_sessions)

    def refresh(self) -> None:
        if not self.controller.list_sessions():
            self.show_sessions([])

    def show_sessions(self, sessions: list) -> None:
        self.sessions = list(sessions)
        self._filter()

    def _filter(self) -> None:
        wanted = self.status.currentData()
        rows = [s for s in self.sessions if wanted is None or s.status == wanted]
        self.model.set_records(rows)
        counts: dict[str, int] = {}
        for session in self.sessions:
            counts[session.status_words] = counts.get(session.status_words, 0) + 1
        parts = ", ".join(f"{n} {words}" for words, n in counts.items())
        domain = self.controller.domain or "no domain"
        self.summary.setText(f"{domain}: {len(self.sessions)} sessions" + (f" ({parts})" if parts else ""))
        if rows:
            self.view.selectRow(0)

    def selected_row(self) -> int:
        rows = self.view.selectionModel().selectedRows()
        return rows[0].row() if rows else -1

    def resume(self, row: int) -> None:
        if not 0 <= row < self.model.rowCount():
            return
        session_id = int(self.model.record(row).id)
        if self.controller.resume(session_id):
            self.resumed.emit(session_id)
