"""Small reusable widgets: probability bars in tables, cards, keys (the Lab's plots: gui.plots)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import QEvent, QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QKeySequence, QPainter, QShortcut
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QFrame,
    QHeaderView,
    QLabel,
    QScrollArea,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gui.qt_models import BAR_ROLE

PALETTE = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
BAR_COLOR = QColor("#8fb8e8")


class ProbabilityBarDelegate(QStyledItemDelegate):
    """Draws a horizontal bar for cells whose BAR_ROLE is a number in [0, 1], beside their text: the bar
    fills the part of the cell the (right-aligned) text leaves free, so it never covers a digit."""

    TEXT_GAP = 6
    BAR_WIDTH = 64

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        size = super().sizeHint(option, index)
        if index.data(BAR_ROLE) is not None:
            size.setWidth(size.width() + self.BAR_WIDTH)
        return size

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        value = index.data(BAR_ROLE)
        if value is not None:
            if option.state & QStyle.StateFlag.State_Selected:
                painter.fillRect(option.rect, option.palette.highlight())
            text = str(index.data(Qt.ItemDataRole.DisplayRole) or "")
            reserved = option.fontMetrics.horizontalAdvance(text + "  ") + self.TEXT_GAP
            rect = QRect(option.rect.adjusted(3, 4, -reserved, -4))
            rect.setWidth(max(0, int(rect.width() * min(1.0, max(0.0, float(value))))))
            painter.save()
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(BAR_COLOR)
            painter.drawRoundedRect(rect, 2, 2)
            painter.restore()
            option = QStyleOptionViewItem(option)
            option.state &= ~QStyle.StateFlag.State_Selected
            self.initStyleOption(option, index)
            option.backgroundBrush = QBrush(Qt.GlobalColor.transparent)
            style = option.widget.style() if option.widget is not None else None
            if style is not None:
                style.drawControl(QStyle.ControlElement.CE_ItemViewItem, option, painter, option.widget)
                return
        super().paint(painter, option, index)


def make_table(name: str, accessible: str, parent: QWidget | None = None) -> QTableView:
    """A read-only, row-selecting table view with sensible defaults."""
    view = QTableView(parent)
    view.setObjectName(name)
    view.setAccessibleName(accessible)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setAlternatingRowColors(True)
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setDefaultSectionSize(24)
    view.setWordWrap(False)
    # Tab leaves the table for the next control (a table's own Tab walks its cells and keeps a keyboard user
    # in it: the proposal's Reject was out of reach, issue 40); the arrow keys still move between its rows
    view.setTabKeyNavigation(False)
    view.setItemDelegate(ProbabilityBarDelegate(view))
    header = view.horizontalHeader()
    header.setHighlightSections(False)
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    return view


def stretch_column(view: QTableView, column: int) -> None:
    """Let ``column`` take the remaining width (call after setting the model)."""
    header = view.horizontalHeader()
    for c in range(view.model().columnCount()):
        mode = QHeaderView.ResizeMode.Stretch if c == column else QHeaderView.ResizeMode.ResizeToContents
        header.setSectionResizeMode(c, mode)


def fill_combo(
    combo: QComboBox, names: dict[str, str], tips: dict[str, str] | None = None, current: str | None = None
) -> QComboBox:
    """Fill ``combo`` with the words of ``names`` (gui.words); each item's data is the engine's name (read it
    with ``currentData()``), ``tips`` its tooltip. Selects ``current`` when given."""
    for name, text in names.items():
        combo.addItem(text, name)
        if tips and name in tips:
            combo.setItemData(combo.count() - 1, tips[name], Qt.ItemDataRole.ToolTipRole)
    if current is not None:
        combo.setCurrentIndex(max(0, combo.findData(current)))
    return combo


class VerticalScrollArea(QScrollArea):
    """Scrolls its widget up and down only, and is always as wide as the widget needs (a plain scroll area
    without a horizontal bar would cut the widget's right side off)."""

    def __init__(self, widget: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidget(widget)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        widget.installEventFilter(self)

    def eventFilter(self, watched: Any, event: Any) -> bool:
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()  # the widget's needs changed: so do ours
        return super().eventFilter(watched, event)

    def _width(self, inner: QSize) -> int:
        return inner.width() + self.verticalScrollBar().sizeHint().width() + 2 * self.frameWidth()

    def minimumSizeHint(self) -> QSize:
        widget = self.widget()
        inner = widget.minimumSizeHint() if widget is not None else QSize()
        return QSize(self._width(inner), min(inner.height(), 160))

    def sizeHint(self) -> QSize:
        widget = self.widget()
        inner = widget.sizeHint() if widget is not None else QSize()
        return QSize(self._width(inner), inner.height())


class Card(QFrame):
    """A framed panel with a bold title, for the question, the candidates and the final answer."""

    def __init__(self, title: str = "", parent: QWidget | None = None, name: str = "") -> None:
        super().__init__(parent)
        if name:
            self.setObjectName(name)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setProperty("card", True)
        self.title = QLabel(title, self)
        self.title.setObjectName(f"{name}Title" if name else "cardTitle")
        self.title.setWordWrap(True)
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.title.setFont(font)
        self.body = QVBoxLayout(self)
        self.body.setContentsMargins(14, 12, 14, 12)
        self.body.setSpacing(8)
        self.body.addWidget(self.title)


def press_if_shown(button: QAbstractButton) -> None:
    """A key's press of ``button``: only while it is shown and enabled (a hidden button's key does nothing)."""
    if button.isVisible() and button.isEnabled():
        button.click()


def preference_keys(
    left: QAbstractButton, right: QAbstractButton, tie: QAbstractButton
) -> list[tuple[str, QAbstractButton]]:
    """The keys of a pair of answers, the same on the Compare and the Summarize pages: L or Left, R or Right,
    E or = (equally good)."""
    return [("L", left), ("Left", left), ("R", right), ("Right", right), ("E", tie), ("=", tie)]


def key_hint(text: str, parent: QWidget, name: str) -> QLabel:
    """A grey line that says a card's keys ("Keys: A accept · J reject · Tab to move")."""
    label = QLabel(text, parent)
    label.setObjectName(name)
    label.setStyleSheet("color: #666")
    return label


def window_shortcuts(
    owner: QWidget,
    keys: Iterable[tuple[str, QAbstractButton]],
    press: Callable[[QAbstractButton], None] = press_if_shown,
) -> list[QShortcut]:
    """Window-wide shortcuts that press the buttons: they act while ``owner`` is visible, wherever the focus is,
    except in a text field (a field claims the keys it can type)."""
    shortcuts = []
    for key, button in keys:
        shortcut = QShortcut(QKeySequence(key), owner, context=Qt.ShortcutContext.WindowShortcut)
        shortcut.activated.connect(lambda button=button: press(button))
        shortcuts.append(shortcut)
    return shortcuts


def page_placeholder(name: str, parent: QWidget) -> QWidget:
    """What holds the tab of a page made on first use (the Lab, Summarize) until the first domain is ready."""
    widget = QWidget(parent)
    widget.setObjectName(f"{name}Placeholder")
    label = QLabel(f"The {name.capitalize()} page opens once the domain is ready.", widget)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    QVBoxLayout(widget).addWidget(label)
    return widget


def replace_tab(tabs: QTabWidget, placeholder: QWidget, page: QWidget, title: str) -> None:
    """Put ``page`` in ``placeholder``'s tab, keeping it current if it was, without emitting a tab change."""
    index = tabs.indexOf(placeholder)
    current = tabs.currentIndex() == index
    blocked = tabs.blockSignals(True)
    try:
        tabs.removeTab(index)
        tabs.insertTab(index, page, title)
        if current:
            tabs.setCurrentIndex(index)
    finally:
        tabs.blockSignals(blocked)
    placeholder.deleteLater()
