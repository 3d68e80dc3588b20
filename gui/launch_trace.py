"""When the window became usable, for ``benchmarks/bench_responsiveness.py``: opt-in, through the environment.

``CLARIFY_GUI_TRACE=FILE`` makes the app write one line per moment, ``NAME UNIX_SECONDS [VALUE]``, to FILE:

- ``shown``: the window was shown;
- ``usable``: the event loop runs with the window shown and the Ask page's question box and Ask button enabled
  (a person can type a question and submit it);
- ``asked``: with ``CLARIFY_GUI_TRACE_ASK=QUESTION``, that question was typed into the Ask page (key by key)
  and Ask pressed, at once when usable, so while the domain may still be loading;
- ``ready``: the domain is open and answers questions;
- ``answered``: the asked question got its first answer from the assistant (a question or a shortlist);
- ``stall``: the longest the event loop went without turning (a timer every 20 ms) between ``usable`` and
  ``ready``, in seconds (the window is frozen that long);
- ``failed`` / ``cancelled``: the domain could not be opened.

With ``CLARIFY_GUI_TRACE_QUIT=1`` the window closes once it is done (answered, or ready when nothing was
asked, or failed). Nothing of this runs unless ``CLARIFY_GUI_TRACE`` is set.
"""

from __future__ import annotations

import os
import time
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer

TICK_MS = 20


class LaunchTrace(QObject):
    def __init__(self, window: Any, path: str, question: str = "", quit_when_done: bool = False) -> None:
        super().__init__(window)
        self.window = window
        self.path = path
        self.question = question
        self.quit_when_done = quit_when_done
        self.seen: set[str] = set()
        self.last_tick: float | None = None
        self.stall = 0.0
        self.ticker = QTimer(self)
        self.ticker.setInterval(TICK_MS)
        self.ticker.timeout.connect(self._tick)
        window.domainReady.connect(lambda _name: self._ready())
        window.controller.snapshotChanged.connect(self._snapshot)

    def mark(self, name: str, value: float | None = None) -> None:
        if name in self.seen:
            return
        self.seen.add(name)
        with open(self.path, "a", encoding="utf-8") as out:
            out.write(f"{name} {time.time():.3f}" + (f" {value:.3f}" if value is not None else "") + "\n")

    def shown(self) -> None:
        """Call right after ``window.show()``: the next turn of the event loop checks that the page is usable."""
        self.mark("shown")
        QTimer.singleShot(0, self._check_usable)
        self.ticker.start()

    def _check_usable(self) -> None:
        page = self.window.ask_page
        if not (self.window.isVisible() and page.query_input.isEnabled() and page.ask_button.isEnabled()):
            QTimer.singleShot(TICK_MS, self._check_usable)
            return
        self.mark("usable")
        if self.question:
            from PySide6.QtTest import QTest

            page.query_input.setFocus()
            QTest.keyClicks(page.query_input, self.question)
            QTest.keyClick(page.query_input, Qt.Key.Key_Return)
            self.mark("asked")
        opening = self.window.opening
        if opening is not None:
            opening.failed.connect(lambda *_: self._ended("failed"))
            opening.cancelled.connect(lambda: self._ended("cancelled"))

    def _tick(self) -> None:
        now = time.monotonic()
        if self.last_tick is not None and "usable" in self.seen:
            self.stall = max(self.stall, now - self.last_tick - TICK_MS / 1000)
        self.last_tick = now

    def _ready(self) -> None:
        self.mark("ready")
        self.mark("stall", self.stall)
        if not self.question:
            self._done()

    def _snapshot(self, snapshot: Any) -> None:
        if self.question and snapshot is not None and "asked" in self.seen:
            self.mark("answered")
            self._done()

    def _ended(self, how: str) -> None:
        self.mark(how)
        self._done()

    def _done(self) -> None:
        self.ticker.stop()
        if self.quit_when_done:
            QTimer.singleShot(0, self.window.close)


def trace_from_environment(window: Any) -> LaunchTrace | None:
    path = os.environ.get("CLARIFY_GUI_TRACE")
    if not path:
        return None
    question = os.environ.get("CLARIFY_GUI_TRACE_ASK", "")
    return LaunchTrace(window, path, question, os.environ.get("CLARIFY_GUI_TRACE_QUIT") == "1")
