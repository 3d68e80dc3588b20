"""Getting a domain ready while the window is already usable: the Ask page's loading banner.

The window opens on the Ask page at once; the domain's models load (or, on a fresh home, install) in a
``gui.workers.JobWorker``. This banner shows that job's progress in a desk person's words with a Cancel button,
and what happens to a question asked meanwhile: it is kept and answered as soon as the domain is ready. It
never blocks the window (no modal dialog): the person can type, switch pages and read the help.
"""

from __future__ import annotations

import contextlib

from PySide6.QtWidgets import QLabel, QWidget

from gui.widgets import Card
from gui.words import desk_progress
from gui.workers import JobWorker, ProgressPanel


class LoadingBanner(Card):
    """The progress of getting one domain ready, with Cancel; hidden when no domain is loading."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("", parent, "domainLoading")
        self.panel = ProgressPanel(self, "domainLoading")
        self.panel.words = lambda record, left: desk_progress(record.message, left)
        self.panel.forward_only = True  # a job of several stages, each counting from 0
        self.panel.cancel_button.setToolTip("Stop getting the domain ready (what is done is kept for next time)")
        self.note = QLabel("", self)
        self.note.setObjectName("domainLoadingNote")
        self.note.setAccessibleName("Your question while the domain gets ready")
        self.note.setWordWrap(True)
        self.body.addWidget(self.panel)
        self.body.addWidget(self.note)
        self.name = ""
        self.hide()

    def follow(self, worker: JobWorker, name: str) -> None:
        """Show ``worker`` getting ``name`` ready."""
        self.name = name
        self.title.setText(f"Getting {name} ready")
        self.panel.follow(worker)
        for widget in (self.panel.bar, self.panel.cancel_button, self.panel.message):
            widget.show()
        self.panel.message.setText("Starting…")
        self.note.setText(f"You can type your question now: it is answered as soon as {name} is ready.")
        self.show()

    def question_kept(self, query: str) -> None:
        """A question was asked while loading: it waits for the domain (one question: the latest)."""
        self.note.setText(f"Your question “{query}” is kept: it is answered as soon as {self.name} is ready.")

    def stopped(self, text: str) -> None:
        """The job ended without a domain (cancelled, failed): say so, with no progress left to show (a job
        abandoned while stuck may still report a step later: the progress line stays hidden)."""
        self.title.setText(f"{self.name} is not ready")
        worker = self.panel.worker
        if worker is not None:  # nor does it move the progress of the next loading
            with contextlib.suppress(RuntimeError, TypeError):  # already gone
                worker.progressed.disconnect(self.panel.show_progress)
        for widget in (self.panel.bar, self.panel.cancel_button, self.panel.message):
            widget.hide()
        self.note.setText(text)
        self.show()
