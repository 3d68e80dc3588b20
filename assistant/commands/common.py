"""Terminal helpers shared by the command modules: progress bars for jobs, JSON output."""

from __future__ import annotations

import json
import sys
from collections.abc import Generator
from typing import TypeVar

import click

from assistant.progress import Progress, run_job

T = TypeVar("T")


def run_with_progress(job: Generator[Progress, None, T], label: str, quiet: bool = False) -> T:
    """Run a job, drawing a one-line progress bar on stderr (nothing when ``quiet`` or not a terminal)."""
    interactive = sys.stderr.isatty() and not quiet
    last_width = 0

    def show(p: Progress) -> None:
        nonlocal last_width
        if not interactive:
            return
        if p.total > 0:
            filled = int(30 * min(1.0, p.step / p.total))
            bar = f"[{'#' * filled}{'-' * (30 - filled)}] {p.step}/{p.total}"
        else:
            bar = f"[{p.step}]"
        metrics = " ".join(f"{k}={v:.4g}" for k, v in p.metrics.items())
        line = f"\r{label} {bar} {p.message} {metrics}".rstrip()
        click.echo(line + " " * max(0, last_width - len(line)), nl=False, err=True)
        last_width = len(line)

    try:
        return run_job(job, show)
    finally:
        if interactive and last_width:
            click.echo("", err=True)


def echo_json(data: object) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=False))
