"""Long jobs off the event loop: the engine's Progress generators in worker threads, with Cancel.

``JobWorker`` runs ``make_job()`` (a function returning a Progress generator, called *in* the worker thread,
so whatever it opens, e.g. a KnowledgeBase, belongs to that thread) through ``assistant.progress.run_job``.
Progress records reach the GUI thread in batches at most every ``BATCH_SECONDS``, so that a job yielding
thousands of records never floods the event loop. Cancel closes the generator (its ``finally`` blocks run,
transactions roll back). ``ProgressDialog`` shows a worker's progress with a Cancel button;
``run_with_dialog`` wires the two together with the error dialog.
"""

from __future__ import annotations

import gc
import threading
import time
import traceback
from collections.abc import Callable, Generator
from typing import Any, TypeGuard, TypeVar

from PySide6.QtCore import QObject, Qt, QThread, QTimer, Signal, Slot
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from assistant.errors import Cancelled
from assistant.progress import Eta, Progress, eta_text, run_job
from gui.words import METRICS

T = TypeVar("T", bound=QThread)

BATCH_SECONDS = 0.05
# Cancel ends a job at its next step; one that does not get there in time (stuck in a long call) is
# abandoned: the person is told it is cancelled at once, and whatever it returns later is ignored.
ABANDON_MS = 800
JobFactory = Callable[[], Generator[Progress, None, Any]]


