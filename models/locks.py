"""A lock between Clarify processes that a killed owner cannot leave behind: an exclusive ``flock`` on a file
that holds the owner's pid.

The kernel drops a ``flock`` when its owner dies (``kill -9``, a power cut ends every process anyway), so a
lock file left on disk is never stale: whoever acquires it next takes it over, and whoever waits can say which
live process it waits for. Used for sru's compiled op (``models.sru_loader``) and for building a domain and
its models for the first time (``assistant.app.desk.domains``).
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path


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
    """An exclusive ``flock`` on ``path`` (created if needed) with the holder's pid written in it."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.handle = open(path, "a+")  # noqa: SIM115 - closed by release()
        self.held = False

    def try_acquire(self) -> bool:
        """Take the lock if nobody holds it (never waits)."""
        try:
            fcntl.flock(self.handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        self.held = True
        self.handle.seek(0)
        self.handle.truncate()
        self.handle.write(f"{os.getpid()}\n")
        self.handle.flush()
        return True

    def owner(self) -> int | None:
        """The pid written in the lock file (the holder while it is held, else the last one)."""
        return read_owner(self.path)

    def release(self) -> None:
        if self.held:
            fcntl.flock(self.handle, fcntl.LOCK_UN)
            self.held = False
        self.handle.close()

    def __enter__(self) -> PidLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def read_owner(path: Path) -> int | None:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
