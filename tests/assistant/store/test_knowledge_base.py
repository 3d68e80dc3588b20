"""assistant.store.knowledge_base and CLARIFY_HOME: a damaged knowledge base is refused (never read half, never written), and a
read-only or non-folder CLARIFY_HOME and a full disk give one-line errors with exit code 2."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from assistant import paths
from assistant.cli import main
from assistant.errors import StoreError
from assistant.store import KnowledgeBase
from benchmarks.reliability.environment import build_crowd_domain, dump
from crowdsourcing.importers import parse_file
from crowdsourcing.importing import apply_plan, plan_import

pytestmark = pytest.mark.reliability

GOOD_QUERIES = "label,text\ncard_arrival,where on earth is my card\n"


def cli(*args: str):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return result


def damage_pages(path: Path, pages=(2, 3, 4)) -> None:
    """Overwrite the start of some b-tree pages with garbage (what a bad disk or a torn copy leaves)."""
    page_size = int.from_bytes(path.read_bytes()[16:18], "big") or 65536
    with path.open("r+b") as handle:
        for page in pages:
            handle.seek((page - 1) * page_size)
            handle.write(bytes([0x0D, 0xFF, 0xFF, 0x00, 0x07]) + b"\xa5" * 200)


@pytest.fixture
def damaged_bank(tmp_path):
    build_crowd_domain("bank")
    db = paths.domain_db_path("bank")
    with sqlite3.connect(db) as conn:  # fold the write-ahead log into the file first
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    damage_pages(db)
    return db


def test_a_damaged_knowledge_base_is_refused_with_what_to_do(damaged_bank):
    with pytest.raises(StoreError) as caught:
        KnowledgeBase.open("bank")
    message = str(caught.value)
    assert "is damaged" in message and "clarify domain build bank" in message and "\n" not in message


@pytest.mark.parametrize(
    "args",
    [
        ("domain", "stats", "bank"),
        ("sessions", "bank"),
        ("export", "tasks", "--domain", "bank", "--out", "tasks.csv"),
        ("ask", "bank", "where is my card"),
        ("evaluate", "bank", "--episodes", "5"),
    ],
)
def test_commands_on_a_damaged_knowledge_base_exit_2_in_one_line(damaged_bank, tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    result = cli(*args)
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and "is damaged" in result.stderr


def test_an_import_never_writes_into_a_damaged_knowledge_base(damaged_bank, tmp_path):
    before = damaged_bank.read_bytes()
    (tmp_path / "queries.csv").write_text(GOOD_QUERIES)
    result = cli("import", "csv", tmp_path / "queries.csv", "--domain", "bank")
    assert result.exit_code == 2 and "is damaged" in result.stderr  # before: imported, exit 0
    assert damaged_bank.read_bytes() == before


def test_a_full_disk_is_a_clear_error_and_changes_nothing(tmp_path):
    build_crowd_domain("bank")
    before = dump("bank")
    path = tmp_path / "queries.csv"
    path.write_text("label,text\n" + "".join(f"card_arrival,query number {i} {'x' * 200}\n" for i in range(2000)))
    with KnowledgeBase.open("bank") as kb:
        pages = kb.db.execute("PRAGMA page_count").fetchone()[0]
        kb.db.execute(f"PRAGMA max_page_count = {pages + 2}")  # SQLite's own 'database or disk is full'
        plan = plan_import(parse_file(path, "csv"), kb)
        with pytest.raises(StoreError) as caught:
            apply_plan(kb, plan)
    assert "is full" in str(caught.value) and "nothing was written" in str(caught.value)
    assert dump("bank") == before


def test_clarify_home_that_is_a_file(tmp_path, monkeypatch):
    home = tmp_path / "not-a-folder"
    home.write_text("x")
    monkeypatch.setenv("CLARIFY_HOME", str(home))
    for args in (("domain", "list"), ("domain", "build", "faq"), ("sessions", "faq")):
        result = cli(*args)
        assert result.exit_code == 2 and "is a file, not a folder" in result.stderr, result.output
        assert result.stderr.count("\n") == 1


def test_clarify_home_below_a_file(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("x")
    monkeypatch.setenv("CLARIFY_HOME", str(tmp_path / "file" / "home"))
    result = cli("domain", "stats", "faq")
    assert result.exit_code == 2 and "CLARIFY_HOME" in result.stderr and result.stderr.count("\n") == 1


def make_read_only(folder: Path) -> bool:
    """Make ``folder`` unwritable, also for root (immutable: chattr +i); False if this machine cannot."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        return True
    return shutil.which("chattr") is not None and subprocess.run(["chattr", "+i", str(folder)]).returncode == 0


def make_writable(folder: Path) -> None:
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i", str(folder)], check=False)
    folder.chmod(0o755)


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX permissions")
def test_a_read_only_clarify_home(tmp_path, fresh_clarify_home):
    build_crowd_domain("bank")
    (tmp_path / "queries.csv").write_text(GOOD_QUERIES)
    folders = [fresh_clarify_home / "domains", fresh_clarify_home]
    getattr(paths, "_usable", set()).clear()  # a fresh process checks the folder again
    if not all(make_read_only(folder) for folder in folders):
        pytest.skip("cannot make a folder read-only here")
    try:
        for args in (("import", "csv", tmp_path / "queries.csv", "--domain", "bank"), ("sessions", "bank")):
            result = cli(*args)
            assert result.exit_code == 2, result.output
            assert "read-only" in result.stderr and result.stderr.count("\n") == 1
    finally:
        for folder in folders:
            make_writable(folder)
        getattr(paths, "_usable", set()).clear()  # a fresh process checks the folder again


def test_sqlite_errors_are_told_apart_by_their_code_not_their_words(tmp_path):
    from assistant.errors import StoreBusyError
    from assistant.store.connection import is_busy, store_error

    conn = sqlite3.connect(tmp_path / "x.db")
    with pytest.raises(sqlite3.OperationalError) as missing:
        conn.execute("SELECT * FROM locked_busy_table")  # 'no such table: locked_busy_table' is no lock
    assert not is_busy(missing.value) and not isinstance(store_error(missing.value, tmp_path, "x"), StoreBusyError)
    holder = sqlite3.connect(tmp_path / "x.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    waiter = sqlite3.connect(tmp_path / "x.db", timeout=0, isolation_level=None)
    with pytest.raises(sqlite3.OperationalError) as locked:
        waiter.execute("BEGIN IMMEDIATE")
    assert is_busy(locked.value) and isinstance(store_error(locked.value, tmp_path, "x"), StoreBusyError)
    for connection in (holder, waiter, conn):
        connection.close()
