"""Clarify's desktop app (PySide6): renders engine objects and sends them the user's actions.

The GUI holds no logic. A conversation is an ``assistant.app.session.session.Session`` living in its own worker
thread (``gui.controller``); long jobs (preparing a domain, training, evaluation, imports) are the engine's
Progress generators run by ``gui.workers`` with a progress display and Cancel. Nothing in ``assistant``,
``models`` or ``crowdsourcing`` imports this package.
"""

APP_NAME = "Clarify"
ORGANIZATION = "Clarify"
