"""Which domains there are, their figures and their saved sessions: what `clarify domain list`, `domain stats`
and `clarify sessions` print, without loading a model (issue 33). ``assistant.app.desk.domains`` and
``assistant.app.conversation.session_records`` re-export them beside the jobs that use models."""

from __future__ import annotations

from dataclasses import dataclass

from assistant.store import KnowledgeBase, SessionLog, SessionSummary, built_domains
from crowdsourcing.adapters import BUNDLED_DOMAINS


@dataclass(frozen=True)
class DomainEntry:
    name: str
    description: str
    built: bool


def available_domains() -> list[DomainEntry]:
    """Bundled domains first (in their usual order), then other built or imported ones."""
    built = set(built_domains())
    entries = [DomainEntry(name, text, name in built) for name, text in BUNDLED_DOMAINS.items()]
    entries += [DomainEntry(name, "built or imported domain", True) for name in sorted(built - set(BUNDLED_DOMAINS))]
    return entries


def domain_stats(name: str) -> dict:
    """The figures `clarify domain stats` prints (labels, questions by kind, queries by split, ...)."""
    with KnowledgeBase.open(name) as kb:
        return kb.stats()


def list_sessions(domain: str, status: str | None = None) -> list[SessionSummary]:
    """The saved sessions of ``domain``, newest first (optionally only one status)."""
    with KnowledgeBase.open(domain) as kb:
        return SessionLog(kb).list(status)
