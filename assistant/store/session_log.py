"""The session log: tables ``sessions`` (one row per session) and ``turns`` (one row per action).

A session's ``kind`` says what it is: 'clarify' (the conversation: questions, comparisons, answer), 'summary'
(comparing candidate summaries) or 'sentences' (a summary built sentence by sentence); each kind is resumed
by its own code, which replays the entries.

The log is append-only: an undo is an entry too, so the transcript keeps what really happened. Every entry
is written in its own transaction together with the session's status, so that a crash loses at most the
action in progress (``assistant.app.session`` replays the entries to resume a session).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from assistant.errors import StoreError
from assistant.store.knowledge_base import KnowledgeBase, utc_now


class DamagedSessionError(StoreError):
    """A stored session's configuration or one of its entries is not the JSON object Clarify wrote (the file
    was edited or damaged): that session cannot be replayed; the others are unaffected."""


def _decoded(text: object, session_id: int, what: str) -> dict:
    """The JSON object ``text`` of a session row; DamagedSessionError naming the session and the entry."""
    try:
        value = json.loads(text) if isinstance(text, str | bytes) else None
    except (ValueError, RecursionError):  # JSONDecodeError, UnicodeDecodeError, integers over 4,300 digits
        value = None
    if not isinstance(value, dict):
        raise DamagedSessionError(
            f"session {session_id} is damaged: its {what} is not the JSON object Clarify wrote, so it cannot be "
            "replayed; start a new session (the other sessions are unaffected)"
        )
    return value


@dataclass(frozen=True)
class SessionSummary:
    """One row of the session list."""

    id: int
    query: str
    status: str
    created_at: str
    updated_at: str
    final_label: str | None
    turns: int
    kind: str = "clarify"


@dataclass(frozen=True)
class SessionRecord:
    """A stored session's opening: its query and its configuration (as saved)."""

    id: int
    query: str
    config: dict
    kind: str = "clarify"


SESSION_KINDS = ("clarify", "summary", "sentences")


class SessionLog:
    """Reads and appends the session log of one knowledge base."""

    def __init__(self, kb: KnowledgeBase) -> None:
        self.kb = kb

    def create(self, query: str, config: dict, kind: str = "clarify") -> int:
        """A new active session of ``kind`` (see SESSION_KINDS); returns its id."""
        if kind not in SESSION_KINDS:
            raise ValueError(f"unknown session kind {kind!r}: use one of {', '.join(SESSION_KINDS)}")
        now = utc_now()
        with self.kb.transaction():
            cursor = self.kb.db.execute(
                "INSERT INTO sessions (query, status, created_at, updated_at, config, kind) "
                "VALUES (?, 'active', ?, ?, ?, ?)",
                [query, now, now, json.dumps(config), kind],
            )
            return int(cursor.lastrowid)

    def record(self, session_id: int) -> SessionRecord | None:
        row = self.kb.db.execute("SELECT query, config, kind FROM sessions WHERE id = ?", [session_id]).fetchone()
        if row is None:
            return None
        return SessionRecord(session_id, row[0], _decoded(row[1], session_id, "settings"), row[2])

    def entries(self, session_id: int, skip_kinds: tuple[str, ...] = ()) -> list[tuple[str, dict]]:
        """(kind, payload) of every entry of a session, in order (DamagedSessionError if one is not JSON)."""
        rows = self.kb.db.execute(
            "SELECT position, kind, payload FROM turns WHERE session_id = ? ORDER BY position", [session_id]
        ).fetchall()
        return [
            (kind, _decoded(payload, session_id, f"entry {position + 1} ({kind})"))
            for position, kind, payload in rows
            if kind not in skip_kinds
        ]

    def transcript(self, session_id: int) -> list[dict]:
        """Every entry as a dict: its payload plus ``position``, ``kind`` and ``at`` (the time it was written)."""
        rows = self.kb.db.execute(
            "SELECT position, kind, payload, created_at FROM turns WHERE session_id = ? ORDER BY position",
            [session_id],
        )
        return [
            {**_decoded(payload, session_id, f"entry {p + 1} ({k})"), "position": p, "kind": k, "at": at}
            for p, k, payload, at in rows
        ]

    def append(self, session_id: int, kind: str, payload: dict, status: str, final_label: str | None) -> None:
        """Append one entry and update the session's status and final label, in one transaction."""
        now = utc_now()
        with self.kb.transaction():
            position = self.kb.db.execute(
                "SELECT COALESCE(MAX(position) + 1, 0) FROM turns WHERE session_id = ?", [session_id]
            ).fetchone()[0]
            self.kb.db.execute(
                "INSERT INTO turns (session_id, position, kind, payload, created_at) VALUES (?, ?, ?, ?, ?)",
                [session_id, position, kind, json.dumps(payload), now],
            )
            self.kb.db.execute(
                "UPDATE sessions SET status = ?, updated_at = ?, final_label = ? WHERE id = ?",
                [status, now, final_label, session_id],
            )

    def list(self, status: str | None = None, kind: str | None = "clarify") -> list[SessionSummary]:
        """Past sessions of ``kind`` (None: every kind), newest first (optionally only one status, e.g.
        'active' to resume)."""
        sql = """SELECT s.id, s.query, s.status, s.created_at, s.updated_at, s.final_label,
                        (SELECT COUNT(*) FROM turns t WHERE t.session_id = s.id), s.kind
                 FROM sessions s"""
        where, params = [], []
        if status is not None:
            where.append("s.status = ?")
            params.append(status)
        if kind is not None:
            where.append("s.kind = ?")
            params.append(kind)
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY s.updated_at DESC, s.id DESC"
        return [SessionSummary(*row) for row in self.kb.db.execute(sql, params)]
