"""Import the ``sru`` package without ever hanging.

``import sru`` JIT-compiles two small C++ ops (torch ``cpp_extension.load``: ~25 s the first time, cached
afterwards). Torch guards each build folder with a ``lock`` file and waits *forever* while it exists, so a
process killed during the compile used to leave every later launch hanging. Here:

- the ops are built in a folder of the project's own (``extensions_dir()``: inside the virtual
  environment, or ``$CLARIFY_TORCH_EXTENSIONS``), at install time (``make install`` runs
  ``python -m models.sru_loader --build``), never in the shared ``~/.cache/torch_extensions``;
- every build or load holds an exclusive ``flock`` on ``clarify-build.lock`` there (the owner's pid is written
  in it). The kernel releases it when its owner dies, so whoever holds it knows that any torch ``lock`` left
  in the folder belongs to a process that is gone: it is removed, and the op rebuilt if it is incomplete;
- the build runs in a child process with a timeout (and can be cancelled: ``build_steps`` is a generator
  that a caller polls, e.g. the app's progress dialog with its Cancel button);
- if the op cannot be built (no compiler, a timeout, another Clarify holding the folder too long), sru's
  modules are imported *without* their compiled ops and the encoder runs its pure-PyTorch recurrence
  (``compiled()`` is then False; slower, the same numbers), with a one-line notice on stderr.

sru also warns about CUDA and torch.jit.script on every import: exactly those two warnings are filtered.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path

from models.locks import PidLock, pid_alive, read_owner

EXTENSIONS_ENV = "CLARIFY_TORCH_EXTENSIONS"
TIMEOUT_ENV = "CLARIFY_SRU_BUILD_TIMEOUT"
BUILD_TIMEOUT = 600.0  # seconds for the one-time compile (about 25 s on two idle cores)
OPS = ("sru_cuda", "sru_cpu")  # the build folders sru's import creates (the CUDA one holds a CPU stub)
LOCK_NAME = "clarify-build.lock"
POLL = 0.1


@dataclass(frozen=True)
class SRUStatus:
    """Whether sru's compiled op is used, and if not, why (one line for a person)."""

    compiled: bool
    folder: str
    notice: str = ""


def extensions_dir() -> Path:
    """Where the compiled ops live: ``$CLARIFY_TORCH_EXTENSIONS``, else inside this virtual environment."""
    custom = os.environ.get(EXTENSIONS_ENV)
    return Path(custom) if custom else Path(sys.prefix) / "var" / "clarify" / "torch-extensions"


def build_timeout() -> float:
    try:
        return float(os.environ.get(TIMEOUT_ENV, BUILD_TIMEOUT))
    except ValueError:
        return BUILD_TIMEOUT


def is_built(folder: Path | None = None) -> bool:
    """Every op has a library and no build is half done (no torch lock file)."""
    folder = folder or extensions_dir()
    return all(any((folder / op).glob("*.so")) and not (folder / op / "lock").exists() for op in OPS)


def _environment(folder: Path) -> dict[str, str]:
    """The child's environment: the extensions folder, and the venv's bin/ (pip's ninja) first on PATH."""
    env = dict(os.environ)
    env["TORCH_EXTENSIONS_DIR"] = str(folder)
    bin_dir = os.path.dirname(sys.executable)
    if bin_dir not in env.get("PATH", "").split(os.pathsep):
        env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    return env


def lock_owner(folder: Path | None = None) -> int | None:
    """The pid written in the build lock (the last process that held it), if any."""
    return read_owner((folder or extensions_dir()) / LOCK_NAME)


class BuildLock(PidLock):
    """An exclusive ``flock`` on the folder's ``clarify-build.lock`` (the kernel drops it when the owner dies)."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder / LOCK_NAME)


def remove_stale_locks(folder: Path) -> list[Path]:
    """Remove torch's ``lock`` files in ``folder`` (call only while holding the build lock: their owner is gone)."""
    removed = []
    for op in OPS:
        lock = folder / op / "lock"
        if lock.exists():
            with contextlib.suppress(FileNotFoundError):
                lock.unlink()
            removed.append(lock)
    return removed


