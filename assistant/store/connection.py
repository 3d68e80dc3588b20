"""Opening a knowledge base file safely, and writing to it while another program writes too.

SQLite allows one writer at a time. A transaction that starts with a plain (deferred) BEGIN, reads, then
writes cannot wait for the lock: when another program committed in between, SQLite fails at once with
"database is locked". Every write here therefore takes the write lock up front (``BEGIN IMMEDIATE``),
waits ``BUSY_TIMEOUT_MS`` inside SQLite, tells the person (``on_busy``) and tries again until
``WRITE_WAIT_SECONDS`` have passed; only then it gives up with a ``StoreBusyError`` (nothing written).
Readers never wait: the file is in WAL mode.

A file is checked with ``PRAGMA quick_check`` when it is opened (once while the file is unchanged: the stamp
of the last check passed is kept beside it, so that a new process, such as each `clarify ask`, does not read a
large FAQ's hundreds of MB again; while the domain's array files stand for its annotation, held-out and query
tables, only its other tables, since a saved session changes the file: issue 42), and a damaged one is refused
with a message that says what to do, before anything reads or writes it. SQLite's own errors (disk full, read-only folder, damaged pages) become ``StoreError``s
with a message for the person.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

import sqlite_utils
import tenacity

from assistant import paths
from assistant.errors import ConfigError, StoreBusyError, StoreError
from models.errors import CheckpointError
from models.files import atomic_write
from models.locks import held_by

BUSY_MESSAGE = "the knowledge base is busy (another program is writing to it); retrying"
BUSY_TIMEOUT_MS = 1000  # SQLite's own wait per attempt; then ``on_busy`` is told and the write retried
WRITE_WAIT_SECONDS = 120.0  # how long a write waits for another program's transaction in all

BusyListener = Callable[[str], None]

# (device, inode, size, mtime) of files that passed quick_check in this process: checking a 20 MB file
# takes ~0.2 s, and a session opens its domain's file several times.
_checked: dict[str, tuple[int, int, int, int]] = {}
# the same for files whose tables other than the array tables passed (``check_integrity``'s ``left_out``)
_partly_checked: dict[str, tuple[int, int, int, int]] = {}
# the tables a domain's array files stand for (assistant.store.arrays.ARRAY_TABLES)
ARRAY_TABLES = ("annotations", "heldout_answers", "queries")


def _stamp(path: Path) -> tuple[int, int, int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def damaged_message(path: Path, name: str, detail: str) -> str:
    detail = " ".join(detail.split())
    backups = sorted(path.parent.glob(f"{path.name}.bak-v*"))
    backup = f", or copy the backup {backups[-1].name} over it" if backups else ""
    return (
        f"the knowledge base {path} is damaged ({detail}); nothing was read or written. Move it away "
        f"(mv {path} {path}.damaged) and run `clarify domain build {name}` for a bundled domain{backup}; "
        f"`sqlite3 {path}.damaged .recover` may rescue imported data and sessions"
    )


def _primary_code(exc: sqlite3.Error) -> int | None:
    """SQLite's primary result code of ``exc`` (its extended code's low byte: SQLITE_IOERR_SHORT_READ is an
    SQLITE_IOERR); None for errors that did not come from SQLite."""
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else code & 0xFF


def is_busy(exc: BaseException) -> bool:
    """Another connection holds the lock this one needs (SQLITE_BUSY, SQLITE_LOCKED)."""
    return isinstance(exc, sqlite3.OperationalError) and _primary_code(exc) in (
        sqlite3.SQLITE_BUSY,
        sqlite3.SQLITE_LOCKED,
    )


def store_error(exc: sqlite3.Error, path: Path, name: str) -> StoreError:
    """The person's version of a SQLite error on ``path`` (what went wrong and what to do)."""
    text = str(exc)
    code = _primary_code(exc)
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return StoreBusyError(
            f"the knowledge base {path} is busy: another program (an import, a session) is writing to it; "
            "nothing was written: try again when it has finished"
        )
    if code == sqlite3.SQLITE_FULL:
        return StoreError(
            f"the disk holding {path} is full; nothing was written: free some space (or set CLARIFY_HOME to a "
            "folder on another disk) and try again"
        )
    if code == sqlite3.SQLITE_READONLY:
        return StoreError(
            f"cannot write {path}: the file or its folder is read-only; make it writable or set CLARIFY_HOME to "
            "a writable folder"
        )
    if code == sqlite3.SQLITE_CANTOPEN:
        return StoreError(
            f"cannot open {path} ({text}): check that its folder exists and is writable, or set CLARIFY_HOME to "
            "a writable folder"
        )
    if code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return StoreError(damaged_message(path, name, text))
    if code == sqlite3.SQLITE_IOERR:
        return StoreError(f"reading or writing {path} failed ({text}): check the disk, then try again")
    return StoreError(f"the knowledge base {path} failed: {text}")


