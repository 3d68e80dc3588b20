"""One preparer per domain at a time, and model changes that cannot half-happen.

``domain_lock`` (a job step): building a domain and training or installing its models waits for another
Clarify doing the same for that domain (two first launches at once), with an exclusive ``flock`` that holds
the owner's pid (``models.locks.PidLock``): the kernel drops it when its owner dies, so a killed owner never
leaves a lock to clear by hand. It is re-entrant within a thread (``learn update`` holds it and prepares).

``ModelSetChange``: a change of a domain's models that must happen whole or not at all (``clarify learn
update``: a new encoder, kept only if it is better on dev, then the policies trained for it). Its models are
written into a new set beside the serving one (``assistant.paths``: ``models/<domain>/set-<id>/``, a copy of
the serving set to start from); ``commit`` switches to it with one rename of ``models/<domain>/serving.json``.
A kill before the rename leaves the old set serving (the new folder is removed later); after it, the new
one. The set before stays on disk until the next change (a process that resolved its paths a moment ago
still finds its files), then goes.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Generator
from pathlib import Path

from assistant import paths
from assistant.progress import Progress
from models.files import fsync_folder
from models.locks import PidLock, pid_alive

POLL_SECONDS = 0.2

# locks this process holds, per (domain, thread): [lock, depth]
_held: dict[tuple[str, int], list] = {}


def domain_lock_path(name: str) -> Path:
    return paths.domain_lock_path(name)


def domain_lock(name: str, doing: str = "preparing") -> Generator[Progress, None, Callable[[], None]]:
    """Wait until this thread holds the lock of domain ``name`` (saying whom it waits for, and what that one
    is doing: preparing, creating or updating it); returns the function that releases it. Closing the job
    while it waits gives up waiting."""
    key = (name, threading.get_ident())
    if key in _held:
        _held[key][1] += 1
        return lambda: _release(key)
    lock = PidLock(domain_lock_path(name))
    try:
        while not lock.try_acquire(f"{doing} {name}"):
            owner = lock.owner()
            who = f"process {owner}" if owner and pid_alive(owner) else "another program"
            what = lock.doing() or f"preparing {name}"
            yield Progress(0, 0, f"waiting for another Clarify ({who}) to finish {what}")
            time.sleep(POLL_SECONDS)
    except BaseException:
        lock.release()
        raise
    _held[key] = [lock, 1]
    return lambda: _release(key)


def _release(key: tuple[str, int]) -> None:
    entry = _held.get(key)
    if entry is None:
        return
    entry[1] -= 1
    if entry[1] == 0:
        del _held[key]
        entry[0].release()


def _set_owner(folder_name: str) -> int | None:
    """The pid in a set's name (set-<time>-<pid>)."""
    try:
        return int(folder_name.rsplit("-", 1)[1])
    except (IndexError, ValueError):
        return None


class ModelSetChange:
    """A new set of domain ``name``'s models (see the module docstring). Use as a context manager: inside it,
    ``paths.models_dir(name)`` is the new set's folder in this thread; ``commit()`` makes it serve; leaving
    the block without a commit removes it."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.root = paths.models_root(name)
        self.folder = self.root / f"set-{time.time_ns()}-{os.getpid()}"
        self.base: Path | None = None
        self.committed = False
        self._staged: contextlib.AbstractContextManager | None = None

    def __enter__(self) -> ModelSetChange:
        self.base = paths.serving_set(self.name)
        self._remove_abandoned()
        self.folder.mkdir()
        try:
            for path in sorted(self.base.iterdir()):
                if path.is_file() and not path.is_symlink() and path.name != paths.SERVING:
                    shutil.copy2(path, self.folder / path.name)
            self._staged = paths.staged_models(self.name, self.folder)
            self._staged.__enter__()
        except BaseException:
            shutil.rmtree(self.folder, ignore_errors=True)
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        if self._staged is not None:
            self._staged.__exit__(None, None, None)
        if not self.committed:
            shutil.rmtree(self.folder, ignore_errors=True)

    def commit(self) -> None:
        """Make the new set serve: its files flushed to disk, then one rename of ``serving.json``."""
        for path in self.folder.iterdir():
            if path.is_file():
                with open(path, "rb") as handle:
                    os.fsync(handle.fileno())
        fsync_folder(self.folder)
        paths.fault_point("model-set:before-switch")
        previous = "" if self.base in (None, self.root) else self.base.name
        pointer = {"set": self.folder.name, "previous": previous, "switched_at": time.time()}
        fd, tmp = tempfile.mkstemp(dir=self.root, prefix=f".{paths.SERVING}.")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(pointer, handle)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.root / paths.SERVING)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.remove(tmp)
        fsync_folder(self.root)
        self.committed = True
        paths.fault_point("model-set:after-switch")
        self._remove_older_than(previous)

    def _remove_older_than(self, previous: str) -> None:
        """Remove every set but the new one and ``previous`` ('' = the files in models/<domain> itself)."""
        keep = {self.folder.name, previous}
        for path in self.root.iterdir():
            if path.is_dir() and path.name.startswith("set-") and path.name not in keep:
                owner = _set_owner(path.name)
                if owner is None or owner == os.getpid() or not pid_alive(owner):
                    shutil.rmtree(path, ignore_errors=True)
        if "" not in keep:
            for path in self.root.iterdir():
                if path.is_file() and path.name != paths.SERVING:
                    with contextlib.suppress(OSError):
                        path.unlink()

    def _remove_abandoned(self) -> None:
        """Remove the sets of changes whose process is gone (killed before its commit)."""
        try:
            pointer = json.loads((self.root / paths.SERVING).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pointer = {}
        keep = {pointer.get("set"), pointer.get("previous")} if isinstance(pointer, dict) else set()
        for path in self.root.iterdir():
            if path.is_dir() and path.name.startswith("set-") and path.name not in keep:
                owner = _set_owner(path.name)
                if owner is None or not pid_alive(owner):
                    shutil.rmtree(path, ignore_errors=True)
