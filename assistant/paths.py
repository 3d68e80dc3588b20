"""Where Clarify keeps its data: one folder, overridable with the environment variable CLARIFY_HOME.

Layout under the home folder::

    domains/<name>.db            the knowledge base of a domain (SQLite)
    domains/<name>.db.bak-v<N>   a copy taken before migrating from schema version N
    models/<name>/...            checkpoints (state_dict + JSON sidecar) trained for the domain
    models/<name>/serving.json   which set of them serves, once a set was replaced as a whole (below)
    models/<name>/set-<id>/...   a set of checkpoints written beside the serving one

A domain's models are one *set*: at first the files in ``models/<name>/`` itself. A change that must not
half-happen (``clarify learn update``: a new encoder, kept only if better, then the policies for it) writes a
new set beside the serving one and switches to it by renaming ``serving.json`` over the old one: a kill at any
moment leaves the old set serving or the new one, never a mix and never a rejected model
(``assistant.app.lifecycle.model_sets``). ``models_dir`` gives the serving set's folder, or the set being written while
such a change runs in this thread (``staged_models``).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import signal
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from functools import partial
from pathlib import Path

import platformdirs

from assistant.errors import ConfigError
from models.errors import CheckpointError
from models.files import atomic_write

APP_NAME = "clarify"
_DOMAIN_NAME = re.compile(r"[a-z][a-z0-9_-]{0,63}")  # fullmatched: with "$", "desk\n" passed (issue 41)


# <repository>/../shared/data holds the evaluation-only data sets on a development machine
REPO_ROOT = Path(__file__).resolve().parents[1]
# assistant/release/<domain>/: the shipped release models (package data, pyproject.toml), not a Python package.
RELEASE_DIR = Path(__file__).resolve().parent / "release"


def shared_data_dir(explicit: str | Path | None = None) -> Path:
    """The folder of the evaluation-only data sets: ``explicit``, else $CLARIFY_SHARED_DATA, else
    <repository>/../shared/data."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("CLARIFY_SHARED_DATA")
    if env:
        return Path(env).expanduser()
    return REPO_ROOT.parent / "shared" / "data"


# data folders found usable in this process (checking writes a probe file)
_usable: set[Path] = set()


def home() -> Path:
    """The data folder: $CLARIFY_HOME if set, else the platform's user data dir for Clarify.

    Raises ConfigError, saying what to do, when it is not a folder or cannot be written.
    """
    override = os.environ.get("CLARIFY_HOME")
    root = Path(override).expanduser() if override else Path(platformdirs.user_data_dir(APP_NAME))
    if root not in _usable:
        _check_folder(root, "CLARIFY_HOME" if override else "the data folder")
        _usable.add(root)
    return root


def _check_folder(root: Path, what: str) -> None:
    fix = "set CLARIFY_HOME to a writable folder (e.g. export CLARIFY_HOME=~/clarify-data)"
    if root.exists() and not root.is_dir():
        raise ConfigError(f"{what} {root} is a file, not a folder: {fix}")
    try:
        root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=root):
            pass
    except (FileExistsError, NotADirectoryError) as exc:
        raise ConfigError(f"{what} {root} cannot be a folder ({exc.strerror}: {exc.filename}): {fix}") from exc
    except OSError as exc:
        reason = "it is read-only" if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS) else exc.strerror
        raise ConfigError(f"Clarify cannot write its data into {what} {root} ({reason}): {fix}") from exc


def check_domain_name(name: str) -> str:
    """Return ``name`` if it is a valid domain name, else raise ConfigError saying what is allowed."""
    if not isinstance(name, str) or not _DOMAIN_NAME.fullmatch(name):
        raise ConfigError(
            f"invalid domain name {name!r}: use 1-64 characters, lowercase letters, digits, '_' or '-', "
            "starting with a letter (e.g. 'faq' or 'my_helpdesk')"
        )
    return name


def domain_lock_path(name: str) -> Path:
    """The lock a program holds while it prepares, creates or updates domain ``name`` (``models.locks``)."""
    return domains_dir() / f".{check_domain_name(name)}.lock"


def _subfolder(path: Path) -> Path:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"cannot create the folder {path} ({exc.strerror}): move away what is there, or set CLARIFY_HOME to "
            "a writable folder"
        ) from exc
    return path


def domains_dir() -> Path:
    return _subfolder(home() / "domains")


def domain_db_path(name: str) -> Path:
    return domains_dir() / f"{check_domain_name(name)}.db"


def models_root(name: str) -> Path:
    """models/<name>: the folder of the domain's model sets (and the first set itself)."""
    return _subfolder(home() / "models" / check_domain_name(name))


