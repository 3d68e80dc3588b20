"""Which domains there are and their figures: what `clarify domain list` and `domain stats` print, without
loading a model (issue 33). ``assistant.app.desk.domains`` re-exports them beside the jobs that use models;
the saved sessions are the session wing's (``assistant.app.session.list_sessions``)."""

from __future__ import annotations

from dataclasses import dataclass

from assistant.sources.adapters import BUNDLED_DOMAINS
from assistant.store import KnowledgeBase, built_domains


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
