"""The answer buttons of a question: each shows its key (1-9, then 0 for the 10th) and wraps long text
instead of widening the window; more options than fit scroll.

With more than ten options (only ten digits), 0 answers the last one ("something else", "none of these":
the way out must always have a key) and the options between the 9th and the last have none: they are
clicked, or reached with Tab. Long options (an
answer-list question lists whole FAQ titles) get fewer columns, and every button wraps its text over as
many lines as its column needs, so no option makes the window wider than the screen.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QStyle,
    QStyleOptionButton,
    QStylePainter,
    QWidget,
)

OPTION_KEYS = "1234567890"  # the keys of the first ten options, in order
MIN_BUTTON_HEIGHT = 34
MAX_AREA_HEIGHT = 200  # beyond this the options scroll (about five rows)


def option_key(index: int, count: int) -> str | None:
    """The key that answers option ``index`` (0-based) of ``count``: 1-9, then 0 for the 10th, or with more
    than ten options 0 for the last one and none for those between."""
    if count > len(OPTION_KEYS) and index == count - 1:
        return OPTION_KEYS[-1]
    last = len(OPTION_KEYS) if count <= len(OPTION_KEYS) else len(OPTION_KEYS) - 1
    return OPTION_KEYS[index] if 0 <= index < min(last, count) else None


def option_columns(options: list[str] | tuple[str, ...]) -> int:
    """How many columns the buttons take: four for short values ("search", "yes"), fewer for long ones
    (whole FAQ titles), so that most options fit on one line."""
    longest = max((len(o) for o in options), default=0)
    if longest <= 22:
        return 4
    if longest <= 34:
        return 3
    if longest <= 60:
        return 2
    return 1


class OptionButton(QPushButton):
    """A push button whose text wraps, with its key shown before it. ``text()`` stays the option itself (what
    tests and screen readers read); a word-wrapping label draws it."""

    def __init__(self, option: str, key: str | None, parent: QWidget | None = None) -> None:
        super().__init__(option.replace("&", "&&"), parent)  # "&&": an "&" in an option is no mnemonic
        self.option = option
        self.key = key
        badge = f"<b style='color:#1f4e9c'>{key}</b>&nbsp;&nbsp;" if key is not None else ""
        self.label = QLabel(f"{badge}{escape(option)}", self)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setWordWrap(True)
        self.label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.label.setObjectName("optionLabel")
        self.content = QHBoxLayout(self)  # the button's layout, kept typed for the size hints below
        self.content.setContentsMargins(10, 4, 10, 4)
        self.content.addWidget(self.label)
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.setAccessibleName(f"Answer {option}")
        self.setToolTip(f"Answer “{option}”" + (f" (key {key})" if key is not None else ""))

    def sizeHint(self) -> QSize:
        hint = self.content.sizeHint()
        return QSize(hint.width(), max(MIN_BUTTON_HEIGHT, hint.height()))

    def minimumSizeHint(self) -> QSize:
        hint = self.content.minimumSize()
        return QSize(min(hint.width(), 120), max(MIN_BUTTON_HEIGHT, hint.height()))

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return max(MIN_BUTTON_HEIGHT, self.content.totalHeightForWidth(width))

    def paintEvent(self, event: QPaintEvent) -> None:
        """The button's frame only: the label draws the text."""
        option = QStyleOptionButton()
        self.initStyleOption(option)
        option.text = ""
        QStylePainter(self).drawControl(QStyle.ControlElement.CE_PushButton, option)


class OptionArea(QScrollArea):
    """The buttons in a grid that scrolls when they need more than ``MAX_AREA_HEIGHT``; as tall as its
    buttons otherwise."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("answerScroll")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.buttons_widget = QWidget(self)
        self.buttons_widget.setObjectName("answerButtons")
        self.buttons_widget.setAccessibleName("Answers")
        self.grid = QGridLayout(self.buttons_widget)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.setWidget(self.buttons_widget)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.buttons: list[OptionButton] = []
        self.columns = 1

    def set_options(
        self, options: list[str] | tuple[str, ...], make: Callable[[int, str], OptionButton]
    ) -> list[OptionButton]:
        """Replace the buttons: ``make(index, option)`` returns each new button."""
        for button in self.buttons:
            self.grid.removeWidget(button)
            button.setParent(None)
            button.deleteLater()
        columns = self.columns = option_columns(list(options))
        self.buttons = []
        for i, option in enumerate(options):
            button = make(i, option)
            self.grid.addWidget(button, i // columns, i % columns)
            button.show()
            self.buttons.append(button)
        for c in range(4):
            self.grid.setColumnStretch(c, 1 if c < columns else 0)
        self._fit()
        return self.buttons

    def _content_height(self, width: int) -> int:
        """The buttons' height at ``width``: each row as tall as its tallest (wrapped) button."""
        if not self.buttons:
            return 0
        columns = self.columns
        spacing = max(0, self.grid.verticalSpacing()), max(0, self.grid.horizontalSpacing())
        column_width = max(1, (width - (columns - 1) * spacing[1]) // columns)
        rows = [self.buttons[i : i + columns] for i in range(0, len(self.buttons), columns)]
        heights = [max(b.heightForWidth(column_width) for b in row) for row in rows]
        return sum(heights) + (len(rows) - 1) * spacing[0]

    def _fit(self) -> None:
        width = max(self.viewport().width(), 200)
        self.setFixedHeight(min(MAX_AREA_HEIGHT, max(0, self._content_height(width))))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()

    def sizeHint(self) -> QSize:
        return QSize(self.buttons_widget.sizeHint().width(), self.height())

    def minimumSizeHint(self) -> QSize:
        return QSize(200, self.height())