SERVING = "serving.json"
# the set being written by a change in this thread (``staged_models``), by domain
_STAGED: ContextVar[dict[str, Path] | None] = ContextVar("clarify_staged_models", default=None)


def serving_set(name: str) -> Path:
    """The folder of the set of ``name``'s models that serves: the one ``serving.json`` names, else
    models/<name> itself (a home whose models were never replaced as a whole, or a pointer to a set that is
    gone)."""
    root = models_root(name)
    try:
        chosen = json.loads((root / SERVING).read_text(encoding="utf-8")).get("set")
    except (OSError, ValueError, AttributeError):
        return root
    if isinstance(chosen, str) and re.fullmatch(r"set-[A-Za-z0-9_-]{1,80}", chosen) and (root / chosen).is_dir():
        return root / chosen
    return root


def models_dir(name: str) -> Path:
    """Where the models of domain ``name`` are read and written: the set being written by a change in this
    thread, else the serving set."""
    staged = (_STAGED.get() or {}).get(name)
    return staged if staged is not None else serving_set(name)


@contextlib.contextmanager
def staged_models(name: str, folder: Path) -> Iterator[Path]:
    """Within the block, ``models_dir(name)`` is ``folder`` in this thread (and the generators it runs)."""
    token = _STAGED.set({**(_STAGED.get() or {}), name: folder})
    try:
        yield folder
    finally:
        try:
            _STAGED.reset(token)
        except ValueError:  # closed from another context (a generator finalised elsewhere): drop ours alone
            _STAGED.set({k: v for k, v in (_STAGED.get() or {}).items() if k != name})


# ---- fault injection, for the tests of kill windows ---------------------------------------------------
FAULT_ENV = "CLARIFY_FAULT"


def fault_point(name: str) -> None:
    """A place where a kill must leave everything usable: when $CLARIFY_FAULT names it, the process ends
    here with SIGKILL, as ``kill -9`` at exactly this moment would (tests run such a process and check what
    it left). Does nothing otherwise."""
    if os.environ.get(FAULT_ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)


# ---- files a person names for output (--out, --json, --csv, --plot, --layout) ---------------------------
def check_output_file(path: str | Path, option: str = "the output") -> Path:
    """``path`` if Clarify may write it: a new name, or a regular file that is not a symbolic link.

    Refused (ConfigError, one line): a folder, a FIFO, a device, a socket (writing would block, or reach
    the device), and any symbolic link, dangling or not (replacing it would change where it points or what
    it is; following it writes somewhere the person did not name).
    """
    path = Path(path)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return path
    except OSError as exc:
        raise ConfigError(f"{option} {path}: {exc.strerror or exc}; choose another file name") from exc
    if stat.S_ISLNK(info.st_mode):
        raise ConfigError(
            f"{option} {path} is a symbolic link: Clarify writes only regular files; give the path of the file itself"
        )
    if stat.S_ISDIR(info.st_mode):
        raise ConfigError(f"{option} {path}: that is a folder; give a file name such as {path / 'out'}")
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(
            f"{option} {path} is not a regular file (a pipe, a device or a socket): give the name of a new or "
            "existing file"
        )
    return path


def _umask() -> int:
    """The process's umask without changing it (os.umask would, for a moment, for every thread)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


def write_output_file(path: str | Path, write: Callable[[Path], object], option: str = "the output") -> Path:
    """Write a file the person named: ``write(tmp)`` fills a temporary file beside ``path`` (same suffix, so
    that a plot's format is found from it), which then replaces ``path`` in one rename. ``path`` is checked
    (``check_output_file``) before and again just before the rename; an existing file keeps its mode (a 0600
    file stays 0600) and, where Clarify may, its owner; a new one gets the usual mode (0666 less the umask).
    A failed write leaves ``path`` as it was. Returns ``path``."""
    path = check_output_file(path, option)
    try:
        before = os.stat(path)
    except FileNotFoundError:
        before = None

    def fill(tmp: str) -> None:
        write(Path(tmp))
        if before is not None and os.geteuid() == 0 and (before.st_uid, before.st_gid) != (0, 0):
            os.chown(tmp, before.st_uid, before.st_gid)

    mode = 0o666 & ~_umask() if before is None else stat.S_IMODE(before.st_mode)
    # still what it was just before the rename: nothing put a link or a pipe there meanwhile
    recheck = partial(check_output_file, path, option)
    try:
        atomic_write(path, fill, mode=mode, before_replace=recheck)
    except CheckpointError as exc:
        raise ConfigError(f"cannot write {option} {path}: {exc}") from exc
    return path
