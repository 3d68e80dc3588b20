"""models.locks and the store's stamps with links planted in their place (issue 41): a lock or a stamp never
writes through a symbolic or hard link to a file outside Clarify's home; the lock refuses in one line."""

from __future__ import annotations

import os

import pytest

from models.errors import UnsafeFileError
from models.locks import PidLock, read_owner

pytestmark = pytest.mark.reliability


def test_a_lock_writes_its_pid_and_what_it_does(tmp_path):
    lock = PidLock(tmp_path / ".desk.lock")
    assert lock.try_acquire("updating desk")
    assert lock.owner() == os.getpid() and lock.doing() == "updating desk"
    assert read_owner(tmp_path / ".desk.lock") == os.getpid()
    lock.release()
    lock.release()  # twice is harmless


@pytest.mark.parametrize("link", ["symbolic", "hard"])
def test_a_lock_file_planted_as_a_link_is_refused_and_its_target_kept(tmp_path, link):
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    planted = tmp_path / "domains" / ".desk.lock"
    planted.parent.mkdir()
    (os.symlink if link == "symbolic" else os.link)(outside, planted)
    with pytest.raises(UnsafeFileError, match=r"\.desk\.lock (is a symbolic link|has another name).*: remove it"):
        PidLock(planted)
    assert outside.read_text() == "precious\n"


def test_a_dangling_link_is_refused_without_creating_its_target(tmp_path):
    planted = tmp_path / ".desk.lock"
    os.symlink(tmp_path / "created-outside", planted)
    with pytest.raises(UnsafeFileError):
        PidLock(planted)
    assert not (tmp_path / "created-outside").exists()
    assert read_owner(planted) is None


def test_the_domain_lock_refuses_a_planted_link_in_one_line(fresh_clarify_home, tmp_path):
    from assistant import paths
    from assistant.app.lifecycle.model_sets import domain_lock, domain_lock_path
    from assistant.errors import USER_ERRORS
    from assistant.progress import run_job

    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    paths.domains_dir().mkdir(parents=True, exist_ok=True)
    os.symlink(outside, domain_lock_path("desk"))
    with pytest.raises(USER_ERRORS) as caught:
        run_job(domain_lock("desk"))
    assert "\n" not in str(caught.value) and "symbolic link" in str(caught.value)
    assert outside.read_text() == "precious\n"


def test_the_integrity_stamp_replaces_a_planted_link_instead_of_writing_through_it(fresh_clarify_home, tmp_path):
    from assistant import paths
    from assistant.store import KnowledgeBase, connection

    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    with KnowledgeBase.create("desk") as kb:
        kb.db.execute("CREATE TABLE notes (text TEXT)")
    db = paths.domain_db_path("desk")
    os.utime(db, ns=(1_000_000_000, 1_000_000_000))  # settled: its stamp is written on the next check
    stamp = db.with_name(f".{db.name}.checked")
    stamp.unlink(missing_ok=True)
    os.symlink(outside, stamp)
    connection._checked.clear()
    with KnowledgeBase.open("desk"):
        pass
    assert outside.read_text() == "precious\n"
    assert not stamp.is_symlink() and stamp.read_text().split()[0].isdigit()
