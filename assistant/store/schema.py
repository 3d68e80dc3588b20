"""The knowledge base's schema and its migrations.

Each migration takes the schema from version (n - 1) to n. Add new ones at the end; never edit old ones.
``KnowledgeBase`` backs the file up before migrating it.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

import sqlite_utils

SCHEMA_VERSION = 7


_SCHEMA_V1 = [
    """CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    )""",
    """CREATE TABLE labels (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        text TEXT NOT NULL DEFAULT '',
        position INTEGER NOT NULL,
        source TEXT NOT NULL DEFAULT ''
    )""",
    """CREATE TABLE label_answers (
        id INTEGER PRIMARY KEY,
        label_id INTEGER NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        text TEXT NOT NULL,
        UNIQUE (label_id, position)
    )""",
    """CREATE TABLE questions (
        id INTEGER PRIMARY KEY,
        tag TEXT NOT NULL UNIQUE,
        text TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('binary', 'choice')),
        group_name TEXT NOT NULL,
        options TEXT NOT NULL,
        induced INTEGER NOT NULL DEFAULT 0 CHECK (induced IN (0, 1)),
        position INTEGER NOT NULL,
        source TEXT NOT NULL DEFAULT ''
    )""",
    """CREATE TABLE imports (
        id INTEGER PRIMARY KEY,
        sha256 TEXT NOT NULL,
        kind TEXT NOT NULL,
        format TEXT NOT NULL,
        filename TEXT NOT NULL,
        imported_at TEXT NOT NULL,
        report TEXT NOT NULL DEFAULT '{}',
        UNIQUE (sha256, kind)
    )""",
    """CREATE TABLE annotations (
        id INTEGER PRIMARY KEY,
        label_id INTEGER NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
        question_id INTEGER NOT NULL REFERENCES questions(id) ON DELETE CASCADE,
        answer TEXT NOT NULL,
        count REAL NOT NULL CHECK (count >= 0),
        source TEXT NOT NULL,
        worker TEXT NOT NULL DEFAULT '',
        task TEXT NOT NULL DEFAULT '',
        import_id INTEGER REFERENCES imports(id) ON DELETE SET NULL,
        UNIQUE (label_id, question_id, answer, source, worker, task)
    )""",
    "CREATE INDEX annotations_question ON annotations (question_id)",
    """CREATE TABLE queries (
        id INTEGER PRIMARY KEY,
        label_id INTEGER NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
        text TEXT NOT NULL,
        split TEXT NOT NULL CHECK (split IN ('train', 'dev', 'test')),
        source TEXT NOT NULL,
        worker TEXT NOT NULL DEFAULT '',
        import_id INTEGER REFERENCES imports(id) ON DELETE SET NULL,
        UNIQUE (label_id, text)
    )""",
    """CREATE TABLE sessions (
        id INTEGER PRIMARY KEY,
        query TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('active', 'finished', 'failed', 'abandoned')),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        final_label TEXT,
        config TEXT NOT NULL DEFAULT '{}'
    )""",
    """CREATE TABLE turns (
        id INTEGER PRIMARY KEY,
        session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        kind TEXT NOT NULL,
        payload TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        UNIQUE (session_id, position)
    )""",
]


def _migrate_to_1(db: sqlite_utils.Database) -> None:
    for statement in _SCHEMA_V1:
        db.execute(statement)


def _migrate_to_2(db: sqlite_utils.Database) -> None:
    # What the simulated user answers, computed when a bundled domain is built from data the agent never
    # learns from (induced tags: all of a label's queries). The engine reads it; nothing else writes it.
    db.execute(
        """CREATE TABLE heldout_answers (
            question_id INTEGER NOT NULL REFERENCES questions(id) ON DELETE CASCADE,
            label_id INTEGER NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
            answer TEXT NOT NULL,
            probability REAL NOT NULL CHECK (probability >= 0 AND probability <= 1),
            PRIMARY KEY (question_id, label_id, answer)
        )"""
    )


def _migrate_to_3(db: sqlite_utils.Database) -> None:
    # The log holds other sessions than the clarifying conversation: 'summary' (comparing candidate
    # summaries) and 'sentences' (a summary built sentence by sentence). Existing rows are conversations.
    db.execute("ALTER TABLE sessions ADD COLUMN kind TEXT NOT NULL DEFAULT 'clarify'")


_SESSIONS_V4 = """CREATE TABLE sessions (
    id INTEGER PRIMARY KEY,
    query TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'finished', 'failed', 'abandoned', 'out_of_scope')),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    final_label TEXT,
    config TEXT NOT NULL DEFAULT '{}',
    kind TEXT NOT NULL DEFAULT 'clarify'
)"""
_SESSION_COLUMNS = "id, query, status, created_at, updated_at, final_label, config, kind"
_TURN_COLUMNS = "id, session_id, position, kind, payload, created_at"


def _migrate_to_4(db: sqlite_utils.Database) -> None:
    # Out of scope (issue 17): the queries of a domain that no label answers (CLINC150's oos splits), and a
    # session status saying "nothing here fits" that is not a failure. SQLite cannot change a CHECK in place:
    # sessions (with their kind, version 3) and turns are copied aside, dropped (turns first, so that no
    # cascade fires) and recreated, turns with their ON DELETE CASCADE.
    db.execute(
        """CREATE TABLE out_of_scope_queries (
            id INTEGER PRIMARY KEY,
            text TEXT NOT NULL UNIQUE,
            split TEXT NOT NULL CHECK (split IN ('train', 'dev', 'test')),
            source TEXT NOT NULL
        )"""
    )
    db.execute(f"CREATE TABLE sessions_v3_copy AS SELECT {_SESSION_COLUMNS} FROM sessions")
    db.execute(f"CREATE TABLE turns_v3_copy AS SELECT {_TURN_COLUMNS} FROM turns")
    db.execute("DROP TABLE turns")
    db.execute("DROP TABLE sessions")
    db.execute(_SESSIONS_V4)
    db.execute(_SCHEMA_V1[-1])  # turns, unchanged
    db.execute(f"INSERT INTO sessions ({_SESSION_COLUMNS}) SELECT {_SESSION_COLUMNS} FROM sessions_v3_copy")
    db.execute(f"INSERT INTO turns ({_TURN_COLUMNS}) SELECT {_TURN_COLUMNS} FROM turns_v3_copy")
    db.execute("DROP TABLE turns_v3_copy")
    db.execute("DROP TABLE sessions_v3_copy")


def _migrate_to_5(db: sqlite_utils.Database) -> None:
    # A desk's review of the questions (issue 26): a question hidden (never asked), its text reworded, its
    # options renamed ({stored option: shown option}). Keyed by tag, not by question id, so that a review
    # outlives rebuilds and imports that delete and re-create induced questions.
    db.execute(
        """CREATE TABLE question_reviews (
            tag TEXT PRIMARY KEY,
            hidden INTEGER NOT NULL DEFAULT 0 CHECK (hidden IN (0, 1)),
            text TEXT,
            options TEXT NOT NULL DEFAULT '{}',
            updated_at TEXT NOT NULL
        )"""
    )


def _migrate_to_6(db: sqlite_utils.Database) -> None:
    # The inbox (issue 25): what a person did with a question Clarify could not answer (a session that ended
    # out of scope, was handed on, or whose answers were rejected). A session without a row is still open;
    # 'assigned' gave it an existing label (``label_key``), 'new_entry' made a new one, 'dismissed' set it aside.
    db.execute(
        """CREATE TABLE inbox (
            session_id INTEGER PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
            status TEXT NOT NULL CHECK (status IN ('assigned', 'new_entry', 'dismissed')),
            label_key TEXT,
            note TEXT NOT NULL DEFAULT '',
            resolved_at TEXT NOT NULL
        )"""
    )


def _migrate_to_7(db: sqlite_utils.Database) -> None:
    # The domain's arrays stored as arrays (issue 42, assistant.store.arrays): this file's data identity (new
    # for each file, so that arrays of a file that was replaced are stale) and a revision that every write of a
    # table a Domain is read from moves on. The arrays of a file migrated here are written on its first read.
    db.execute(
        """CREATE TABLE domain_data (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            identity TEXT NOT NULL,
            revision INTEGER NOT NULL
        )"""
    )
    db.execute("INSERT INTO domain_data (id, identity, revision) VALUES (1, ?, 0)", [secrets.token_hex(8)])


MIGRATIONS: dict[int, Callable[[sqlite_utils.Database], None]] = {
    1: _migrate_to_1,
    2: _migrate_to_2,
    3: _migrate_to_3,
    4: _migrate_to_4,
    5: _migrate_to_5,
    6: _migrate_to_6,
    7: _migrate_to_7,
}
assert sorted(MIGRATIONS) == list(range(1, SCHEMA_VERSION + 1))
