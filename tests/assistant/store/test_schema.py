"""Schema migrations (assistant.store.schema): schema 4 on top of schema 3 (sessions.kind): a version-3 file keeps its sessions (with their kind)
and turns, and gains the out-of-scope status and the table of queries no label answers; a version-2 file
migrates all the way."""

from __future__ import annotations

import sqlite3

import pytest
import sqlite_utils

from assistant.store import KnowledgeBase, SessionLog
from assistant.store.schema import MIGRATIONS, SCHEMA_VERSION


def _old_file(path, version: int) -> None:
    db = sqlite_utils.Database(path)
    db.execute("PRAGMA foreign_keys = ON")
    db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL, applied_at TEXT NOT NULL)")
    for v in range(1, version + 1):
        MIGRATIONS[v](db)
        db.execute("INSERT INTO schema_version VALUES (?, 'then')", [v])
    db.execute(
        "INSERT INTO sessions (id, query, status, created_at, updated_at, final_label, config) "
        "VALUES (7, 'can''t log in', 'failed', 't0', 't1', NULL, '{}')"
    )
    if version >= 3:
        db.execute(
            "INSERT INTO sessions (id, query, status, created_at, updated_at, config, kind) "
            "VALUES (8, 'docs: a.txt', 'active', 't0', 't1', '{}', 'summary')"
        )
    db.execute("INSERT INTO turns VALUES (1, 7, 0, 'query', '{\"text\": \"x\"}', 't0')")
    db.conn.commit()
    db.close()


def _check_out_of_scope_schema(kb: KnowledgeBase) -> None:
    assert kb.schema_version == SCHEMA_VERSION >= 4  # later migrations keep what schema 4 made
    assert list(kb.db.execute("SELECT session_id, kind FROM turns")) == [(7, "query")]
    kb.db.execute("UPDATE sessions SET status = 'out_of_scope' WHERE id = 7")
    with pytest.raises(sqlite3.IntegrityError):
        kb.db.execute("UPDATE sessions SET status = 'lost' WHERE id = 7")
    kb.replace_out_of_scope_queries([("a show on broadway", "test")], source="bundled")
    assert list(kb.db.execute("SELECT text, split FROM out_of_scope_queries")) == [("a show on broadway", "test")]
    kb.db.execute("DELETE FROM sessions WHERE id = 7")  # the cascade still holds
    assert kb.db.execute("SELECT COUNT(*) FROM turns").fetchone() == (0,)


def test_a_version_3_file_migrates_keeping_its_sessions_and_their_kind(tmp_path):
    path = tmp_path / "old.db"
    _old_file(path, 3)
    with KnowledgeBase(path) as kb:
        rows = list(kb.db.execute("SELECT id, status, kind FROM sessions ORDER BY id"))
        assert rows == [(7, "failed", "clarify"), (8, "active", "summary")]
        assert [s.id for s in SessionLog(kb).list(kind="summary")] == [8]
        new = SessionLog(kb).create("new", {})  # the kind column keeps its default
        assert SessionLog(kb).record(new).kind == "clarify"
        _check_out_of_scope_schema(kb)
    assert (tmp_path / "old.db.bak-v3").exists()


def test_a_version_2_file_migrates_all_the_way(tmp_path):
    path = tmp_path / "old.db"
    _old_file(path, 2)
    with KnowledgeBase(path) as kb:
        assert list(kb.db.execute("SELECT id, status, kind FROM sessions")) == [(7, "failed", "clarify")]
        _check_out_of_scope_schema(kb)
    assert (tmp_path / "old.db.bak-v2").exists()