@contextmanager
def translated_errors(path: Path, name: str) -> Iterator[None]:
    """Turn SQLite's operational errors (not constraint violations: callers handle those) into StoreErrors."""
    try:
        yield
    except (sqlite3.IntegrityError, sqlite3.ProgrammingError, sqlite3.InterfaceError):
        raise
    except sqlite3.DatabaseError as exc:
        raise store_error(exc, path, name) from exc


def open_database(
    path: Path, name: str, arrays_current: Callable[[sqlite_utils.Database], bool] | None = None
) -> sqlite_utils.Database:
    """A checked connection to ``path``: foreign keys on, WAL mode, busy timeout, ``quick_check`` passed.

    ``arrays_current`` says whether the domain's array files stand for the file's array tables now
    (``assistant.store.arrays``): then those tables are left out of the check (while the arrays serve, only the
    stamp's path to their largest row ids is read; damage met there makes the stamp differ, and the whole file is
    checked), and the check of a large FAQ reads kilobytes instead of hundreds of MB. A reader that
    needs them after all checks the whole file first (``check_integrity`` without ``left_out``)."""
    if path.exists() and not path.is_file():
        raise StoreError(f"{path} is not a file: move it away so that Clarify can keep the {name!r} knowledge base")
    db = None
    try:
        db = sqlite_utils.Database(path)
        db.execute("PRAGMA foreign_keys = ON")
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        current = arrays_current is not None and arrays_current(db)
        check_integrity(db, path, name, ARRAY_TABLES if current else ())
        _enable_wal(db)
    except sqlite3.DatabaseError as exc:
        if db is not None:
            db.close()
        raise store_error(exc, path, name) from exc
    except StoreError:
        if db is not None:
            db.close()
        raise
    return db


def _enable_wal(db: sqlite_utils.Database) -> None:
    # switching needs a moment alone with the file: retry while another connection holds it (each try waits
    # BUSY_TIMEOUT_MS inside SQLite), then let the busy error go to the caller
    for attempt in tenacity.Retrying(
        retry=tenacity.retry_if_exception(is_busy), stop=tenacity.stop_after_delay(WRITE_WAIT_SECONDS), reraise=True
    ):
        with attempt:
            db.enable_wal()


# A file's stamp is trusted across processes only when it was last written this long before its check: a
# write within the file system's clock tick of the check could leave the same stamp on changed bytes.
SETTLED_NS = 2_000_000_000


def _checked_path(path: Path) -> Path:
    """Where the stamp of ``path``'s last passed check is kept (a hidden file beside it)."""
    return path.with_name(f".{path.name}.checked")


