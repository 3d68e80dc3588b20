"""assistant.store.arrays (issue 42): a Domain read from its array files equals the one read from SQLite; stale
arrays (a write, a replaced file) and damaged ones (a flipped byte, a truncated or missing file) are read from
SQLite and written again, never trusted; a saved session leaves them current; and a home made before schema 7
(the release before issue 42) gets its arrays on its first read, once."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from assistant.store import BINARY_OPTIONS, DomainData, KnowledgeBase, Label, Question, SessionLog, write_domain
from assistant.store.arrays import MANIFEST, arrays_dir, data_stamp, read_arrays, stamp_matches
from assistant.store.schema import SCHEMA_VERSION


def _data() -> DomainData:
    labels = [Label(f"k{i}", f"Entry {i}", f"text {i}", (f"answer {i}",)) for i in range(4)]
    questions = [
        Question("red", "Is it red?", "binary", "red", BINARY_OPTIONS, induced=True),
        Question("size", "How big?", "choice", "size", ("small", "medium", "large", "something else")),
    ]
    annotations = [("k0", "red", "yes", 3.0), ("k1", "red", "no", 2.5), ("k2", "size", "large", 1.0)]
    heldout = [("k0", "red", "yes", 0.75), ("k3", "size", "small", 0.5)]
    queries = [("k0", "a red one", "train"), ("k1", "naïve café ☕", "dev"), ("k3", "big", "test")]
    return DomainData(
        name="t",
        title="T",
        description="",
        labels=labels,
        questions=questions,
        annotations=annotations,
        annotation_source="induced",
        queries=queries,
        heldout=heldout,
        out_of_scope=[("weather", "test")],
    )


def _assert_same(a, b) -> None:
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            assert x is not None and y is not None and x.dtype == y.dtype, f.name
            np.testing.assert_array_equal(x, y, err_msg=f.name)
        else:
            assert x == y, f.name


def _dir(path: Path) -> Path:
    folder = arrays_dir(path, "t")
    assert folder is not None
    return folder


@pytest.fixture
def kb_path(tmp_path):
    path = tmp_path / "t.db"
    with KnowledgeBase(path, "t") as kb:
        write_domain(kb, _data())
    return path


def _from_sqlite(path):
    """The domain as SQLite holds it, whatever arrays exist (read into a fresh copy of the file)."""
    (path.parent / "copy").mkdir()
    copy = path.parent / "copy" / "t.db"
    with KnowledgeBase(path, "t") as kb:
        kb.backup(copy)
    with KnowledgeBase(copy, "t") as kb:
        assert read_arrays(arrays_dir(copy, "t"), data_stamp(kb.db), (2, 4, 4)) is None  # another folder
        return dataclasses.replace(kb.load_domain(), name="t")


def test_the_domain_read_from_arrays_equals_the_one_read_from_sqlite(kb_path):
    with KnowledgeBase(kb_path, "t") as kb:
        first = kb.load_domain()  # reads SQLite, writes the arrays
        folder = _dir(kb_path)
        assert stamp_matches(folder, data_stamp(kb.db))
        assert read_arrays(folder, data_stamp(kb.db), first.counts.shape) is not None
        second = kb.load_domain()
    assert first.heldout_answers is not None and first.counts[0, 0, 0] == 3.0
    _assert_same(first, second)
    _assert_same(second, _from_sqlite(kb_path))


def test_a_write_makes_the_arrays_stale_and_they_are_written_again(kb_path):
    with KnowledgeBase(kb_path, "t") as kb:
        kb.load_domain()
        before = data_stamp(kb.db)
        ids, qids = kb.label_ids(), kb.question_ids()
        kb.add_annotations([(ids["k3"], qids["red"], "yes", 4.0, "crowd", "w1", "")])
        assert not stamp_matches(_dir(kb_path), data_stamp(kb.db))
        assert data_stamp(kb.db) != before
        domain = kb.load_domain()
        assert domain.counts[0, 0, 3] == 4.0
        assert stamp_matches(_dir(kb_path), data_stamp(kb.db))
    _assert_same(domain, _from_sqlite(kb_path))


def test_a_write_from_outside_clarify_makes_the_arrays_stale(kb_path):
    with KnowledgeBase(kb_path, "t") as kb:
        kb.load_domain()
        ids, qids = kb.label_ids(), kb.question_ids()
        with kb.transaction():  # as the sqlite3 shell would: no revision moved on
            kb.db.execute(
                "INSERT INTO annotations (label_id, question_id, answer, count, source) VALUES (?, ?, 'no', 9, 'x')",
                [ids["k2"], qids["red"]],
            )
        assert kb.load_domain().counts[0, 1, 2] == 9.0


def test_a_saved_session_leaves_the_arrays_current(kb_path):
    with KnowledgeBase(kb_path, "t") as kb:
        kb.load_domain()
        log = SessionLog(kb)
        session = log.create("a red one", {}, entries=[("query", {"text": "a red one"})])
        log.append_entries(session, [("answer", {"answer": "yes"})], "finished", "k0")
        kb.set_meta(title="Renamed")  # the meta is read from SQLite each time
        assert stamp_matches(_dir(kb_path), data_stamp(kb.db))
        assert kb.load_domain().title == "Renamed"


@pytest.mark.parametrize("damage", ["flip", "truncate", "remove", "manifest"])
def test_a_damaged_array_file_is_never_trusted_and_is_written_again(kb_path, damage):
    with KnowledgeBase(kb_path, "t") as kb:
        good = kb.load_domain()
    folder = _dir(kb_path)
    target = folder / "counts_value.npy"
    if damage == "flip":
        data = bytearray(target.read_bytes())
        data[-1] ^= 0x40  # the last count's last byte: still a valid .npy file, another number
        target.write_bytes(bytes(data))
    elif damage == "truncate":
        target.write_bytes(target.read_bytes()[:-4])
    elif damage == "remove":
        target.unlink()
    else:
        (folder / MANIFEST).write_text("{not json", encoding="utf-8")
    with KnowledgeBase(kb_path, "t") as kb:
        assert read_arrays(folder, data_stamp(kb.db), good.counts.shape) is None
        again = kb.load_domain()
        _assert_same(good, again)
        assert read_arrays(folder, data_stamp(kb.db), good.counts.shape) is not None  # written again


def test_arrays_of_a_replaced_file_are_stale(kb_path, tmp_path):
    with KnowledgeBase(kb_path, "t") as kb:
        kb.load_domain()
    for suffix in ("", "-wal", "-shm"):
        kb_path.with_name(kb_path.name + suffix).unlink(missing_ok=True)
    other = _data()
    other.annotations = [("k0", "red", "no", 7.0)]
    with KnowledgeBase(kb_path, "t") as kb:  # same revision count as the first file: another identity
        write_domain(kb, other)
        domain = kb.load_domain()
    assert domain.counts[0, 1, 0] == 7.0 and domain.counts[0, 0, 0] == 0.0


def _as_made_by_schema_6(path) -> None:
    """Turn a file into what the release before issue 42 made: schema 6, no data identity, no arrays."""
    with KnowledgeBase(path, "t") as kb, kb.transaction():
        kb.db.execute("DROP TABLE domain_data")
        kb.db.execute("DELETE FROM schema_version WHERE version > 6")
    folder = _dir(path)
    for file in folder.iterdir():
        file.unlink()
    folder.rmdir()


def test_a_home_made_by_the_release_before_gets_its_arrays_on_its_first_read_once(kb_path):
    with KnowledgeBase(kb_path, "t") as kb:
        expected = kb.load_domain()
    _as_made_by_schema_6(kb_path)
    with KnowledgeBase(kb_path, "t") as kb:
        assert kb.schema_version == SCHEMA_VERSION == 7
        folder = _dir(kb_path)
        assert not folder.exists()
        _assert_same(expected, kb.load_domain())
        written = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    assert (kb_path.parent / "t.db.bak-v6").exists()
    with KnowledgeBase(kb_path, "t") as kb:  # the next process reads the arrays: nothing is written again
        assert stamp_matches(folder, data_stamp(kb.db))
        stat = (folder / MANIFEST).stat().st_mtime_ns
        _assert_same(expected, kb.load_domain())
        assert (folder / MANIFEST).stat().st_mtime_ns == stat
        assert json.loads((folder / MANIFEST).read_text(encoding="utf-8")) == written


def test_reviews_are_applied_on_top_of_the_arrays(kb_path):
    from assistant.store import QuestionReview

    with KnowledgeBase(kb_path, "t") as kb:
        kb.load_domain()
        kb.save_question_review(QuestionReview(tag="red", hidden=True))
        domain = kb.load_domain()
        assert [q.tag for q in domain.questions] == ["size"] and domain.counts.shape == (1, 4, 4)
        assert domain.counts[0, 2, 2] == 1.0
        assert len(kb.load_domain(reviewed=False).questions) == 2


def test_arrays_that_cannot_be_written_leave_the_domain_read_from_sqlite(kb_path):
    _dir(kb_path).write_text("a file where the folder should be", encoding="utf-8")
    with KnowledgeBase(kb_path, "t") as kb:
        domain = kb.load_domain()
    _assert_same(domain, _from_sqlite(kb_path))


def test_a_file_under_another_name_gets_no_arrays(tmp_path):
    """A first build's temporary file (``<name>.db.building-<pid>``): a build killed there leaves no arrays."""
    path = tmp_path / "t.db.building-1"
    with KnowledgeBase(path, "t") as kb:
        write_domain(kb, _data())
        kb.load_domain()
    assert arrays_dir(path, "t") is None and not (tmp_path / "t.arrays").exists()


def _damage_root_page(path: Path, table: str) -> None:
    import sqlite3

    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        (page,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", [table]).fetchone()
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    with path.open("r+b") as handle:
        handle.seek((page - 1) * page_size)
        handle.write(bytes([0x0D, 0xFF, 0xFF, 0x00, 0x07]) + b"\xa5" * 200)


def test_damage_in_a_table_that_changes_is_refused_on_opening_while_the_arrays_serve(kb_path):
    from assistant.errors import StoreError

    with KnowledgeBase(kb_path, "t") as kb:
        kb.load_domain()
        SessionLog(kb).create("a red one", {}, entries=[("query", {"text": "a red one"})])
    _damage_root_page(kb_path, "turns")
    with pytest.raises(StoreError, match="is damaged"):
        KnowledgeBase(kb_path, "t")
