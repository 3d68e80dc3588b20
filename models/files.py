"""Files replaced whole: the one atomic write every part of Clarify uses, and the flush of a folder's entries.

Imports nothing heavy (no torch): the foundation and the store use it too.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from models.errors import CheckpointError


def atomic_write(
    path: Path,
    write: Callable[[str], object],
    mode: int = 0o644,
    before_replace: Callable[[], object] | None = None,
) -> None:
    """Write through a temporary file in the same folder, flushed to disk, then renamed over ``path`` and the
    rename flushed too (the folder's fsync): a crash, a power cut or a full disk leaves the old file or the new
    one, never half of one. ``write(tmp)`` writes the whole file at the path ``tmp`` (a str; it keeps
    ``path``'s suffix, so that a writer that reads the format from it finds it); the new file gets ``mode``;
    ``before_replace()`` runs last, just before the rename (a check that may still refuse it)."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=f".tmp{path.suffix}")
    except OSError as exc:
        raise CheckpointError(
            f"cannot write {path} ({exc.strerror or exc}): check the folder and the free space"
        ) from exc
    os.close(fd)
    try:
        try:
            os.chmod(tmp, mode)  # mkstemp makes 0600
            write(tmp)
            with open(tmp, "rb+") as handle:
                os.fsync(handle.fileno())
        except Exception as exc:  # OSError, or torch's RuntimeError for a failed write (disk full)
            raise CheckpointError(
                f"cannot write {path} ({exc}): check the folder and the free space; nothing was replaced"
            ) from exc
        if before_replace is not None:
            before_replace()  # its own error, as it is: the caller's check
        try:
            os.replace(tmp, path)
        except OSError as exc:
            raise CheckpointError(f"cannot replace {path} ({exc.strerror or exc}); nothing was replaced") from exc
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    fsync_folder(path.parent)


def fsync_folder(folder: Path) -> None:
    """Flush a folder's entries (a rename, a link) to disk. Best effort: where a folder cannot be opened or
    flushed (Windows, some network file systems) the entry is in place all the same, only not yet on the disk."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