def _checked_before(path: Path, stamp: tuple[int, int, int, int]) -> bool:
    try:  # never through a link planted in the stamp's place (issue 41)
        fd = os.open(_checked_path(path), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        return os.read(fd, 200).decode("ascii").split() == [str(v) for v in stamp]
    except (OSError, UnicodeDecodeError):
        return False
    finally:
        os.close(fd)


def _remember_checked(path: Path, stamp: tuple[int, int, int, int]) -> None:
    if time.time_ns() - stamp[3] < SETTLED_NS:
        return
    text = " ".join(map(str, stamp))
    # only a shortcut: when it cannot be written, the next process checks again. Through the atomic writer:
    # its rename replaces whatever was planted at the stamp's name (a link) instead of writing through it
    with contextlib.suppress(OSError, CheckpointError):
        atomic_write(_checked_path(path), lambda tmp: Path(tmp).write_text(text, encoding="ascii"))


def check_integrity(db: sqlite_utils.Database, path: Path, name: str, left_out: tuple[str, ...] = ()) -> None:
    """Raise StoreError (saying what to do) if ``PRAGMA quick_check`` finds damage: in the whole file, or only in
    its tables other than ``left_out`` (each with its indexes)."""
    stamp = _stamp(path)
    key = str(path.resolve())
    if stamp is None or stamp[2] == 0 or _checked.get(key) == stamp:
        return
    if _checked_before(path, stamp):
        _checked[key] = stamp
        return
    if left_out:
        _check_tables(db, path, name, left_out, key, stamp)
        return
    rows = [row[0] for row in db.execute("PRAGMA quick_check(5)").fetchall()]
    if rows != ["ok"]:
        _checked.pop(key, None)
        _checked_path(path).unlink(missing_ok=True)
        raise StoreError(damaged_message(path, name, "; ".join(map(str, rows))[:300]))
    _checked[key] = stamp
    _remember_checked(path, stamp)


def _check_tables(
    db: sqlite_utils.Database, path: Path, name: str, left_out: tuple[str, ...], key: str, stamp: tuple
) -> None:
    if _partly_checked.get(key) == stamp:
        return
    tables = [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'") if t not in left_out]
    problems = [
        str(row[0]) for table in tables for row in db.execute(f'PRAGMA quick_check("{table}")') if row[0] != "ok"
    ]
    if problems:
        _partly_checked.pop(key, None)
        raise StoreError(damaged_message(path, name, "; ".join(problems)[:300]))
    _partly_checked[key] = stamp


def busy_message(path: Path) -> str:
    """``BUSY_MESSAGE``, naming the program that holds the domain's lock when one does (it said "an import is
    running" whatever ran: an update, a prepare, a second session)."""
    try:
        holder = held_by(paths.domain_lock_path(path.stem))
    except ConfigError:  # a file that is no domain's (a test's, a backup)
        holder = None
    if holder is None:
        return BUSY_MESSAGE
    pid, doing = holder
    who = f"process {pid}" if pid else "another program"
    return f"the knowledge base is busy ({who} is {doing or 'working on it'}); retrying"


def begin_immediate(
    conn: sqlite3.Connection, path: Path, on_busy: BusyListener | None, wait: float | None = None
) -> None:
    """Start a write transaction holding the write lock, waiting up to ``wait`` seconds (default
    ``WRITE_WAIT_SECONDS``) for another program's; ``on_busy`` hears ``BUSY_MESSAGE`` once when waiting.
    Each try waits ``BUSY_TIMEOUT_MS`` inside SQLite, so the retries themselves do not sleep."""

    def tell(state: tenacity.RetryCallState) -> None:
        if on_busy is not None and state.attempt_number == 1:
            on_busy(busy_message(path))

    def give_up(state: tenacity.RetryCallState) -> NoReturn:
        busy = state.outcome.exception() if state.outcome is not None else None
        raise StoreBusyError(
            f"the knowledge base {path} stayed busy for {state.seconds_since_start or 0.0:.0f} s (another program, "
            "such as an import, is writing to it); nothing was written: try again when it has finished"
        ) from busy

    retrying = tenacity.Retrying(
        retry=tenacity.retry_if_exception(is_busy),
        stop=tenacity.stop_after_delay(WRITE_WAIT_SECONDS if wait is None else wait),
        before_sleep=tell,
        retry_error_callback=give_up,
    )
    retrying(conn.execute, "BEGIN IMMEDIATE")
