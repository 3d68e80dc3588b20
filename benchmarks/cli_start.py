"""How long a person waits at the terminal (issue 33): `clarify --help`, `domain list`, `sessions` to their
exit, `clarify ask DOMAIN "QUERY"` to its first question printed, and `clarify ask DOMAIN --resume ID` to the
question it shows again. Each runs as a new process (``python -m assistant.cli.main``, as the `clarify` script
does), on a home where the domain is prepared; wall seconds."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGETS_S = {"cli_help": 0.5, "cli_domain_list": 0.5, "cli_sessions": 0.5, "ask_first_question": 1.5, "ask_resume": 0.2}
QUERY = "my email does not sync"


def _command(args: list[str]) -> list[str]:
    return [sys.executable, "-m", "assistant.cli.main", *args]


def exit_time(args: list[str], home: Path) -> float:
    """Seconds until the command exits (it must succeed)."""
    start = time.perf_counter()
    subprocess.run(
        _command(args), cwd=ROOT, env={**os.environ, "CLARIFY_HOME": str(home)}, check=True, capture_output=True
    )
    return time.perf_counter() - start


def question_time(args: list[str], home: Path) -> tuple[float, int | None]:
    """Seconds until the command prints its first question ("Q<n>:"), then it is told to quit; and the session
    id it printed (None if none)."""
    start = time.perf_counter()
    process = subprocess.Popen(
        _command(args),
        cwd=ROOT,
        env={**os.environ, "CLARIFY_HOME": str(home), "PYTHONUNBUFFERED": "1"},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None and process.stdin is not None
    session, seconds = None, None
    for line in process.stdout:
        if line.startswith("Session ") and session is None:
            session = int(line.split()[1].rstrip(":"))
        if line.lstrip().startswith("Q") and ":" in line.split()[0]:
            seconds = time.perf_counter() - start
            break
    process.stdin.write("q\n")
    process.stdin.close()
    process.wait(timeout=120)
    if seconds is None:
        raise RuntimeError(f"`{' '.join(args)}` printed no question")
    return seconds, session


def cli_times(home: Path, domain: str = "faq") -> dict[str, float]:
    """One measurement of each figure of ``TARGETS_S`` on ``home`` (``domain`` prepared there)."""
    first, session = question_time(["ask", domain, QUERY], home)
    resumed, _ = question_time(["ask", domain, "--resume", str(session)], home) if session else (float("nan"), None)
    return {
        "cli_help": exit_time(["--help"], home),
        "cli_domain_list": exit_time(["domain", "list"], home),
        "cli_sessions": exit_time(["sessions", domain], home),
        "ask_first_question": first,
        "ask_resume": resumed,
    }
