"""The machinery every Lab panel shares: a form with Run, progress + Cancel and exports on the left,
results on the right; jobs run in workers from the Lab's pool."""

from __future__ import annotations

from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any, Protocol, TypeVar

from PySide6.QtCore import Qt, SignalInstance
from PySide6.QtWidgets import (
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from assistant.progress import Progress
from gui.widgets import VerticalScrollArea
from gui.workers import JobWorker, ProgressPanel, WorkerPool, is_running

W = TypeVar("W", bound=QWidget)
ErrorHandler = Callable[[str, BaseException, str], None]


class LabContext(Protocol):
    """What a panel uses of the Lab page: the worker pool, the error reporter and the current domain."""

    pool: WorkerPool
    report_error: ErrorHandler
    domain: str | None
    dev_episodes: int

    @property
    def modelsChanged(self) -> SignalInstance:
        """Emitted with a domain's name when a panel retrained one of its models."""
        ...


class LabPanel(QWidget):
    """A form on the left (parameters, Run, progress + Cancel, exports), results on the right."""

    def __init__(self, lab: LabContext, name: str, run_text: str) -> None:
        # the Lab page is the panel's Qt parent (a Protocol cannot also say "is a QWidget")
        super().__init__(lab if isinstance(lab, QWidget) else None)
        self.setObjectName(name)
        self.lab = lab
        self.form = QFormLayout()
        self.run_button = QPushButton(run_text, self)
        self.run_button.setObjectName(f"{name}RunButton")
        self.run_button.setAccessibleName(run_text.replace("&", ""))
        self.run_button.clicked.connect(lambda: self.run())
        self.progress = ProgressPanel(self, f"{name}Progress")
        self.summary = QLabel(self)
        self.summary.setObjectName(f"{name}Summary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.exports = QHBoxLayout()
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addLayout(self.form)
        left_layout.addWidget(self.run_button)
        left_layout.addWidget(self.progress)
        left_layout.addWidget(self.summary)
        left_layout.addStretch(1)
        left_layout.addLayout(self.exports)
        # the form scrolls on a short screen (a 1366x768 laptop) instead of making the window taller
        scroll = VerticalScrollArea(left, self)
        scroll.setObjectName(f"{name}Form")
        scroll.setMaximumWidth(480)
        self.results = QVBoxLayout()
        right = QWidget(self)
        right.setLayout(self.results)
        self.results.setContentsMargins(0, 0, 0, 0)
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(scroll)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 1)
        splitter.setChildrenCollapsible(False)
        QVBoxLayout(self).addWidget(splitter)
        self.worker: JobWorker | None = None
        self.export_buttons: list[QPushButton] = []

    def add_field(self, label: str, widget: W, name: str) -> W:
        widget.setObjectName(name)
        widget.setAccessibleName(label.replace("&", "").rstrip(":"))
        self.form.addRow(label, widget)
        return widget

    def add_export(self, text: str, name: str, slot: Callable[[], Any]) -> QPushButton:
        button = QPushButton(text, self)
        button.setObjectName(name)
        button.setAccessibleName(text.replace("&", ""))
        button.setEnabled(False)
        button.clicked.connect(lambda: slot())
        self.exports.addWidget(button)
        self.export_buttons.append(button)
        return button

    @property
    def running(self) -> bool:
        return is_running(self.worker)

    def start(self, title: str, make_job: Callable[[], Generator[Progress, None, Any]]) -> JobWorker | None:
        if self.running:
            return None
        worker = JobWorker(make_job, title)
        self.worker = worker
        self.progress.follow(worker)
        worker.progressed.connect(self.on_progress)
        worker.succeeded.connect(self.on_result)
        worker.failed.connect(lambda exc, details: self.lab.report_error(title, exc, details))
        worker.finished.connect(lambda: self.run_button.setEnabled(True))
        self.run_button.setEnabled(False)
        self.summary.setText("")
        self.lab.pool.start(worker)
        return worker

    def cancel(self) -> None:
        self.progress.cancel()

    def save_path(self, title: str, suffix: str, path: str | Path | None) -> Path | None:
        if path is not None:
            return Path(path)
        chosen, _ = QFileDialog.getSaveFileName(self, title, f"{self.lab.domain or 'results'}{suffix}", f"*{suffix}")
        return Path(chosen) if chosen else None

    def write_later(self, title: str, path: Path, write: Callable[[Path], Any]) -> JobWorker:
        """Write an export in a worker (matplotlib's first import alone takes a moment)."""

        def job() -> Generator[Progress, None, Path]:
            yield Progress(0, 1, f"writing {path.name}")
            write(path)
            yield Progress(1, 1, f"wrote {path.name}")
            return path

        worker = JobWorker(job, title)
        worker.succeeded.connect(lambda p: self.summary.setText(self.summary.text() + f"\nWrote {p}"))
        worker.failed.connect(lambda exc, details: self.lab.report_error(title, exc, details))
        self.lab.pool.start(worker)
        return worker

    # subclasses
    def run(self, *args: Any, **kwargs: Any) -> JobWorker | None:
        """Start the panel's job from its form (each panel takes its own keyword overrides, for tests)."""
        raise NotImplementedError

    def on_progress(self, batch: list[Progress]) -> None:
        pass

    def on_result(self, result: Any) -> None:
        pass
