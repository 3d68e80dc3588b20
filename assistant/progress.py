"""Progress records for long jobs.

Long jobs (training, evaluation, import, fitting) are generator functions that yield ``Progress`` and
*return* their result. They know nothing of Qt or terminals: the CLI shows them as progress bars, the GUI
runs them in a worker thread with a Cancel button, tests drive them with tiny budgets.

>>> def job():
...     for i in range(3):
...         yield Progress(i + 1, 3, "working")
...     return "done"
>>> run_job(job())
'done'
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from assistant.errors import Cancelled

T = TypeVar("T")

Job = Generator["Progress", None, T]


@dataclass(frozen=True)
class Progress:
    """One step of a long job: ``step`` of ``total`` (total 0 = unknown), a message and live metrics."""

    step: int
    total: int
    message: str = ""
    metrics: Mapping[str, float] = field(default_factory=dict)

    @property
    def fraction(self) -> float | None:
        return None if self.total <= 0 else min(1.0, self.step / self.total)


def eta_text(seconds: float) -> str:
    """How long a job has left, as a person reads it: "about 3 min left", "about 45 s left" (5 s steps)."""
    if seconds >= 90:
        return f"about {seconds / 60:.0f} min left"
    return f"about {max(5, round(seconds / 5) * 5):.0f} s left"


class Eta:
    """The one ETA of a job's progress records (the CLI's progress lines and the GUI's progress panel show
    it; jobs never put one in their messages): the rate since the first record of the current stage (the
    message without its numbers, up to its first colon), so that the steps that came at once before it,
    or a stage that restarts its own count, do not count. ``new_stage``: the last record began a stage."""

    def __init__(self) -> None:
        self.stage: str | None = None
        self.stage_start = 0.0
        self.stage_step = 0
        self.new_stage = False

    @staticmethod
    def stage_of(message: str) -> str:
        return "".join(c for c in message if not c.isdigit()).split(":")[0].strip()

    def seconds_left(self, record: Progress, now: float | None = None) -> float | None:
        """Seconds left after ``record`` (None: not known yet, or no total)."""
        now = time.monotonic() if now is None else now
        stage = self.stage_of(record.message)
        self.new_stage = stage != self.stage
        if self.new_stage:
            self.stage, self.stage_start, self.stage_step = stage, now, record.step
        if record.total > 0 and self.stage_step < record.step < record.total:
            return (now - self.stage_start) / (record.step - self.stage_step) * (record.total - record.step)
        return None


def run_job(
    job: Generator[Progress, None, T],
    on_progress: Callable[[Progress], None] | None = None,
    should_cancel: Callable[[], bool] | None = None,
) -> T:
    """Drive ``job`` to completion and return its result.

    ``on_progress`` sees every record; when ``should_cancel()`` becomes true the generator is closed (its
    ``finally`` blocks run, so transactions roll back) and ``Cancelled`` is raised.
    """
    try:
        while True:
            record = next(job)
            if on_progress is not None:
                on_progress(record)
            if should_cancel is not None and should_cancel():
                job.close()
                raise Cancelled("the job was cancelled; nothing after the last completed step was kept")
    except StopIteration as stop:
        return stop.value


def collect(job: Generator[Progress, None, T]) -> tuple[list[Progress], T]:
    """Run ``job`` and return (all progress records, result): handy in tests."""
    records: list[Progress] = []
    result = run_job(job, records.append)
    return records, result


def metrics_of(**values: Any) -> dict[str, float]:
    """Keep only the numeric values of ``values`` as floats (for ``Progress.metrics``)."""
    return {k: float(v) for k, v in values.items() if isinstance(v, int | float)}
