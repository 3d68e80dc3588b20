"""The session log: tables ``sessions`` (one row per session) and ``turns`` (one row per log entry).

A session's ``kind`` (``SessionKind``) says what it is: a conversation (questions, comparisons, answer), the
comparison of candidate summaries, or a summary built sentence by sentence; each kind is resumed by its own
code, which replays the entries. The entries of a conversation are ``EntryKind``s.

The log is append-only: an undo is an entry too, so the transcript keeps what really happened. The entries
of one action are written in one transaction together with the session's status, so that a crash loses at
most the action in progress. Each append says where this program expects the log to end (``expected``): when
another program appended in the meantime, nothing is written and ``SessionChangedError`` says so, so two
programs on one session never write contradictory entries.
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from assistant.errors import SessionChangedError, StoreError
from assistant.store.knowledge_base import KnowledgeBase, utc_now


class SessionKind(StrEnum):
    """What a logged session is."""

    CLARIFY = "clarify"
    SUMMARY = "summary"
    SENTENCES = "sentences"


class SessionStatus(StrEnum):
    """A logged session's status: going on, ended with an accepted answer, ended without one, or ended with
    "nothing here fits"."""

    ACTIVE = "active"
    FINISHED = "finished"
    FAILED = "failed"
    OUT_OF_SCOPE = "out_of_scope"
    ABANDONED = "abandoned"  # allowed by the schema's CHECK since its first version; nothing writes it now

    @property
    def words(self) -> str:
        """The status as a person reads it (History, `clarify sessions`)."""
        return _STATUS_WORDS[self]


_STATUS_WORDS = {
    SessionStatus.ACTIVE: "not finished",
    SessionStatus.FINISHED: "answered",
    SessionStatus.FAILED: "no answer",
    SessionStatus.OUT_OF_SCOPE: "nothing fits",
    SessionStatus.ABANDONED: "abandoned",
}


class EntryKind(StrEnum):
    """The entries of a conversation's log: the person's actions and the session's own decisions
    (``assistant.app.session.session``). Older logs' names are read as today's (``_missing_``)."""

    QUERY = "query"
    ANSWER = "answer"
    WORDS = "words"
    SKIP = "skip"
    STOP = "stop"
    MORE = "more"
    BACK = "back"
    COMPARE = "compare"
    DECIDED = "decided"
    DONE = "done"
    ACCEPT = "accept"
    REJECT = "reject"
    CHOOSE = "choose"
    NOTHING_LEFT = "nothing_left"
    GIVE_UP = "give_up"
    OUT_OF_SCOPE = "out_of_scope"
    SHOW_CLOSEST = "show_closest"
    HAND_OFF = "hand_off"
    UNDO = "undo"

    @classmethod
    def _missing_(cls, value: object) -> EntryKind | None:
        return _LEGACY_ENTRY_KINDS.get(str(value))


# Entry kinds under their names before issue 24 (one word per idea): "exhausted" also named the ranker's stop.
_LEGACY_ENTRY_KINDS = {
    "exhausted": EntryKind.NOTHING_LEFT,
    "anyway": EntryKind.SHOW_CLOSEST,
    "handoff": EntryKind.HAND_OFF,
}


def entry_kind(kind: str, session_kind: str) -> str:
    """A logged entry's kind under today's name (conversations), as stored (other session kinds)."""
    if session_kind != SessionKind.CLARIFY:
        return kind
    try:
        return EntryKind(kind)
    except ValueError:
        return kind  # unknown: replaying it says so


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
    """One row of the session list; ``entries``: how many entries its log holds."""

    id: int
    query: str
    status: str
    created_at: str
    updated_at: str
    final_label: str | None
    entries: int
    kind: str = SessionKind.CLARIFY
    handed_on: bool = False  # ended by passing the question on to a person (a hand-off no undo took back)

    @property
    def status_words(self) -> str:
        """The status as a person reads it: a handed-on question is "handed on to a person", not "no answer"."""
        return "handed on to a person" if self.handed_on else SessionStatus(self.status).words


@dataclass(frozen=True)
class SessionRecord:
    """A stored session's opening: its query and its configuration (as saved)."""

    id: int
    query: str
    config: dict
    kind: str = SessionKind.CLARIFY