def build_steps(folder: Path | None = None, timeout: float | None = None) -> Generator[str, None, SRUStatus]:
    """Make sure the compiled ops are built in ``folder``; yields a line every ``POLL`` seconds while it
    waits for the folder or builds (stop iterating, i.e. ``close()``, to cancel: the build is killed),
    returns the status. Gives up after ``timeout`` seconds."""
    folder = folder or extensions_dir()
    timeout = build_timeout() if timeout is None else timeout
    start = time.monotonic()
    lock = BuildLock(folder)
    child: subprocess.Popen | None = None
    try:
        while not lock.try_acquire():
            if time.monotonic() - start > timeout:
                owner = lock_owner(folder)
                who = f"process {owner}" if owner and pid_alive(owner) else "another process"
                return SRUStatus(False, str(folder), f"sru's compiled op is being built by {who}")
            yield "waiting for another Clarify to finish building sru's compiled op"
            time.sleep(POLL)
        # We hold the lock, so a torch lock left in the folder belongs to a process that is gone.
        removed = remove_stale_locks(folder)
        if is_built(folder) and not removed:
            return SRUStatus(True, str(folder))
        child = subprocess.Popen(
            [sys.executable, "-m", "models.sru_loader", "--compile"],
            env=_environment(folder),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its compiler and ninja die with it
        )
        while child.poll() is None:
            elapsed = time.monotonic() - start
            if elapsed > timeout:
                return SRUStatus(False, str(folder), f"building sru's compiled op took over {timeout:.0f} s")
            yield f"building sru's compiled op ({elapsed:.0f} s; once per installation)"
            time.sleep(POLL)
        if child.returncode != 0 or not is_built(folder):
            lines = child.stderr.read().decode(errors="replace").strip().splitlines() if child.stderr else []
            return SRUStatus(False, str(folder), f"sru's compiled op could not be built ({(lines or ['?'])[-1][:200]})")
        return SRUStatus(True, str(folder))
    finally:  # also on cancel (GeneratorExit): kill the build, leave no torch lock behind
        if child is not None and child.poll() is None:
            _kill(child)
        if lock.held and child is not None:
            remove_stale_locks(folder)
        lock.release()


def _kill(child: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(child.pid, 9)
    child.wait()


def ensure_built(folder: Path | None = None, timeout: float | None = None) -> SRUStatus:
    """``build_steps`` run to the end."""
    steps = build_steps(folder, timeout)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


_lock = threading.Lock()
_module = None
_status: SRUStatus | None = None


def import_sru():
    """The ``sru`` module: with its compiled op if it is (or can be) built, else without (see ``compiled``)."""
    global _module, _status
    with _lock:
        if _module is not None:
            return _module
        folder = extensions_dir()
        status = ensure_built(folder)
        if status.compiled:
            os.environ["TORCH_EXTENSIONS_DIR"] = str(folder)
            os.environ["PATH"] = _environment(folder)["PATH"]
            lock = BuildLock(folder)
            try:
                if _acquire(lock, 30.0):  # torch's own lock is then ours alone: a kill cannot leave it stale
                    remove_stale_locks(folder)
                    _module = _quiet_import(stub=False)
                else:
                    status = SRUStatus(False, str(folder), "another process holds the compiled op's folder")
            finally:
                lock.release()
        if _module is None:
            _module = _quiet_import(stub=True)
            print(f"Clarify: {status.notice}; using the slower pure-PyTorch SRU.", file=sys.stderr)
        _status = status
        return _module


def _acquire(lock: BuildLock, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not lock.try_acquire():
        if time.monotonic() > deadline:
            return False
        time.sleep(POLL)
    return True


def compiled() -> bool:
    """Whether sru's compiled op is in use (imports sru if that has not happened yet)."""
    import_sru()
    return bool(_status and _status.compiled)


def status() -> SRUStatus:
    import_sru()
    assert _status is not None
    return _status


def _quiet_import(stub: bool):
    """``import sru`` with its two import-time warnings filtered; ``stub``: without compiling or loading its ops
    (sru's TorchScript functions that call them stay plain Python and are never called on that path)."""
    import torch
    import torch.utils.cpp_extension as cpp_extension

    with warnings.catch_warnings(), contextlib.ExitStack() as stack:
        warnings.filterwarnings("ignore", message=r".*CUDA.*", category=UserWarning)
        warnings.filterwarnings("ignore", message=r".*torch\.jit\.script.*", category=DeprecationWarning)
        if stub:
            for owner, name, value in (
                (cpp_extension, "load", lambda *a, **k: None),
                (torch.jit, "script", lambda fn=None, *a, **k: fn),
            ):
                original = getattr(owner, name)
                setattr(owner, name, value)
                stack.callback(setattr, owner, name, original)
        import sru
    return sru


if __name__ == "__main__":  # python -m models.sru_loader [--build | --compile]
    if "--compile" in sys.argv:  # the child of build_steps: torch compiles while importing
        _quiet_import(stub=False)
    else:
        result = ensure_built()
        state = "ready" if result.compiled else f"not built: {result.notice}"
        print(f"sru compiled op in {result.folder}: {state}")
