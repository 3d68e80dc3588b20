"""assistant.store.connection: an answer given while another program holds the write lock (a running import does) waits for
it and says so, instead of failing with 'database is locked'."""

from __future__ import annotations

import os

import pytest

from assistant import paths
from assistant.app.session.session import Session, SessionConfig
from assistant.errors import StoreBusyError
from assistant.store import KnowledgeBase, connection
from benchmarks.reliability.environment import write_lock_held
from tests.support.tiny import TinyAgents

pytestmark = pytest.mark.reliability

CONFIG = SessionConfig(shortlist_size=3, ranking_budget=2, ranking_threshold=0.999)


@pytest.fixture
def agents():
    return TinyAgents(turns=3)


def test_an_answer_waits_for_another_writer_and_says_so(agents):
    notes: list[str] = []
    kb = KnowledgeBase.open("tiny", on_busy=notes.append)
    session = Session.start(agents, "red breast", CONFIG, kb)
    with write_lock_held(paths.domain_db_path("tiny"), seconds=2.0):
        session.answer(0)  # before: sqlite3.OperationalError: database is locked
    assert notes == [connection.BUSY_MESSAGE]
    assert notes[0] == "the knowledge base is busy (another program is writing to it); retrying"
    with KnowledgeBase.open("tiny") as other:
        kinds = [entry.kind for entry in Session.resume(agents, session.id, other).transcript()]
    assert kinds[:2] == ["query", "answer"]


def test_the_busy_note_says_what_is_running(agents):
    """Issue 41: it always said "(an import is running)"; a program holding the domain's lock says what it does."""
    from assistant.app.lifecycle.model_sets import domain_lock
    from assistant.progress import run_job

    notes: list[str] = []
    session = Session.start(agents, "red breast", CONFIG, KnowledgeBase.open("tiny", on_busy=notes.append))
    release = run_job(domain_lock("tiny", "updating"))
    try:
        with write_lock_held(paths.domain_db_path("tiny"), seconds=2.0):
            session.answer(0)
    finally:
        release()
    assert notes == [f"the knowledge base is busy (process {os.getpid()} is updating tiny); retrying"]


@pytest.mark.slow
def test_a_writer_that_never_lets_go_gives_a_clear_error(agents, monkeypatch):
    monkeypatch.setattr(connection, "WRITE_WAIT_SECONDS", 0.5)
    session = Session.start(agents, "red breast", CONFIG)
    with write_lock_held(paths.domain_db_path("tiny"), seconds=3.0), pytest.raises(StoreBusyError) as caught:
        session.answer(0)
    assert "busy" in str(caught.value) and "try again" in str(caught.value)


def test_two_sessions_answer_at_once_without_failing(agents):
    """Two sessions of one domain writing turn after turn in two threads (two connections)."""
    import threading

    errors: list[BaseException] = []

    def run(query: str) -> None:
        try:
            with KnowledgeBase.open("tiny") as kb:
                for _ in range(5):
                    session = Session.start(agents, query, CONFIG, kb)
                    while session.phase == "clarifying":
                        session.answer(0)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(q,)) for q in ("red breast", "black bird")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    with KnowledgeBase.open("tiny") as kb:
        assert len(Session.saved(kb)) == 10


def test_a_checked_file_is_checked_again_in_a_new_process_only_once_it_changed(tmp_path, monkeypatch):
    import os
    import sqlite3

    from assistant.errors import StoreError
    from tests.assistant.store.test_knowledge_base import damage_pages

    monkeypatch.setattr(connection, "SETTLED_NS", 0)  # the file's last write counts as settled at once
    path = tmp_path / "desk.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (x)")
        conn.executemany("INSERT INTO t VALUES (?)", [(str(i) * 50,) for i in range(2000)])
    connection.open_database(path, "desk").close()  # checked: its stamp kept beside it
    stamp = path.stat()
    assert connection._checked_path(path).exists()

    damage_pages(path)  # same size; the new mtime tells a new process to check again
    monkeypatch.setattr(connection, "_checked", {})  # a new process
    with pytest.raises(StoreError, match="is damaged"):
        connection.open_database(path, "desk")
    assert not connection._checked_path(path).exists()

    # the shortcut is the stamp alone: a file with the checked stamp back is not read again (what saves a large
    # FAQ's `clarify ask` its quick_check of hundreds of MB)
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    connection._remember_checked(path, connection._stamp(path))
    monkeypatch.setattr(connection, "_checked", {})
    connection.open_database(path, "desk").close()
