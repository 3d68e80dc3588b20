"""Models that catch up with the data in the background while the old ones keep answering.

After an import (or when a domain opens with models older than its data), ``ModelUpdater`` loads the
domain afresh (the registry then serves the stale models with the new data), runs
``assistant.app.lifecycle.updates.update_models_job`` in a worker and shows it in the status bar with Cancel; when it
is done the fresh models are loaded and used for the next question. A conversation in progress keeps the
models it started with. Cancelled, the update goes on from where it stopped the next time.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QHBoxLayout, QProgressBar, QPushButton, QWidget

from assistant.progress import Progress
from gui.words import desk_progress
from gui.workers import JobWorker, WorkerPool, is_running, show_on_bar


def reload_job(name: str) -> Generator[Progress, None, Any]:
    """The domain's registry loaded afresh (stale models serve the new data) and warmed up
    (``assistant.app.desk.domains.reload_job``: a prior no longer fitted to the data is fitted first)."""
    from assistant.app.desk.domains import reload_job as fresh

    return (yield from fresh(name))


def update_job(name: str) -> Generator[Progress, None, Any]:
    from assistant.app.lifecycle.updates import update_models_job

    return (yield from update_models_job(name))


class UpdatePanel(QWidget):
    """The status bar's part: how far the update is, in words on its own bar, and Cancel. It has no text of its
    own beside the bar: the status bar's one message area says everything else (two texts side by side ran
    into each other, issue 40)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("updatePanel")
        self.bar = QProgressBar(self)
        self.bar.setObjectName("updateBar")
        self.bar.setAccessibleName("Model update progress")
        self.bar.setTextVisible(True)
        self.bar.setMinimumWidth(260)
        self.bar.setMaximumWidth(320)
        self.bar.setMaximumHeight(18)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setObjectName("updateCancelButton")
        self.cancel_button.setAccessibleName("Cancel the model update")
        self.cancel_button.setToolTip("Stop updating; it goes on from where it stopped the next time")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.bar)
        self.words = ""
        self.carried_on = False  # this round's bar reached its end before the update now running started
        row.addWidget(self.cancel_button)
        self.hide()

    def say(self, words: str) -> None:
        """What the bar stands for, on the bar itself ('Learning from new data of faq: 16%')."""
        self.words = words
        self.bar.setFormat(f"{words}: %p%")

    def show_progress(self, batch: list[Progress]) -> None:
        record = batch[-1]
        if self.carried_on:  # an update after one that reached the end: busy, not a number that falls back
            self.bar.setRange(0, 0)
        else:
            show_on_bar(self.bar, record, forward_only=True)  # its stages each count from 0: never backwards
        self.bar.setToolTip(desk_progress(record.message))


