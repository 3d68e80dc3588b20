"""The inbox: the questions Clarify could not answer, and what a person did with each (table ``inbox``).

An item is a conversation (``sessions``, kind 'clarify') that ended out of scope (status 'out_of_scope':
"I have no answer for that"; a hand-off is logged in such a session), or whose answers the person rejected
before giving up (status 'failed'). It stays open until a person resolves it: assigned to an existing label,
turned into a new label, or dismissed; the row in ``inbox`` records which, for the session.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from assistant.store.knowledge_base import KnowledgeBase, utc_now

INBOX_STATUSES = ("assigned", "new_entry", "dismissed")
# session status -> why it is in the inbox
REASONS = {"out_of_scope": "out of scope", "failed": "answers rejected"}


@dataclass(frozen=True)
class InboxItem:
    """One unanswered question: its session, query, why it is here ('out of scope', 'handed on', 'answers
    rejected'), when, the labels the conversation came closest to (or the person rejected) and, once
    resolved, what was done (``resolution`` 'assigned' / 'new_entry' / 'dismissed', ``label_key``)."""

    session_id: int
    query: str
    reason: str
    updated_at: str
    closest: tuple[str, ...] = ()
    note: str = ""
    resolution: str | None = None
    label_key: str | None = None


class Inbox:
    """Reads and resolves the inbox of one knowledge base."""

    def __init__(self, kb: KnowledgeBase) -> None:
        self.kb = kb

    def items(self, include_resolved: bool = False) -> list[InboxItem]:
        """Open items, newest first (with ``include_resolved`` also the resolved ones)."""
        rows = self.kb.db.execute(
            """SELECT s.id, s.query, s.status, s.updated_at, i.status, i.label_key FROM sessions s
               LEFT JOIN inbox i ON i.session_id = s.id
               WHERE s.kind = 'clarify' AND s.status IN ('out_of_scope', 'failed')
               ORDER BY s.updated_at DESC, s.id DESC"""
        ).fetchall()
        found = []
        for session_id, query, status, updated, resolution, label_key in rows:
            if resolution is not None and not include_resolved:
                continue
            reason, handed_note = REASONS[status], ""
            closest: list[str] = []
            notes: list[str] = []
            for kind, payload in self._entries(session_id):
                if kind in ("hand_off", "handoff"):  # "handoff": its name before issue 24
                    reason, closest = "handed on", [*closest, *payload.get("closest", [])]
                    handed_note = payload.get("note", "")
                elif kind == "reject" and payload.get("label"):
                    closest.append(payload["label"])
                    notes.append(payload.get("reason", ""))  # what the person said about the rejected answer
                elif kind == "undo" and reason == "handed on":
                    reason, handed_note = REASONS[status], ""
            note = "; ".join(n for n in dict.fromkeys([*notes, handed_note]) if n)
            found.append(
                InboxItem(
                    session_id,
                    query,
                    reason,
                    updated,
                    tuple(dict.fromkeys(closest)),
                    note,
                    resolution,
                    label_key,
                )
            )
        return found

    def _entries(self, session_id: int) -> list[tuple[str, dict]]:
        rows = self.kb.db.execute(
            "SELECT kind, payload FROM turns WHERE session_id = ? AND kind IN ('hand_off', 'handoff', 'reject', 'undo') "
            "ORDER BY position",
            [session_id],
        )
        return [(kind, json.loads(payload)) for kind, payload in rows]

    def resolve(self, session_ids: Iterable[int], status: str, label_key: str | None = None, note: str = "") -> int:
        """Mark sessions resolved (``status`` one of INBOX_STATUSES); returns how many rows were written."""
        if status not in INBOX_STATUSES:
            raise ValueError(f"unknown inbox status {status!r}: use one of {', '.join(INBOX_STATUSES)}")
        now = utc_now()
        ids = list(session_ids)
        with self.kb.transaction():
            self.kb.db.conn.executemany(
                """INSERT INTO inbox (session_id, status, label_key, note, resolved_at) VALUES (?, ?, ?, ?, ?)
                   ON CONFLICT(session_id) DO UPDATE SET status = excluded.status, label_key = excluded.label_key,
                   note = excluded.note, resolved_at = excluded.resolved_at""",
                [(i, status, label_key, note, now) for i in ids],
            )
        return len(ids)
