"""Every file Clarify replaces goes through ``models.checkpoint.atomic_write``: the file and its folder are
flushed to disk, a failed write replaces nothing and leaves no temporary file behind."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import numpy as np
import pytest

import models.files
from assistant.errors import ConfigError
from assistant.store import KnowledgeBase
from assistant.text.embeddings import CachingSentenceEncoder
from crowdsourcing.export import write_csv
from models.checkpoint import write_npz_atomic
from models.files import atomic_write
from tests.support import HashingEncoder

pytestmark = pytest.mark.reliability


def test_the_file_and_its_folder_are_flushed(tmp_path, monkeypatch):
    flushed: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        flushed.append("folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        real_fsync(fd)

    monkeypatch.setattr(models.files.os, "fsync", fsync)
    atomic_write(tmp_path / "a.txt", lambda tmp: Path(tmp).write_text("new"))
    assert flushed == ["file", "folder"] and (tmp_path / "a.txt").read_text() == "new"


def test_npz_files_land_under_their_own_name(tmp_path):
    path = tmp_path / "cache" / "vectors-v1.npz"
    write_npz_atomic(path, vectors=np.arange(6.0).reshape(2, 3))
    with np.load(path) as data:
        np.testing.assert_array_equal(data["vectors"], np.arange(6.0).reshape(2, 3))
    assert [p.name for p in path.parent.iterdir()] == ["vectors-v1.npz"]


def test_the_embedding_cache_is_written_atomically(tmp_path):
    path = tmp_path / "cache" / "emb.npz"
    first = CachingSentenceEncoder(path, HashingEncoder()).encode(["one text", "another text"])
    np.testing.assert_allclose(CachingSentenceEncoder(path, HashingEncoder()).encode(["one text"]), first[:1])
    assert [p.name for p in path.parent.iterdir()] == ["emb.npz"]


class Unprintable:
    def __str__(self) -> str:
        raise ValueError("no text")


def test_a_failed_export_keeps_the_old_file(tmp_path):
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / "tasks.csv"
    write_csv([{"a": "1"}], ["a"], out)
    with pytest.raises(ConfigError) as caught:
        write_csv([{"a": "2"}, {"a": Unprintable()}], ["a"], out)
    assert "nothing was replaced" in str(caught.value) and "\n" not in str(caught.value)
    assert out.read_text() == "a\n1\n" and [p.name for p in out.parent.iterdir()] == ["tasks.csv"]


def test_a_knowledge_base_backup_is_a_whole_database(tmp_path):
    with KnowledgeBase.create("desk") as kb:
        kb.db.execute("CREATE TABLE notes (text TEXT)")
        kb.db.execute("INSERT INTO notes VALUES ('kept')")
        kb.db.conn.commit()
        target = kb.backup(tmp_path / "copies" / "desk.db")
    assert [p.name for p in target.parent.iterdir()] == ["desk.db"]
    copy = sqlite3.connect(target)
    assert copy.execute("SELECT text FROM notes").fetchall() == [("kept",)]
    copy.close()


def _encode_two(path, worker):
    CachingSentenceEncoder(path, HashingEncoder()).encode([f"query {worker} one", f"query {worker} two"])


def test_twenty_processes_writing_the_embedding_cache_keep_every_text(tmp_path):
    """Issue 34: 20 processes adding texts at once kept 10 of 20 (each replaced the file with its own view)."""
    import multiprocessing

    path = tmp_path / "cache" / "emb.npz"
    CachingSentenceEncoder(path, HashingEncoder()).encode(["shared one", "shared two"])
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_encode_two, args=(str(path), i)) for i in range(20)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
    assert [w.exitcode for w in workers] == [0] * 20
    with np.load(path) as data:
        assert len(data["keys"]) == 2 + 2 * 20 and data["vectors"].shape == (42, 64)
    cache = CachingSentenceEncoder(path, HashingEncoder())
    texts = [f"query {i} {n}" for i in range(20) for n in ("one", "two")]
    np.testing.assert_allclose(cache.encode(texts), HashingEncoder().encode(texts), atol=1e-6)
    assert [p.name for p in path.parent.iterdir()] == ["emb.npz"]
