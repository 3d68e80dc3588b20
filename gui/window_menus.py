"""The main window's actions, menus and toolbar, made once when the window is built (``gui.main_window``)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QLabel, QToolBar

from gui.domain_picker import DomainPicker
from gui.faq_actions import FaqActions
from gui.questions_dialog import questions_action

# The functions take the window as ``Any``: they read and set the MainWindow's attributes, and naming its class
# here would make the two modules import each other (tests/architecture forbids circles, TYPE_CHECKING too).
MainWindow = Any

PAGES = ("ask", "compare", "history", "lab", "summarize")


def _action(
    window: MainWindow,
    text: str,
    name: str,
    shortcut: QKeySequence | str | None,
    slot: Callable[[], Any],
    tip: str = "",
) -> QAction:
    action = QAction(text, window)
    action.setObjectName(name)
    if shortcut is not None:
        action.setShortcut(QKeySequence(shortcut))
    if tip:
        action.setStatusTip(tip)
        action.setToolTip(tip)
    action.triggered.connect(lambda _=False: slot())
    window.addAction(action)
    return action


def _standard_key(key: QKeySequence.StandardKey, fallback: str) -> QKeySequence | str:
    """The platform's key for ``key``, or ``fallback`` where the platform has none (X11 has no Preferences)."""
    sequence = QKeySequence(key)
    return sequence if not sequence.isEmpty() else fallback


def make_actions(window: MainWindow) -> None:
    """The window's actions (``window.new_action`` and the rest), each with its shortcut and tip."""
    keys = QKeySequence.StandardKey
    window.new_action = _action(
        window,
        "&New question",
        "newAction",
        QKeySequence(keys.New),
        window.new_question,
        "Start a new question (Ctrl+N)",
    )
    undo_tip = "Take back the last step: an answer, a comparison, a decision (Ctrl+Z)"
    window.undo_action = _action(window, "&Undo", "undoAction", QKeySequence(keys.Undo), window.undo, undo_tip)
    import_tip = (
        "Import example questions, entries or people's answers to Clarify's questions from a file (MTurk, "
        "Label Studio, CSV, TSV or .jsonl)"
    )
    window.import_action = _action(
        window, "&Import examples and answers…", "importAction", "Ctrl+I", window.open_import_wizard, import_tip
    )
    preferences = _standard_key(keys.Preferences, "Ctrl+,")
    window.settings_action = _action(
        window, "&Settings…", "settingsAction", preferences, window.open_settings, "Session settings"
    )
    quit_key = _standard_key(keys.Quit, "Ctrl+Q")
    window.quit_action = _action(window, "&Quit", "quitAction", quit_key, window.close, "Quit Clarify (Ctrl+Q)")
    help_key = _standard_key(keys.HelpContents, "F1")
    window.help_action = _action(window, "Clarify &help", "helpAction", help_key, window.show_help, "Help (F1)")
    window.about_action = _action(window, "&About Clarify", "aboutAction", None, window.show_about)
    window.page_actions = [
        _action(window, title, f"show{page.capitalize()}Action", f"Ctrl+{i + 1}", partial(window.show_page, page))
        for i, (page, title) in enumerate(zip(PAGES, ("&Ask", "&Compare", "&History", "&Lab", "&Summarize")))
    ]
    window.refresh_action = _action(window, "&Refresh domains", "refreshDomainsAction", None, window.refresh_domains)
    window.update_action = _action(
        window,
        "&Update the models",
        "updateModelsAction",
        None,
        lambda: window.domain and window.updater.start(window.domain),
        "Bring the models up to date with the data (in the background; the current ones keep answering)",
    )


def make_menus(window: MainWindow) -> None:
    """File, Edit, View and Help, made of the window's actions."""
    bar = window.menuBar()
    file_menu = bar.addMenu("&File")
    file_menu.addAction(window.new_action)
    file_menu.addAction(window.import_action)
    file_menu.addAction(window.refresh_action)
    file_menu.addAction(questions_action(window))
    file_menu.addAction(window.update_action)
    window.faq = FaqActions(window)  # New domain from my FAQ…, Inbox…, learning from use
    window.faq.install(file_menu, window.refresh_action)
    file_menu.addSeparator()
    file_menu.addAction(window.settings_action)
    file_menu.addSeparator()
    file_menu.addAction(window.quit_action)
    edit_menu = bar.addMenu("&Edit")
    edit_menu.addAction(window.undo_action)
    view_menu = bar.addMenu("&View")
    for action in window.page_actions:
        view_menu.addAction(action)
    help_menu = bar.addMenu("&Help")
    help_menu.addAction(window.help_action)
    help_menu.addAction(window.about_action)


def make_toolbar(window: MainWindow) -> None:
    """The toolbar: the domain picker (``window.domain_picker``) and the common actions."""
    toolbar = QToolBar("Main", window)
    toolbar.setObjectName("mainToolbar")
    toolbar.setMovable(False)
    label = QLabel(" D&omain: ", toolbar)
    window.domain_picker = DomainPicker(toolbar)
    window.domain_picker.activated.connect(window._picker_activated)
    label.setBuddy(window.domain_picker)
    toolbar.addWidget(label)
    toolbar.addWidget(window.domain_picker)
    toolbar.addSeparator()
    toolbar.addAction(window.new_action)
    toolbar.addAction(window.undo_action)
    toolbar.addSeparator()
    toolbar.addAction(window.import_action)
    toolbar.addAction(window.help_action)
    window.addToolBar(toolbar)
