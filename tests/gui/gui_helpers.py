"""Helpers for the GUI tests: tiny agents, waiting for the session thread, making windows, clicking."""

from __future__ import annotations

from collections.abc import Generator

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QPushButton, QTableView, QWidget

from assistant.progress import Progress
from gui.workers import is_running
from tests.engine.conftest import TinyAgents

TIMEOUT_MS = 20_000


def tiny_loader(name: str) -> Generator[Progress, None, TinyAgents]:
    yield Progress(0, 1, f"preparing {name}")
    agents = TinyAgents(turns=3, name=name)
    yield Progress(1, 1, "ready")
    return agents


def wait_idle(qtbot, window, timeout: int = TIMEOUT_MS) -> None:
    """Wait until no session action and no domain preparation is in flight."""
    qtbot.waitUntil(
        lambda: window.controller.idle and not is_running(window.opening),
        timeout=timeout,
    )


def close_window(window) -> None:
    window._force_close = True
    window.close()


def make_window(qtbot, settings, loader=tiny_loader, domain: str = "tiny"):
    from gui.main_window import MainWindow

    window = MainWindow(settings=settings, domain_loader=loader, initial_domain=domain)
    qtbot.addWidget(window, before_close_func=close_window)
    window.show()
    qtbot.waitUntil(lambda: window.domain == domain and window.controller.attached, timeout=TIMEOUT_MS)
    wait_idle(qtbot, window)
    return window


# ---- driving the window through its named widgets ----
def named(window, cls, name):
    widget = window.findChild(cls, name)
    assert widget is not None, f"no {cls.__name__} named {name!r}"
    return widget


def click(qtbot, window, cls, name):
    widget = named(window, cls, name)
    assert widget.isEnabled(), f"{name} is disabled"
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)


def option_buttons(window) -> list[QPushButton]:
    box = named(window, QWidget, "answerButtons")
    return [b for b in box.findChildren(QPushButton) if b.isVisible()]


def click_option(qtbot, window, text):
    [button] = [b for b in option_buttons(window) if b.text() == text]
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)


def posterior(window) -> list[tuple[str, str]]:
    view = named(window, QTableView, "posteriorView")
    model = view.model()
    return [(model.index(r, 1).data(), model.index(r, 2).data()) for r in range(model.rowCount())]


def ask(qtbot, window, query):
    field = named(window, QLineEdit, "queryInput")
    field.clear()
    qtbot.keyClicks(field, query)
    click(qtbot, window, QPushButton, "askButton")


def activate(qtbot, window) -> None:
    """Make ``window`` the active window (keyboard shortcuts need it)."""
    window.raise_()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=TIMEOUT_MS)
