"""How fast Clarify lets go: the times the tests used to assert on a shared machine, measured here instead.

- GUI (offscreen): Cancel on a domain opening stuck in one long call, until the window is free again (target
  < 1.5 s), and closing the window while that job is still stuck (target < 1 s; gui/main_window.py waits
  CLOSE_WAIT_MS for running jobs). tests/gui/test_gui_trust.py checks that both end without the job.
- GUI launch (issue 33): `clarify-gui` to a usable Ask page on a relaunch (target < 3 s) and on the first launch
  of a fresh home (target < 20 s), with the question typed at that moment answered once faq is ready, and the
  longest the window froze meanwhile; ``benchmarks/gui_launch.py`` (``--launch-repeats`` launches of each).
  tests/gui/test_gui_loading.py checks that the page takes a question before the domain is ready.
- sru's compiled op: a launch that finds another live process building the op waits ``timeout`` (0.5 s here)
  and goes on without it (target < 5 s), and a build that cannot finish is stopped (target < 10 s).
  tests/models/test_sru_loader.py checks what they report.
- CLI: `clarify evaluate --json` into a missing folder is refused before any model is loaded (target < 30 s).
  tests/assistant/cli/test_arguments.py checks that the models are never loaded.
- CLI start (issue 33, ``--home``: a home where faq is prepared): `clarify --help`, `domain list`, `sessions`
  (< 0.5 s each), `clarify ask faq "..."` to its first question (< 1.5 s), `--resume` to the question it
  shows again (< 1.5 s: a new process, like a first question) and an answer to what follows it in the session
  (< 0.2 s); ``benchmarks/cli_start.py``. tests/assistant/cli/test_light_commands.py checks that the light
  commands import no model stack, tests/assistant/cli/test_serving_imports.py that a conversation imports no
  training stack.

Each is measured ``--repeats`` times (median and max); the machine's load average is recorded beside them.

Run: python -m benchmarks.bench_responsiveness [--quick] [--repeats N]
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import numpy as np

from benchmarks.common import HELP, run_command

KIND = "speed"
TARGETS_S = {"gui_cancel": 1.5, "gui_close": 1.0, "sru_wait": 5.0, "sru_stop": 10.0, "cli_refusal": 30.0}


class StuckLoader:
    """A domain loader stuck in one long call (no progress, so no chance to see Cancel) until released."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = threading.Event()

    def __call__(self, name: str):
        from assistant.progress import Progress

        yield Progress(0, 0, "checking the models")
        self.started.set()
        self.release.wait(60)
        yield Progress(1, 1, "ready")
        return None


