"""Schema 3 (issue 17): a version-2 file keeps its sessions and turns, and gains the out-of-scope status and
the table of queries no label answers."""

from __future__ import annotations

import sqlite3

import pytest
import sqlite_utils

from assistant.store import KnowledgeBase
from assistant.store.schema import MIGRATIONS


def test_a_version_2_file_migrates_keeping_its_sessions(tmp_path):
    path = tmp_path / "old.db"
    db = sqlite_utils.Database(path)
    db.execute("PRAGMA foreign_keys = ON")
    db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL, applied_at TEXT NOT NULL)")
    for version in (1, 2):
        MIGRATIONS[version](db)
        db.execute("INSERT INTO schema_version VALUES (?, 'then')", [version])
    db.execute("INSERT INTO sessions VALUES (7, 'can''t log in', 'failed', 't0', 't1', NULL, '{}')")
    db.execute("INSERT INTO turns VALUES (1, 7, 0, 'query', '{\"text\": \"x\"}', 't0')")
    db.conn.commit()
    db.close()
    with KnowledgeBase(path) as kb:
        assert kb.schema_version == 3
        assert list(kb.db.execute("SELECT id, status FROM sessions")) == [(7, "failed")]
        assert list(kb.db.execute("SELECT session_id, kind FROM turns")) == [(7, "query")]
        kb.db.execute("UPDATE sessions SET status = 'out_of_scope' WHERE id = 7")
        with pytest.raises(sqlite3.IntegrityError):
            kb.db.execute("UPDATE sessions SET status = 'lost' WHERE id = 7")
        kb.replace_out_of_scope_queries([("a show on broadway", "test")], source="bundled")
        assert list(kb.db.execute("SELECT text, split FROM out_of_scope_queries")) == [("a show on broadway", "test")]
        kb.db.execute("DELETE FROM sessions WHERE id = 7")  # the cascade still holds
        assert kb.db.execute("SELECT COUNT(*) FROM turns").fetchone() == (0,)
    assert (tmp_path / "old.db.bak-v2").exists()
