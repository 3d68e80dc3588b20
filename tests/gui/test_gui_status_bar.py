"""The status bar (issue 40): one message area (the update panel has no text of its own beside its bar), and
a background update's bar that never goes backwards: a second update asked for while one runs waits for it
and carries on the same bar (it once fell from 100% back to 3%)."""

from __future__ import annotations

import threading

from gui_helpers import TIMEOUT_MS
from PySide6.QtWidgets import QLabel

from assistant.progress import Progress
from gui.model_updates import ModelUpdater
from gui.workers import WorkerPool


class Fresh:
    """A registry whose models are up to date."""

    def stale(self) -> list[str]:
        return []


def test_a_second_update_waits_and_the_bar_never_goes_back(qtbot, monkeypatch):
    gate = threading.Event()
    ran: list[str] = []

    def update_job(name: str):
        ran.append(name)
        for step in range(5):
            yield Progress(step, 4, f"fine-tuning the text encoder of {name}")
            if name == "first" and step == 2:
                gate.wait(10)  # the first update is still running when the second is asked for
        return {}

    monkeypatch.setattr("gui.model_updates.update_job", update_job)
    pool = WorkerPool()
    errors: list[str] = []
    updater = ModelUpdater(pool, lambda title, exc, details: errors.append(title))
    updater.reload = lambda name: updater.offer(name, Fresh())  # the fresh models are up to date
    messages: list[str] = []
    updater.message.connect(messages.append)
    panel = updater.panel
    qtbot.addWidget(panel)
    shown: list[int] = []
    panel.bar.valueChanged.connect(lambda v: panel.bar.maximum() > 0 and shown.append(v))

    assert not panel.findChildren(QLabel)  # no second text beside the status bar's message
    updater.start("first")
    assert panel.isVisible() and "Learning from new data of first" in panel.bar.format()
    qtbot.waitUntil(lambda: updater.busy and ran == ["first"], timeout=TIMEOUT_MS)
    updater.start("second")
    assert any("second are updated next" in m for m in messages) and updater.queued == ["second"]
    gate.set()
    qtbot.waitUntil(lambda: ran == ["first", "second"] and not updater.busy and panel.isHidden(), timeout=TIMEOUT_MS)
    assert shown == sorted(shown) and shown[-1] == 1000, shown  # forward only, to the end
    assert errors == [] and sum("up to date" in m for m in messages) == 2
    # the next round starts from 0 again
    updater.start("third")
    assert panel.bar.value() == 0 and panel.isVisible()
    qtbot.waitUntil(lambda: not updater.busy and panel.isHidden(), timeout=TIMEOUT_MS)
    pool.shutdown()
