"""The main window's size: from the screen it opens on, never larger than what that screen has free.

A person on a 1366x768 laptop must see every button: the window starts at most ``PREFERRED`` and at most the
screen's available geometry less room for the window frame, and a geometry saved on a bigger screen is
brought back inside. The pages' layouts wrap or scroll below their preferred size; their minimum (what a
test checks against 1366x768) is what no window can go below.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRect, QSettings, QSize
from PySide6.QtWidgets import QLayout, QMainWindow, QWidget

PREFERRED = QSize(1280, 820)
# Room for what the window manager adds around the window (title bar, borders): the size set here is the
# inside of the window.
FRAME = QSize(16, 48)


def invalidate_layouts(root: QWidget) -> None:
    """Forget every cached layout size under ``root``: widgets hidden before the window was first shown leave
    their visible-time sizes cached (the Ask page's nine buttons once made the window 1611 px wide)."""

    def invalidate(layout: QLayout) -> None:
        layout.invalidate()
        for i in range(layout.count()):
            item = layout.itemAt(i)
            inner = item.layout() if item is not None else None
            if inner is not None:
                invalidate(inner)

    for widget in [root, *root.findChildren(QWidget)]:
        widget.updateGeometry()  # drops the size its parent's layout item cached for it
        own = widget.layout()
        if own is not None:
            invalidate(own)


def initial_geometry(available: QRect, minimum: QSize, preferred: QSize = PREFERRED) -> QRect:
    """The window's inside geometry on a screen whose free area is ``available``: ``preferred``, or less to
    leave room for the frame, but never below ``minimum``; centred in ``available``."""
    room = QSize(max(1, available.width() - FRAME.width()), max(1, available.height() - FRAME.height()))
    size = preferred.boundedTo(room).expandedTo(minimum)
    left = available.x() + max(0, (available.width() - size.width()) // 2)
    top = available.y() + max(0, (available.height() - FRAME.height() - size.height()) // 2) + FRAME.height() // 2
    return QRect(left, top, size.width(), size.height())


def fit_to_screen(window: QMainWindow, settings: QSettings | None = None, available: QRect | None = None) -> QRect:
    """Size ``window`` for its screen (``available`` replaces the screen's free area, for tests), restoring the
    saved geometry and state from ``settings`` when they still fit. Returns the geometry set."""
    invalidate_layouts(window)
    layout = window.layout()  # a QMainWindow always has its own layout
    if layout is not None:
        layout.activate()
    area = available if available is not None else window.screen().availableGeometry()
    geometry = initial_geometry(area, window.minimumSizeHint())
    window.setGeometry(geometry)
    if settings is not None:
        saved = settings.value("window/geometry")
        if isinstance(saved, QByteArray | bytes) and saved:
            window.restoreGeometry(QByteArray(saved))
        state = settings.value("window/state")
        if isinstance(state, QByteArray | bytes) and state:
            window.restoreState(QByteArray(state))
        restored = window.geometry()
        if window.isMaximized() or window.isFullScreen():
            return restored
        if restored.width() > geometry.width() or restored.height() > geometry.height():
            window.setGeometry(geometry)  # saved on a bigger screen
        elif not area.contains(restored.center()):
            window.move(geometry.topLeft())
    return window.geometry()
