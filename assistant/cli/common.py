"""Terminal helpers shared by the command modules: safe text, progress for jobs, JSON output.

Every text the commands print goes through ``echo`` (or ``terminal_text``): label names, answers, queries and
import problems come from files and people, and a terminal obeys the escape sequences in them (retitle the
window, clear the screen, write the clipboard with OSC 52). ``terminal_text`` removes them.

A job's progress is a tqdm bar with an ETA when stderr is a terminal; otherwise (a log file, a pipe, CI) it
is one line per stage, and a line with the step, the elapsed time and an ETA at most every
``LOG_EVERY_SECONDS`` (also when a stage yields nothing meanwhile: ``ProgressLog.beat`` from a thread), so
that long work is never silent; work that ends within ``LOG_AFTER_SECONDS``
prints nothing (a quick command's output stays its answer).
"""

from __future__ import annotations

import json
import math
import os
import sys
import threading
import time
from collections.abc import Generator
from pathlib import Path
from typing import TextIO, TypeVar

import click
from tqdm import tqdm

from assistant.app.choices import printable_text
from assistant.errors import ConfigError
from assistant.paths import check_output_file, write_output_file
from assistant.progress import Eta, Progress, eta_text, run_job
from assistant.settings import CANDIDATE_SETTINGS, PACES, TEXT_PRIORS

T = TypeVar("T")

LOG_EVERY_SECONDS = 10.0
LOG_AFTER_SECONDS = 2.0


def terminal_text(text: object) -> str:
    """``str(text)`` without escape sequences and control characters (tabs and newlines stay): what a text
    from a file or a person may contain before it reaches a terminal."""
    return printable_text(text)


def echo(message: object = "", err: bool = False, nl: bool = True) -> None:
    """``click.echo`` of ``terminal_text(message)``: how the commands print."""
    click.echo(terminal_text(message), err=err, nl=nl)


def _metrics(p: Progress) -> str:
    """The record's metrics as k=v (numbers to 4 significant digits; a metric not measured yet is left out)."""
    return " ".join(
        f"{k}={v:.4g}" if isinstance(v, int | float) else f"{k}={v}" for k, v in p.metrics.items() if v is not None
    )


class ProgressLog:
    """Log-friendly progress: a line whenever the stage (message without its numbers) changes, and at most
    every ``every`` seconds otherwise, each with step/total, elapsed time and an ETA."""

    def __init__(
        self, label: str, stream: TextIO, every: float = LOG_EVERY_SECONDS, after: float = LOG_AFTER_SECONDS
    ) -> None:
        self.label = label
        self.stream = stream
        self.every = every
        self.after = after
        self.start = time.monotonic()
        self.last_line = -float("inf")
        self.last: Progress | None = None
        self._lock = threading.Lock()  # the heartbeat's thread prints too (``beat``)
        self.eta = Eta()  # the one ETA (assistant.progress), as the GUI's progress panel shows it

    def __call__(self, p: Progress) -> None:
        with self._lock:
            now = time.monotonic()
            left = self.eta.seconds_left(p, now)
            new_stage = self.eta.new_stage
            self.last = p
            if now - self.start < self.after:
                return
            if not new_stage and now - self.last_line < self.every and not (p.total and p.step >= p.total):
                return
            eta = "" if left is None else f", {eta_text(left)}"
            self._print(now, p, eta)

    def beat(self) -> None:
        """A line when the job has said nothing for ``every`` seconds (a stage that yields no progress while it
        works: preparing 5,000 articles printed nothing for minutes; issue 41)."""
        with self._lock:
            now = time.monotonic()
            if self.last is None or now - self.start < self.after or now - self.last_line < self.every:
                return
            self._print(now, self.last, "", " (still working)")

    def _print(self, now: float, p: Progress, eta: str, still: str = "") -> None:
        self.last_line = now
        where = f"{p.step}/{p.total}" if p.total > 0 else f"{p.step}"
        line = f"{self.label}: {p.message}{still} [{where}, {now - self.start:.0f} s{eta}] {_metrics(p)}".rstrip()
        print(terminal_text(line), file=self.stream, flush=True)


def _with_heartbeat(job: Generator[Progress, None, T], log: ProgressLog) -> T:
    """``run_job(job, log)`` with ``log.beat()`` from a thread of its own every second meanwhile."""
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(1.0):
            log.beat()

    thread = threading.Thread(target=beat, name="progress-heartbeat", daemon=True)
    thread.start()
    try:
        return run_job(job, log)
    finally:
        stop.set()
        thread.join()