class ModelUpdater(QObject):
    """See the module docstring. ``reloaded(name, registry)``: fresh models to use for the next question;
    ``message(text)``: a line for the status bar."""

    reloaded = Signal(str, object)
    message = Signal(str)

    def __init__(self, pool: WorkerPool, report_error: Callable[[str, BaseException, str], None], parent=None):
        super().__init__(parent)
        self.pool = pool
        self.report_error = report_error
        self.panel = UpdatePanel()
        self.panel.cancel_button.clicked.connect(self.cancel)
        self.loading: JobWorker | None = None
        self.updating: JobWorker | None = None
        self.queued: list[str] = []  # domains whose update waits for the running one (one bar for all)
        self.plan_text = ""

    @property
    def busy(self) -> bool:
        return is_running(self.loading) or is_running(self.updating)

    def reload(self, name: str) -> None:
        """Load ``name`` afresh (after its data changed), then bring its models up to date if they are stale."""
        worker = JobWorker(lambda: reload_job(name), f"Loading {name}")
        self.loading = worker
        worker.succeeded.connect(lambda registry: self._loaded(name, registry))
        worker.failed.connect(lambda exc, details: self._load_failed(name, exc, details))
        self.pool.start(worker)

    def _load_failed(self, name: str, exc: BaseException, details: str) -> None:
        self._done()
        self.report_error(f"Could not load {name}", exc, details)

    def _loaded(self, name: str, registry: Any) -> None:
        self.reloaded.emit(name, registry)
        self.offer(name, registry)

    def offer(self, name: str, registry: Any) -> None:
        """Start updating ``registry``'s stale models in the background, if it has any."""
        stale = registry.stale() if hasattr(registry, "stale") else []
        if stale and not is_running(self.updating):
            self.start(name)
        elif not is_running(self.updating):
            self._done()

    def start(self, name: str) -> JobWorker:
        """Update ``name``'s models now, or after the running update (queued: the bar carries on, never back)."""
        running = self.updating
        if running is not None and is_running(running):
            if name not in self.queued:
                self.queued.append(name)
            self.message.emit(f"The models of {name} are updated next, once the update under way is done.")
            return running
        worker = JobWorker(lambda: update_job(name), f"Updating the models of {name}")
        self.updating = worker
        if self.panel.isHidden():  # a new round: the bar starts from 0
            self.panel.bar.setRange(0, 1000)
            self.panel.bar.setValue(0)
            self.panel.carried_on = False
        else:  # one more update in the same round carries on from where the bar is (it fell from 100% to 3%)
            self.panel.carried_on = self.panel.bar.value() >= self.panel.bar.maximum() > 0
        self.panel.say(f"Learning from new data of {name}")
        self.panel.cancel_button.setEnabled(True)
        self.panel.show()
        worker.progressed.connect(self._progress)
        worker.succeeded.connect(lambda plan: self._updated(name, plan))
        worker.failed.connect(lambda exc, details: self._failed(name, exc, details))
        worker.cancelled.connect(lambda: self._cancelled(name))
        self.pool.start(worker)
        return worker

    def _progress(self, batch: list[Progress]) -> None:
        self.panel.show_progress(batch)
        first = next((r for r in batch if "older than the data" in r.message), None)
        if first is not None:  # the engine's plan ("the text encoder and the stop policy ... are older than the
            # data") stays in the tooltip; the status bar, beside the update panel, gets one short line
            self.plan_text = first.message
            self.panel.setToolTip(first.message)
            self.message.emit("Learning from the new data; the current answers stay in use meanwhile.")

    def cancel(self) -> None:
        if is_running(self.updating):
            self.updating.cancel()
            self.queued.clear()  # Cancel stops the round, the updates waiting in it too
            self.panel.cancel_button.setEnabled(False)
            self.panel.say("Stopping the update")

    def _done(self) -> None:
        """The round is over: the bar goes (the next round starts from 0)."""
        if not self.queued and not is_running(self.updating):
            self.panel.hide()

    def _next(self) -> None:
        if self.queued:
            self.start(self.queued.pop(0))

    def _updated(self, name: str, plan: Any) -> None:
        self.updating = None  # it ended (its thread may not have returned yet: the signal is queued)
        self.message.emit(f"The models of {name} are up to date: the next question uses them.")
        self.panel.say(f"Loading the new models of {name}")  # the bar stays at its end meanwhile
        self.panel.cancel_button.setEnabled(False)
        self._next()
        self.reload(name)  # its offer ends the round when nothing is left to update

    def _failed(self, name: str, exc: BaseException, details: str) -> None:
        self.updating = None  # it ended (its thread may not have returned yet: the signal is queued)
        self._next()
        self._done()
        self.report_error(f"Could not update the models of {name}", exc, details)

    def _cancelled(self, name: str) -> None:
        self.updating = None  # it ended (its thread may not have returned yet: the signal is queued)
        self._done()
        self.message.emit(
            f"Updating the models of {name} was stopped: the older models keep answering, and the update goes "
            "on from where it stopped the next time (File > Update the models)."
        )
