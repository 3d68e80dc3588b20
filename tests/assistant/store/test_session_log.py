"""Summary sessions share the domain's session log with the conversations: kinds, filtering, the refusal to
resume one as the other, the migration of an older log, and what "Summarize these answers" takes."""

from __future__ import annotations

from dataclasses import replace

import pytest
import sqlite_utils

from assistant.app.session.session import Session, SessionConfig
from assistant.app.session.view import answers_to_summarize
from assistant.errors import SessionStateError
from assistant.store import KnowledgeBase, SessionLog
from assistant.store.schema import MIGRATIONS, SCHEMA_VERSION
from tests.support.tiny import TinyAgents

CONFIG = SessionConfig(shortlist_size=3, ranking_budget=2, ranking_threshold=0.999)


def test_kinds_are_listed_apart_and_a_summary_session_is_not_resumed_as_a_conversation():
    agents = TinyAgents()
    conversation = Session.start(agents, "red breast", CONFIG)
    with KnowledgeBase.open("tiny") as kb:
        log = SessionLog(kb)
        summary_id = log.create("docs: a.txt", {"topic": {}}, kind="summary")
        log.append(summary_id, "compare", {"left": 0, "right": 1, "preferred": "left"}, "active", None)
        assert [s.id for s in log.list()] == [conversation.id]  # the History page lists conversations only
        assert [(s.id, s.kind, s.entries) for s in log.list(kind="summary")] == [(summary_id, "summary", 1)]
        assert {s.kind for s in log.list(kind=None)} == {"clarify", "summary"}
        assert log.record(summary_id).kind == "summary"
        with pytest.raises(ValueError):
            log.create("x", {}, kind="poem")
    with pytest.raises(SessionStateError, match="clarify summarize --domain tiny --resume"):
        Session.resume(agents, summary_id)


def test_an_older_log_gets_the_kind_column_and_keeps_its_conversations(tmp_path):
    path = tmp_path / "old.db"
    db = sqlite_utils.Database(path)
    db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL, applied_at TEXT NOT NULL)")
    for version in (1, 2):
        MIGRATIONS[version](db)
        db.execute("INSERT INTO schema_version VALUES (?, 'then')", [version])
    db.execute("INSERT INTO sessions (query, status, created_at, updated_at) VALUES ('old', 'finished', 'a', 'a')")
    db.conn.commit()
    db.close()
    with KnowledgeBase(path) as kb:
        assert kb.schema_version == SCHEMA_VERSION
        [old] = SessionLog(kb).list()
        assert (old.query, old.kind) == ("old", "clarify")
    assert (tmp_path / "old.db.bak-v2").is_file()


def test_summarize_these_answers_takes_the_proposed_faq_answers():
    agents = TinyAgents(name="tinyfaq")
    answers = ("Feed it seeds. Robins like worms too.", "Put out a bird bath. Keep it clean.")
    labels = [replace(lab, text=f"How do I help a {lab.name}?", answers=answers) for lab in agents.domain.labels]
    agents.domain = replace(agents.domain, labels=labels)
    session = Session.start(agents, "red breast", CONFIG)
    assert answers_to_summarize(session) is None  # nothing proposed while asking
    while session.phase == "clarifying":
        session.answer(0)
    while session.phase == "comparing":
        session.prefer("left")
    found = answers_to_summarize(session)
    assert found.question == f"How do I help a {session.proposed.label_name}?" and found.query == "red breast"
    assert found.answers == answers
    single = replace(agents.domain, labels=[replace(lab, answers=answers[:1]) for lab in labels])
    agents.domain = single
    assert answers_to_summarize(Session.start(agents, "red breast", CONFIG)) is None