class SessionLog:
    """Reads and appends the session log of one knowledge base."""

    def __init__(self, kb: KnowledgeBase) -> None:
        self.kb = kb

    def create(
        self, query: str, config: dict, kind: str = SessionKind.CLARIFY, entries: Sequence[tuple[str, dict]] = ()
    ) -> int:
        """A new active session of ``kind`` (``SessionKind``) with its first ``entries``, in one transaction (a
        failed write leaves no session behind); returns its id."""
        try:
            kind = SessionKind(kind)
        except ValueError:
            raise ValueError(f"unknown session kind {kind!r}: use one of {', '.join(SessionKind)}") from None
        now = utc_now()
        with self.kb.transaction():
            cursor = self.kb.db.execute(
                "INSERT INTO sessions (query, status, created_at, updated_at, config, kind) VALUES (?, ?, ?, ?, ?, ?)",
                [query, SessionStatus.ACTIVE, now, now, json.dumps(config), kind],
            )
            assert cursor.lastrowid is not None  # an INSERT's cursor has its row's id
            session_id = int(cursor.lastrowid)
            self._insert(session_id, 0, entries, now)
        return session_id

    def record(self, session_id: int) -> SessionRecord | None:
        row = self.kb.db.execute("SELECT query, config, kind FROM sessions WHERE id = ?", [session_id]).fetchone()
        if row is None:
            return None
        return SessionRecord(session_id, row[0], _decoded(row[1], session_id, "settings"), row[2])

    def entries(self, session_id: int, skip_kinds: tuple[str, ...] = ()) -> list[tuple[str, dict]]:
        """(kind, payload) of every entry of a session, in order (conversations: kinds by today's names)."""
        return [(kind, payload) for kind, payload, _ in self._rows(session_id) if kind not in skip_kinds]

    def length(self, session_id: int) -> int:
        """How many entries the session's log holds."""
        row = self.kb.db.execute("SELECT COUNT(*) FROM turns WHERE session_id = ?", [session_id]).fetchone()
        return int(row[0])

    def transcript(self, session_id: int) -> list[dict]:
        """Every entry as a dict: its payload plus ``position``, ``kind`` and ``at`` (the time it was written)."""
        return [
            {**payload, "position": position, "kind": kind, "at": at}
            for position, kind, payload, at in self.timed_entries(session_id)
        ]

    def timed_entries(self, session_id: int) -> list[tuple[int, str, dict, str]]:
        """(position, kind, payload, time written) of every entry, in order (conversations: kinds by today's names)."""
        session_kind = self._kind(session_id)
        rows = self.kb.db.execute(
            "SELECT position, kind, payload, created_at FROM turns WHERE session_id = ? ORDER BY position",
            [session_id],
        )
        return [
            (p, entry_kind(k, session_kind), _decoded(payload, session_id, f"entry {p + 1} ({k})"), at)
            for p, k, payload, at in rows
        ]

    def append(self, session_id: int, kind: str, payload: dict, status: str, final_label: str | None) -> None:
        """Append one entry wherever the log ends now (sessions with one writer by design: summaries)."""
        self.append_entries(session_id, [(kind, payload)], status, final_label)

    def append_entries(
        self,
        session_id: int,
        entries: Sequence[tuple[str, dict]],
        status: str,
        final_label: str | None,
        expected: int | None = None,
    ) -> int:
        """Append ``entries`` and update the session's status and final label, in one transaction; returns the
        log's new length. ``expected``: the length this program last saw; if the log has another length now
        (another program appended), nothing is written and ``SessionChangedError`` is raised."""
        now = utc_now()
        with self.kb.transaction():
            position = self.kb.db.execute(
                "SELECT COALESCE(MAX(position) + 1, 0) FROM turns WHERE session_id = ?", [session_id]
            ).fetchone()[0]
            if expected is not None and position != expected:
                raise SessionChangedError(
                    f"session {session_id} changed in another window or terminal ({position - expected:+d} entries "
                    "since this one read it): nothing was written"
                )
            self._insert(session_id, position, entries, now)
            self.kb.db.execute(
                "UPDATE sessions SET status = ?, updated_at = ?, final_label = ? WHERE id = ?",
                [str(status), now, final_label, session_id],
            )
        return int(position) + len(entries)

    def list(self, status: str | None = None, kind: str | None = SessionKind.CLARIFY) -> list[SessionSummary]:
        """Past sessions of ``kind`` (None: every kind), newest first (optionally only one status, e.g.
        'active' to resume)."""
        sql = """SELECT s.id, s.query, s.status, s.created_at, s.updated_at, s.final_label,
                        (SELECT COUNT(*) FROM turns t WHERE t.session_id = s.id), s.kind,
                        EXISTS (SELECT 1 FROM turns h WHERE h.session_id = s.id AND h.kind IN ('hand_off', 'handoff')
                                AND NOT EXISTS (SELECT 1 FROM turns u WHERE u.session_id = s.id
                                                AND u.kind = 'undo' AND u.position > h.position))
                 FROM sessions s"""
        where, params = [], []
        if status is not None:
            where.append("s.status = ?")
            params.append(str(status))
        if kind is not None:
            where.append("s.kind = ?")
            params.append(str(kind))
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY s.updated_at DESC, s.id DESC"
        return [
            SessionSummary(id_, query, status, created, updated, final, entries, kind, bool(handed))
            for id_, query, status, created, updated, final, entries, kind, handed in self.kb.db.execute(sql, params)
        ]

    def _insert(self, session_id: int, position: int, entries: Sequence[tuple[str, dict]], now: str) -> None:
        self.kb.db.conn.executemany(
            "INSERT INTO turns (session_id, position, kind, payload, created_at) VALUES (?, ?, ?, ?, ?)",
            [
                [session_id, position + i, str(kind), json.dumps(payload), now]
                for i, (kind, payload) in enumerate(entries)
            ],
        )

    def _kind(self, session_id: int) -> str:
        row = self.kb.db.execute("SELECT kind FROM sessions WHERE id = ?", [session_id]).fetchone()
        return SessionKind.CLARIFY if row is None else row[0]

    def _rows(self, session_id: int) -> builtins.list[tuple[str, dict, int]]:  # builtins: ``list`` is a method here
        session_kind = self._kind(session_id)
        rows = self.kb.db.execute(
            "SELECT kind, payload, position FROM turns WHERE session_id = ? ORDER BY position", [session_id]
        ).fetchall()
        return [
            (entry_kind(kind, session_kind), _decoded(payload, session_id, f"entry {position + 1} ({kind})"), position)
            for kind, payload, position in rows
        ]