def run_with_progress(job: Generator[Progress, None, T], label: str, quiet: bool = False) -> T:
    """Run a job with a progress bar (terminal) or progress lines (anything else) on stderr; nothing if
    ``quiet``."""
    if quiet:
        return run_job(job)
    if not sys.stderr.isatty():
        return _with_heartbeat(job, ProgressLog(label, sys.stderr))
    bar = tqdm(desc=label, total=None, file=sys.stderr, leave=False, dynamic_ncols=True)

    def show(p: Progress) -> None:
        if p.total > 0 and bar.total != p.total:
            bar.reset(total=p.total)
        bar.n = p.step
        bar.set_postfix_str(terminal_text(f"{p.message} {_metrics(p)}").strip()[:80], refresh=False)
        bar.refresh()

    try:
        return run_job(job, show)
    finally:
        bar.close()


def echo_json(data: object) -> None:
    """JSON escapes every control character (also C1 and ESC): nothing to remove."""
    click.echo(json.dumps(data, indent=2, sort_keys=False))


def check_output(path: str | Path | None, option: str, create_folders: bool = False) -> None:
    """Refuse an output file that cannot be written, before the work that fills it: the path must not be a
    folder, its folder must exist (or, with ``create_folders``, be creatable) and be writable, and the path must
    be new or a regular file, not a symbolic link, FIFO or device (``paths.check_output_file``; the writers
    check again when they write, through ``paths.write_output_file``)."""
    if path is None:
        return
    path = Path(path)
    if path.is_dir():
        raise ConfigError(f"{option} {path}: that is a folder; give a file name such as {path / 'out'}")
    folder = path.parent
    if create_folders:
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist; create it first"
        raise ConfigError(f"{option} {path}: {folder} {what}")
    check_output_file(path, option)
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise ConfigError(f"{option} {path}: cannot write there (permission denied); choose another place")


def write_json_file(path: str | Path, data: object, option: str = "--json") -> Path:
    """Write ``data`` as JSON to the file the person named (``paths.write_output_file``)."""
    text = json.dumps(data, indent=2)
    return write_output_file(path, lambda tmp: tmp.write_text(text, encoding="utf-8"), option)


class FiniteFloat(click.ParamType):
    """A float that must be finite ('nan' and 'inf' parse as floats) and lie in [min, max]."""

    name = "number"

    def __init__(self, min: float | None = None, max: float | None = None) -> None:
        self.min, self.max = min, max

    def convert(self, value, param, ctx) -> float:
        try:
            number = float(value)
        except (TypeError, ValueError, OverflowError):
            self.fail(f"{str(value)[:40]!r} is not a number", param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        if (self.min is not None and number < self.min) or (self.max is not None and number > self.max):
            low = "" if self.min is None else f"{self.min:g}"
            high = "" if self.max is None else f"{self.max:g}"
            self.fail(f"{number:g} is not in the range [{low}, {high}]", param, ctx)
        return number


# Seeds go to numpy and torch, which take non-negative integers below 2**64; 32 bits are plenty.
SEED = click.IntRange(0, 2**32 - 1)
# Session ids are SQLite integers (below 2**63) from 1 up: a larger number cannot name one.
SESSION_ID = click.IntRange(1, 2**63 - 1)
# Simulated conversations per system: a million is hours of work already.
EPISODES = click.IntRange(1, 1_000_000)


# options that several commands share
CANDIDATES_OPTION = click.option(
    "--candidates",
    type=click.Choice(CANDIDATE_SETTINGS),
    default="all",
    show_default=True,
    help="Choose among all labels, or only labels that have training queries ('captioned').",
)


PRIOR_OPTION = click.option(
    "--prior",
    "text_prior",
    type=click.Choice(TEXT_PRIORS),
    default=None,
    help="Text prior: the trained SRU encoder, or pooled MiniLM (no training; its own policies). Default: the "
    "domain's (sru; for your own FAQ, what `clarify prepare` chose).",
)


PACE_OPTION = click.option(
    "--pace",
    type=click.Choice(PACES),
    default=None,
    help="The cost of a question: 'quick' asks fewer, 'thorough' asks while a question still helps "
    "(default: the domain's).",
)