class GuiThreadGarbageCollection:
    """Cyclic garbage collection only in the GUI thread: automatic collection off, a timer collecting there.

    Python collects in whichever thread happens to allocate. A collection in a worker thread that frees
    Qt wrappers destroys them there, and that deadlocks with the GUI thread painting: seen as a hang when a
    Lab export rendered its plot with matplotlib in a worker while pyqtgraph painted the live plot.
    ``start()`` in the GUI thread (the app does; the GUI tests do around each test), ``stop()`` collects once
    more and turns automatic collection back on.

    ``young_only()`` collects only the youngest generation, ten times as often, until ``freeze()``: while a
    worker imports the model stack (the app opens before the models load) it allocates hundreds of thousands
    of objects a second, which a collection a second (and a full one now and then) walked in the GUI thread
    in pauses of up to 0.3 s (0.5 s of the GUI thread in all, seen with py-spy on a relaunch). ``freeze()``
    (once the first domain is ready) moves what is alive then out of every collection (the few cycles that
    died meanwhile in the older generations with it) and collects as before.
    """

    def __init__(self, interval_ms: int = 1000) -> None:
        self.timer = QTimer()
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.collect)
        self.thresholds = gc.get_threshold()
        self.interval_ms = interval_ms
        self.oldest = len(self.thresholds) - 1  # the oldest generation ``collect`` may collect

    def young_only(self) -> None:
        self.oldest = 0
        self.timer.setInterval(max(1, self.interval_ms // 10))

    def freeze(self) -> None:
        gc.freeze()
        self.oldest = len(self.thresholds) - 1
        self.timer.setInterval(self.interval_ms)

    def start(self) -> None:
        gc.disable()
        self.timer.start()

    def collect(self) -> int:
        """What automatic collection would have done by now: the young generations as they fill up, the
        oldest rarely. Returns the oldest generation collected (-1: none)."""
        collected = -1
        for generation, (count, threshold) in enumerate(zip(gc.get_count(), self.thresholds)):
            if count <= threshold or generation > self.oldest:
                break
            gc.collect(generation)
            collected = generation
        return collected

    def stop(self) -> None:
        self.timer.stop()
        gc.collect()
        gc.enable()


def is_running(worker: T | None) -> TypeGuard[T]:
    """True while ``worker`` runs (False once it ended, also after the pool deleted it). A type guard: where
    it is True, ``worker`` is not None."""
    if worker is None:
        return False
    try:
        return worker.isRunning()
    except RuntimeError:  # the C++ object is gone: it finished and was cleaned up
        return False


class JobWorker(QThread):
    """Runs one job; emits ``progressed(list[Progress])``, then exactly one of succeeded/failed/cancelled."""

    progressed = Signal(list)
    succeeded = Signal(object)
    failed = Signal(object, str)  # the exception, the traceback text
    cancelled = Signal()

    def __init__(self, make_job: JobFactory, title: str = "", parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.make_job = make_job
        self.title = title
        self._cancel = threading.Event()
        self._buffer: list[Progress] = []
        self._last_emit = 0.0
        self.last_progress: Progress | None = None
        self.result: Any = None
        self.outcome: str | None = None  # 'succeeded' | 'failed' | 'cancelled' once finished
        self._ended = threading.Lock()  # the first of the job's end and ``abandon`` to take it reports
        self.abandoned = False

    def cancel(self) -> None:
        """Ask the job to stop after its current step."""
        self._cancel.set()

    def abandon(self) -> bool:
        """Report the job cancelled now, although its thread may still be running (its result will be
        ignored); False when it has already ended. Call from the GUI thread."""
        self._cancel.set()
        if not self._ended.acquire(blocking=False):
            return False
        self.abandoned = True
        self.outcome = "cancelled"
        self.cancelled.emit()
        return True

    @property
    def cancel_requested(self) -> bool:
        return self._cancel.is_set()

    def _on_progress(self, record: Progress) -> None:
        self._buffer.append(record)
        now = time.monotonic()
        if now - self._last_emit >= BATCH_SECONDS:
            self._flush()
            self._last_emit = now

    def _flush(self) -> None:
        if self._buffer:
            batch, self._buffer = self._buffer, []
            self.last_progress = batch[-1]
            self.progressed.emit(batch)

    def run(self) -> None:
        try:
            if self._cancel.is_set():
                raise Cancelled("the job was cancelled before it started")
            result = run_job(self.make_job(), self._on_progress, self._cancel.is_set)
        except Cancelled:
            if self._end():
                self.outcome = "cancelled"
                self.cancelled.emit()
        except BaseException as exc:  # reported to the GUI thread, never raised into Qt
            if self._end():
                self.outcome = "failed"
                self.failed.emit(exc, traceback.format_exc())
        else:
            if self._end():
                self.result = result
                self.outcome = "succeeded"
                self.succeeded.emit(result)

    def _end(self) -> bool:
        """Flush the progress and claim the report (False: the job was abandoned, report nothing)."""
        if not self._ended.acquire(blocking=False):
            return False
        self._flush()
        return True


class WorkerPool(QObject):
    """Keeps running workers referenced until they finish; cancels and joins them on shutdown."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.workers: list[JobWorker] = []

    def start(self, worker: JobWorker) -> JobWorker:
        self.workers.append(worker)
        worker.finished.connect(lambda: self._forget(worker))
        worker.start()
        return worker

    def _forget(self, worker: JobWorker) -> None:
        if worker in self.workers:
            self.workers.remove(worker)
        worker.deleteLater()

    @property
    def running(self) -> list[JobWorker]:
        return [w for w in self.workers if is_running(w)]

    def shutdown(self, timeout_ms: int = 10000) -> list[JobWorker]:
        """Cancel every job and wait for them, ``timeout_ms`` in all; returns those still running."""
        for worker in list(self.workers):
            worker.cancel()
        deadline = time.monotonic() + timeout_ms / 1000
        for worker in list(self.workers):
            worker.wait(max(0, int(1000 * (deadline - time.monotonic()))))
        return self.running


def describe(record: Progress, seconds_left: float | None = None) -> str:
    """One line for a progress record: message, step of total, the ETA (``assistant.progress.Eta``), metrics."""
    parts = [record.message] if record.message else []
    if record.total > 0:
        parts.append(f"{record.step} / {record.total}")
    if seconds_left is not None:
        parts.append(eta_text(seconds_left))
    if record.metrics:
        parts.append("  ".join(f"{METRICS.get(k, k.replace('_', ' '))} {v:.4g}" for k, v in record.metrics.items()))
    return " · ".join(parts)


class ProgressPanel(QWidget):
    """A progress bar, a message line and a Cancel button for one worker at a time (embeddable)."""

    def __init__(self, parent: QWidget | None = None, name: str = "progress") -> None:
        super().__init__(parent)
        self.setObjectName(f"{name}Panel")
        self.bar = QProgressBar(self)
        self.bar.setObjectName(f"{name}Bar")
        self.bar.setAccessibleName("Progress")
        self.bar.setRange(0, 100)
        self.bar.setValue(0)
        self.message = QLabel("", self)
        self.message.setObjectName(f"{name}Message")
        self.message.setWordWrap(True)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setObjectName(f"{name}CancelButton")
        self.cancel_button.setAccessibleName("Cancel the running job")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.bar, 1)
        row.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.message)
        self.worker: JobWorker | None = None
        self.eta = Eta()
        # what the message line says for a record and its time left (a desk's wizard: gui.words.desk_progress),
        # and whether the bar may only move forward (a job of several stages, each counting from 0, must not
        # seem to go back)
        self.words: Callable[[Progress, float | None], str] = describe
        self.forward_only = False

    def follow(self, worker: JobWorker) -> None:
        self.worker = worker
        self.eta = Eta()
        self.bar.reset()  # a new job starts from nothing, even where the bar only moves forward
        self.bar.setRange(0, 0)  # busy until the first record says how far along it is
        self.message.setText(f"{worker.title}: starting…" if worker.title else "starting…")
        self.cancel_button.setEnabled(True)
        worker.progressed.connect(self.show_progress)
        worker.succeeded.connect(lambda _: self._finish("done"))
        worker.failed.connect(lambda exc, _: self._finish(f"failed: {exc}"))
        worker.cancelled.connect(lambda: self._finish("cancelled"))

    @Slot(list)
    def show_progress(self, batch: list[Progress]) -> None:
        record = batch[-1]
        show_on_bar(self.bar, record, self.forward_only)
        self.message.setText(self.words(record, self.eta.seconds_left(record)))

    def cancel(self) -> None:
        """Cancel the job: at its next step, or, if it does not get there within ``ABANDON_MS``, at once
        (the job is abandoned)."""
        worker = self.worker
        if worker is not None and is_running(worker) and not worker.abandoned:
            worker.cancel()
            self.cancel_button.setEnabled(False)
            self.message.setText("cancelling…")
            QTimer.singleShot(ABANDON_MS, lambda: is_running(worker) and worker.abandon())

    def _finish(self, text: str) -> None:
        self.bar.setRange(0, 1000)
        self.bar.setValue(1000 if text == "done" else self.bar.value())
        self.cancel_button.setEnabled(False)
        last = self.worker.last_progress if self.worker is not None else None
        said = self.words(last, None) if last is not None and text == "done" else ""
        self.message.setText(text if not said or said.startswith(text) else f"{text} · {said}")


class ProgressDialog(QDialog):
    """A window-modal dialog following one worker: title, progress, message, Cancel, and a live learning
    curve once the job reports metrics (a new curve for each training the job runs). Never blocks: it is
    shown with ``open()``, and closes itself when the worker ends."""

    def __init__(self, worker: JobWorker, title: str, parent: QWidget | None = None, desk: bool = False) -> None:
        super().__init__(parent)
        self.setObjectName("progressDialog")
        self.desk = desk  # a desk person's words (gui.words.desk_progress) and no training curves
        self.setWindowTitle(title)
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setMinimumWidth(520)
        heading = QLabel(f"<b>{title}</b>", self)
        self.panel = ProgressPanel(self, "jobProgress")
        if desk:
            from gui.words import desk_progress

            self.panel.words = lambda record, left: desk_progress(record.message, left)
            self.panel.forward_only = True
        self.panel.follow(worker)
        self.curve: Any = None
        self._keys: frozenset[str] = frozenset()
        self._last_step = 0
        self.layout_ = QVBoxLayout(self)
        self.layout_.addWidget(heading)
        self.layout_.addWidget(self.panel)
        self.worker = worker
        worker.progressed.connect(self._metrics)
        worker.finished.connect(self.accept)
        worker.cancelled.connect(self.accept)  # also when abandoned: its thread may end later

    def _metrics(self, batch: list[Progress]) -> None:
        from gui.plots import LearningCurve, curve_records  # pyqtgraph only once a job reports metrics

        records = curve_records(batch)
        if not records or self.desk:
            return
        if self.curve is None:
            self.curve = LearningCurve(self)
            self.curve.setMinimumHeight(300)
            self.layout_.addWidget(self.curve, 1)
            self.resize(max(self.width(), 640), 520)
        for record in records:
            keys = frozenset(record.metrics)
            if not keys:
                continue
            if (not keys <= self._keys and not self._keys <= keys) or record.step < self._last_step:
                self.curve.clear_curves()  # the job moved on to another training
                self._keys = frozenset()
            self._keys |= keys
            self._last_step = record.step
            self.curve.add([record])

    def reject(self) -> None:  # Escape or the window's close button = Cancel
        if is_running(self.worker):
            self.panel.cancel()
        else:
            super().reject()


def run_with_dialog(
    parent: QWidget,
    pool: WorkerPool,
    title: str,
    make_job: JobFactory,
    on_success: Callable[[Any], None],
    on_error: Callable[[BaseException, str], None],
    on_cancel: Callable[[], None] | None = None,
    desk: bool = False,
) -> JobWorker:
    """Run a job with a ProgressDialog; exactly one callback runs in the GUI thread when it ends. ``desk``: in a
    desk person's words, without training curves (opening a domain)."""
    worker = JobWorker(make_job, title)
    dialog = ProgressDialog(worker, title, parent, desk)
    worker.succeeded.connect(on_success)
    worker.failed.connect(on_error)
    if on_cancel is not None:
        worker.cancelled.connect(on_cancel)
    worker.finished.connect(dialog.deleteLater)
    worker.cancelled.connect(dialog.deleteLater)
    dialog.open()
    pool.start(worker)
    return worker


def show_on_bar(bar, record: Progress, forward_only: bool = False) -> None:
    """A job's progress on a QProgressBar: its fraction, or a busy bar when the total is unknown;
    ``forward_only``: never lower than it shows already (a new stage starting from 0 keeps the bar where it is)."""
    if record.total > 0:
        value = int(1000 * (record.fraction or 0.0))
        if forward_only and bar.maximum() == 1000:
            value = max(value, bar.value())
        bar.setRange(0, 1000)
        bar.setValue(value)
    else:
        bar.setRange(0, 0)
