"""How long a person waits at the terminal (issue 33): `clarify --help`, `domain list`, `sessions` to their
exit, `clarify ask DOMAIN "QUERY"` to its first question printed, `clarify ask DOMAIN --resume ID` to the
question it shows again, and, within a session, an answer to what follows it (the next question or the
shortlist). Each runs as a new process (``python -m assistant.cli.main``, as the `clarify` script does), on a
home where the domain is prepared; wall seconds.

Run alone: python -m benchmarks.cli_start --home HOME [--repeats N] (median and max, the load beside them);
benchmarks/bench_responsiveness.py --home reports the same figures with its others."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The targets: a light command 0.5 s, a first question 1.5 s, every later answer 0.2 s. A resumed session
# starts a process and loads the domain as a first question does: the same 1.5 s.
TARGETS_S = {
    "cli_help": 0.5,
    "cli_domain_list": 0.5,
    "cli_sessions": 0.5,
    "ask_first_question": 1.5,
    "ask_resume": 1.5,
    "ask_answer": 0.2,
    "ask_answer_to_shortlist": 0.2,
}
QUERY = "my email does not sync"
# On faq its first answer ends the questions: the shortlist embeds the query (MiniLM) with the candidates. A
# query is embedded anew in each session (it is not cached unless something else new is embedded with it).
SHORTLIST_QUERY = "my email sync is broken"


def _command(args: list[str]) -> list[str]:
    return [sys.executable, "-m", "assistant.cli.main", *args]


def exit_time(args: list[str], home: Path) -> float:
    """Seconds until the command exits (it must succeed)."""
    start = time.perf_counter()
    subprocess.run(
        _command(args), cwd=ROOT, env={**os.environ, "CLARIFY_HOME": str(home)}, check=True, capture_output=True
    )
    return time.perf_counter() - start


def conversation_process(args: list[str], home: Path) -> subprocess.Popen:
    """`clarify ARGS` on ``home`` as a new process, talked to as a person at the terminal would: its stdin and
    (unbuffered) stdout are pipes of text."""
    return subprocess.Popen(
        _command(args),
        cwd=ROOT,
        env={**os.environ, "CLARIFY_HOME": str(home), "PYTHONUNBUFFERED": "1"},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def question_time(args: list[str], home: Path) -> tuple[float, int | None]:
    """Seconds until the command prints its first question ("Q<n>:"), then it is told to quit; and the session
    id it printed (None if none)."""
    start = time.perf_counter()
    process = conversation_process(args, home)
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


def answer_time(home: Path, domain: str = "faq", answer: str = "s", query: str = QUERY) -> float:
    """Seconds from an answer to the first question written on stdin (default "s", not sure: the session goes on
    asking) to the first line printed after it (the next question, or the shortlist), in a session started on
    ``query``. The answer is written once the question's answer keys are printed: the session then waits for it."""
    process = conversation_process(["ask", domain, query], home)
    assert process.stdout is not None and process.stdin is not None
    seconds, sent = None, None
    for line in process.stdout:
        if sent is None and "q = quit" in line:  # the answer keys end the first question's prompt
            process.stdin.write(f"{answer}\n")
            process.stdin.flush()
            sent = time.perf_counter()
        elif sent is not None and line.strip():
            seconds = time.perf_counter() - sent
            break
    process.stdin.write("q\n")
    process.stdin.close()
    process.stdout.close()
    process.wait(timeout=120)
    if seconds is None:
        raise RuntimeError(f"`clarify ask {domain}` printed nothing after the answer {answer!r}")
    return seconds


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
        "ask_answer": answer_time(home, domain),
        "ask_answer_to_shortlist": answer_time(home, domain, "1", SHORTLIST_QUERY),
    }


def main(argv: list[str] | None = None) -> dict:
    """Each figure ``--repeats`` times on ``--home``: median and max, with the 1-minute load average before each
    round; prints and returns them as JSON."""
    import argparse
    import json
    import statistics

    parser = argparse.ArgumentParser(prog="python -m benchmarks.cli_start", description=main.__doc__)
    parser.add_argument("--home", type=Path, required=True, help="a home where the domain is prepared")
    parser.add_argument("--domain", default="faq")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    rounds, loads = [], []
    for _ in range(args.repeats):
        loads.append(os.getloadavg()[0])
        rounds.append(cli_times(args.home.resolve(), args.domain))
    result: dict = {
        name: {
            "median_s": round(statistics.median(r[name] for r in rounds), 3),
            "max_s": round(max(r[name] for r in rounds), 3),
            "target_s": target,
        }
        for name, target in TARGETS_S.items()
    }
    result["load_average_1min"] = {"median": round(statistics.median(loads), 2), "max": round(max(loads), 2)}
    result["repeats"] = args.repeats
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
