"""The saved sessions of a domain, listed without loading a model: `clarify sessions` imports only this
(issue 33); ``assistant.app.session.session`` re-exports it as ``Session.list``'s source."""

from __future__ import annotations

from assistant.store import KnowledgeBase, SessionLog, SessionSummary


def list_sessions(domain: str, status: str | None = None) -> list[SessionSummary]:
    """The saved sessions of ``domain``, newest first (optionally only one status)."""
    with KnowledgeBase.open(domain) as kb:
        return SessionLog(kb).list(status)
