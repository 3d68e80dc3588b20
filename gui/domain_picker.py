"""The toolbar's domain picker: every bundled and built domain, those not built yet marked as such."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QWidget

from assistant.app.desk.listing import DomainEntry
from gui.words import BUNDLED_DOMAINS


class DomainPicker(QComboBox):
    """A combo box of domain names (item data = the name); ``select`` never emits ``activated``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("domainPicker")
        self.setAccessibleName("Domain")
        self.setToolTip("The knowledge base to ask (first use prepares it)")
        self.setMinimumWidth(220)

    def fill(self, entries: Iterable[DomainEntry], also: Iterable[str] = (), current: str | None = None) -> None:
        """Show ``entries`` (and the names in ``also`` that are not among them), keeping ``current`` selected."""
        self.blockSignals(True)
        self.clear()
        for entry in sorted(entries, key=lambda e: e.name):  # in order, whatever order the folder lists them in
            self.addItem(entry.name if entry.built else f"{entry.name} (not built yet)", entry.name)
            tip = BUNDLED_DOMAINS.get(entry.name, entry.description)  # a desk's own: its title
            self.setItemData(self.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        for name in sorted(also):
            if self.findData(name) < 0:
                self.addItem(name, name)
        self.blockSignals(False)
        if current:
            self.select(current)

    def select(self, name: str) -> None:
        """Show ``name`` as the current domain (added if missing), without emitting signals."""
        index = self.findData(name)
        if index < 0:
            self.addItem(name, name)
            index = self.count() - 1
        self.blockSignals(True)
        self.setCurrentIndex(index)
        self.blockSignals(False)
