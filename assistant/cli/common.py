"""Terminal helpers shared by the command modules: progress for jobs, JSON output.

A job's progress is a tqdm bar with an ETA when stderr is a terminal; otherwise (a log file, a pipe, CI) it
is one line per stage, and a line with the step, the elapsed time and an ETA at most every
``LOG_EVERY_SECONDS``, so that long work is never silent; work that ends within ``LOG_AFTER_SECONDS``
prints nothing (a quick command's output stays its answer).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Generator
from typing import TextIO, TypeVar

import click
from tqdm import tqdm

from assistant.progress import Progress, run_job

T = TypeVar("T")

LOG_EVERY_SECONDS = 10.0
LOG_AFTER_SECONDS = 2.0


def _metrics(p: Progress) -> str:
    return " ".join(f"{k}={v:.4g}" for k, v in p.metrics.items())


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
        self.stage: str | None = None
        self.stage_start = self.start
        self.stage_step = 0

    @staticmethod
    def _stage(message: str) -> str:
        return "".join(c for c in message if not c.isdigit()).split(":")[0].strip()

    def __call__(self, p: Progress) -> None:
        now = time.monotonic()
        stage = self._stage(p.message)
        new_stage = stage != self.stage
        if new_stage:  # the ETA of a stage counts from its first record: the steps before it came at once
            self.stage, self.stage_start, self.stage_step = stage, now, p.step
        if now - self.start < self.after:
            return
        if not new_stage and now - self.last_line < self.every and not (p.total and p.step >= p.total):
            return
        self.last_line = now
        elapsed = now - self.start
        where = f"{p.step}/{p.total}" if p.total > 0 else f"{p.step}"
        eta = ""
        if p.total > 0 and self.stage_step < p.step < p.total:
            rate = (now - self.stage_start) / (p.step - self.stage_step)
            eta = f", about {rate * (p.total - p.step):.0f} s left"
        line = f"{self.label}: {p.message} [{where}, {elapsed:.0f} s{eta}] {_metrics(p)}".rstrip()
        print(line, file=self.stream, flush=True)


def run_with_progress(job: Generator[Progress, None, T], label: str, quiet: bool = False) -> T:
    """Run a job with a progress bar (terminal) or progress lines (anything else) on stderr; nothing if
    ``quiet``."""
    if quiet:
        return run_job(job)
    if not sys.stderr.isatty():
        return run_job(job, ProgressLog(label, sys.stderr))
    bar = tqdm(desc=label, total=None, file=sys.stderr, leave=False, dynamic_ncols=True)

    def show(p: Progress) -> None:
        if p.total > 0 and bar.total != p.total:
            bar.reset(total=p.total)
        bar.n = p.step
        bar.set_postfix_str(f"{p.message} {_metrics(p)}".strip()[:80], refresh=False)
        bar.refresh()

    try:
        return run_job(job, show)
    finally:
        bar.close()


def echo_json(data: object) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=False))