def _wait_for(app, condition: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the window did not get there within 20 s")
        app.processEvents()
        time.sleep(0.002)


def gui_times(folder: Path) -> tuple[float, float]:
    """(seconds from Cancel until the window is free, seconds that close() takes), a stuck opening each."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication, QPushButton, QWidget

    from gui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    settings = QSettings(str(folder / "clarify-gui.ini"), QSettings.Format.IniFormat)
    loaders: list[StuckLoader] = []

    def stuck_window() -> MainWindow:
        loader = StuckLoader()
        loaders.append(loader)
        window = MainWindow(settings=settings, domain_loader=loader, open_initial=False)
        window.show()
        window.open_domain("stuck")
        _wait_for(app, loader.started.is_set)
        return window

    try:
        window = stuck_window()
        banner = window.findChild(QWidget, "domainLoading")
        assert banner is not None and banner.isVisible(), "the opening shows its progress on the Ask page"
        cancel = banner.findChild(QPushButton, "domainLoadingCancelButton")
        assert cancel is not None, "the loading banner has its Cancel button"
        start = time.perf_counter()
        cancel.click()
        _wait_for(app, lambda: window.opening is None)
        cancelled = time.perf_counter() - start
        window.close()

        window = stuck_window()
        start = time.perf_counter()
        window.close()
        closed = time.perf_counter() - start
    finally:
        for loader in loaders:
            loader.release.set()
    return cancelled, closed


def sru_times(folder: Path) -> tuple[float | None, float]:
    """(seconds a launch waits for a live builder with timeout 0.5 s, or None without a built op here; seconds
    until a build that cannot finish is stopped)."""
    from models import sru_loader

    waited = None
    built = sru_loader.extensions_dir()
    if sru_loader.is_built(built):
        copy = folder / "extensions"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(built, copy, ignore=shutil.ignore_patterns(sru_loader.LOCK_NAME))
        holder = sru_loader.BuildLock(copy)
        assert holder.try_acquire()
        try:
            start = time.perf_counter()
            steps = sru_loader.build_steps(copy, timeout=0.5)
            while True:
                try:
                    next(steps)
                except StopIteration:
                    break
            waited = time.perf_counter() - start
        finally:
            holder.release()
    empty = folder / "empty"
    shutil.rmtree(empty, ignore_errors=True)
    start = time.perf_counter()
    sru_loader.ensure_built(empty, timeout=0.5)
    return waited, time.perf_counter() - start


def cli_refusal_time(folder: Path) -> float:
    """Seconds `clarify evaluate --json` into a missing folder takes to exit 2 (run in this process)."""
    from benchmarks.reliability.arguments import bad_argument_cases, run_case
    from benchmarks.reliability.environment import build_crowd_domain

    build_crowd_domain("bank")
    case = {c.name: c for c in bad_argument_cases(folder / "work", "bank")}["evaluate --json missing folder"]
    outcome = run_case(case, timeout=120)
    if outcome.exit_code != 2:
        raise RuntimeError(f"expected exit code 2, got {outcome.exit_code}: {outcome.problem}")
    return outcome.seconds


def _summary(values: list[float | None]) -> dict:
    found = [v for v in values if v is not None]
    if not found:
        return {"median_s": None, "max_s": None}
    return {"median_s": round(float(np.median(found)), 3), "max_s": round(float(np.max(found)), 3)}


@click.command(name="bench_responsiveness", context_settings=HELP)
@click.option("--quick", is_flag=True, help="one repeat of each")
@click.option("--repeats", type=int, default=5, show_default=True)
@click.option("--gui/--no-gui", default=True, show_default=True, help="measure the window too (needs PySide6)")
@click.option(
    "--launch-repeats",
    type=int,
    default=3,
    show_default=True,
    help="launches of the app on a fresh home, then relaunches (0: none; --quick: 1)",
)
@click.option(
    "--home",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="A home where faq is prepared: measure the CLI's start there too (default: not measured).",
)
def command(quick: bool, repeats: int, gui: bool, home: Path | None = None, launch_repeats: int = 3) -> dict:
    from benchmarks.cli_start import TARGETS_S as CLI_TARGETS_S
    from benchmarks.cli_start import cli_times
    from benchmarks.gui_launch import TARGETS_S as LAUNCH_TARGETS_S
    from benchmarks.gui_launch import gui_launch_times

    repeats = 1 if quick else repeats
    launch_repeats = min(1, launch_repeats) if quick else launch_repeats
    launches = gui and launch_repeats > 0
    targets = {**TARGETS_S, **(CLI_TARGETS_S if home else {}), **(LAUNCH_TARGETS_S if launches else {})}
    times: dict[str, list[float | None]] = {name: [] for name in targets}
    loads = []
    launch_loads = []
    if launches:  # each launch is its own process; first, before this process loads anything
        with tempfile.TemporaryDirectory(prefix="clarify-launch-") as tmp:
            launch_loads.append(os.getloadavg()[0])
            for name, values in gui_launch_times(home.resolve() if home else None, launch_repeats, Path(tmp)).items():
                times.setdefault(name, []).extend(values)
            launch_loads.append(os.getloadavg()[0])
    if home is not None:  # first, on the person's home, before this process loads anything
        for _ in range(repeats):
            loads.append(os.getloadavg()[0])
            for name, seconds in cli_times(home.resolve()).items():
                times[name].append(seconds)
    old_home = os.environ.get("CLARIFY_HOME")
    with tempfile.TemporaryDirectory(prefix="clarify-responsiveness-") as tmp:
        folder = Path(tmp)
        os.environ["CLARIFY_HOME"] = str(folder / "home")  # a throwaway home: the CLI case builds a domain
        try:
            for repeat in range(repeats):
                run = folder / f"run{repeat}"
                run.mkdir()
                if gui:
                    cancelled, closed = gui_times(run)
                    times["gui_cancel"].append(cancelled)
                    times["gui_close"].append(closed)
                waited, stopped = sru_times(run)
                times["sru_wait"].append(waited)
                times["sru_stop"].append(stopped)
                times["cli_refusal"].append(cli_refusal_time(run))
        finally:
            if old_home is None:
                os.environ.pop("CLARIFY_HOME", None)
            else:
                os.environ["CLARIFY_HOME"] = old_home
    result: dict[str, Any] = {
        "repeats": repeats,
        **{name: {**_summary(values), "target_s": targets.get(name)} for name, values in times.items() if values},
        "load_average_1min": round(os.getloadavg()[0], 2),
    }
    if loads:
        result["load_average_1min_cli"] = {"median": round(float(np.median(loads)), 2), "max": round(max(loads), 2)}
    if launch_loads:  # before the first launch and after the last
        result["load_average_1min_launches"] = [round(load, 2) for load in launch_loads]
    print(json.dumps(result, indent=2))
    parts = [
        f"{name} {result[name]['max_s']} s (< {targets[name]})"
        for name in targets
        if name in result and result[name]["max_s"] is not None
    ]
    print(f"responsiveness (max of {repeats}): {', '.join(parts)}; load average {result['load_average_1min']}")
    return result


def main(argv: list[str] | None = None) -> dict:
    return run_command(command, argv)


if __name__ == "__main__":
    main()
