"""A live conversation: the Session a person talks to, its state, its log's events, the view every face renders
and the comparisons; it needs only the DomainModels Protocol, never the model registry.

The face holds what reads the saved conversations without a session: ``list_sessions``.
"""

from __future__ import annotations

from assistant.store import KnowledgeBase, SessionLog, SessionSummary


def list_sessions(domain: str, status: str | None = None) -> list[SessionSummary]:
    """The saved sessions of ``domain``, newest first (optionally only one status)."""
    with KnowledgeBase.open(domain) as kb:
        return SessionLog(kb).list(status)
