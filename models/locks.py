"""A lock between Clarify processes that a killed owner cannot leave behind: an exclusive ``flock`` on a file
that holds the owner's pid.

The kernel drops a ``flock`` when its owner dies (``kill -9``, a power cut ends every process anyway), so a
lock file left on disk is never stale: whoever acquires it next takes it over, and whoever waits can say which
live process it waits for. Used for sru's compiled op (``models.sru_loader``) and for building a domain and
its models for the first time (``assistant.app.desk.domains``).
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from pathlib import Path

from models.errors import UnsafeFileError


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists (one of another user's counts as alive)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class PidLock:
    """An exclusive ``flock`` on ``path`` (created if needed) with the holder's pid written in it, and what it
    is doing (``try_acquire(doing)``), so that whoever waits can say what it waits for.

    The file is opened without following a link (``O_NOFOLLOW``) and must be a plain file of one name: a link
    planted in its place would have the lock truncate and write the file it points to (issue 41)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.fd = open_own_file(path)
        self.held = False

    def try_acquire(self, doing: str = "") -> bool:
        """Take the lock if nobody holds it (never waits)."""
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        self.held = True
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, f"{os.getpid()} {' '.join(doing.split())}".strip().encode() + b"\n", 0)
        return True

    def owner(self) -> int | None:
        """The pid written in the lock file (the holder while it is held, else the last one)."""
        return _owner(self._text())

    def doing(self) -> str:
        """What the holder said it is doing (``try_acquire``'s ``doing``), '' if nothing."""
        words = self._text().split(maxsplit=1)
        return words[1].strip() if len(words) == 2 else ""

    def _text(self) -> str:
        try:
            return os.pread(self.fd, 512, 0).decode("utf-8", errors="replace")
        except OSError:
            return ""

    def release(self) -> None:
        if self.fd < 0:
            return
        if self.held:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            self.held = False
        os.close(self.fd)
        self.fd = -1

    def __enter__(self) -> PidLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def open_own_file(path: Path, flags: int = os.O_RDWR | os.O_CREAT) -> int:
    """A file descriptor of ``path``, a file of Clarify's own (a lock, a stamp), opened without following a
    link; UnsafeFileError when ``path`` is a symbolic link, a hard link (a second name of another file), or
    not a plain file: something planted there, which Clarify must not write through."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0), 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafeFileError(
                f"{path} is a symbolic link: remove it (Clarify writes only its own files there)"
            ) from exc
        raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:
        os.close(fd)
        what = "has another name (a hard link)" if stat.S_ISREG(info.st_mode) else "is not a plain file"
        raise UnsafeFileError(f"{path} {what}: remove it (Clarify writes only its own files there)")
    return fd


def _owner(text: str) -> int | None:
    try:
        return int(text.split()[0])
    except (ValueError, IndexError):
        return None


def read_owner(path: Path) -> int | None:
    """The pid written in the lock file at ``path`` (read without following a link), if any."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        return _owner(os.pread(fd, 512, 0).decode("utf-8", errors="replace"))
    except OSError:
        return None
    finally:
        os.close(fd)


def held_by(path: Path) -> tuple[int | None, str] | None:
    """(pid, what it is doing) of the process holding the lock at ``path`` now; None when nobody holds it (or
    there is no such plain file). Asks with a shared lock that is dropped at once, never waiting."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:  # held: the holder wrote its pid and what it does
            words = os.pread(fd, 512, 0).decode("utf-8", errors="replace").split(maxsplit=1)
            return _owner(" ".join(words)), (words[1].strip() if len(words) == 2 else "")
        except OSError:
            return None
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)
