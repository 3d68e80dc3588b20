"""``kill -9`` of real ``clarify ask --json-lines`` processes at random moments.

Each process answers as a quick person would (a random option for a question, a random side of a pair,
"y" to a proposal, the closest answers or a hand-off when nothing fits) and is killed at a random moment drawn from its start-up to a few answers in. The next
process resumes the killed session (``--resume ID``), which is the resume check, and is itself the next
victim; a finished session makes room for a new one. After each kill:

- *corrupted*: ``PRAGMA integrity_check`` of the knowledge base is not "ok";
- *answers lost*: the session log holds fewer of the person's actions than the processes acknowledged (an
  action is acknowledged when the process printed the event that follows it);
- *unresumable*: the next ``--resume`` exits with an error, or resumes another session.
"""

from __future__ import annotations

import json
import queue
import signal
import sqlite3
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from benchmarks.reliability.environment import clarify_command, clarify_env

AUTOMATIC = ("query", "stop", "decided")  # log entries the session writes by itself, not a person's actions
QUERIES = ["my card has not arrived", "how do I reset my password", "cancel my order", "where is it", "help"]


@dataclass
class Figures:
    kills: int = 0
    processes: int = 0
    sessions: int = 0
    finished: int = 0
    acknowledged: int = 0
    corrupted: int = 0
    unresumable: int = 0
    answers_lost: int = 0
    failures: list[dict] = field(default_factory=list)

    def summary(self) -> dict:
        return {
            "kills": self.kills,
            "processes": self.processes,
            "sessions": self.sessions,
            "sessions_finished": self.finished,
            "acknowledged_answers": self.acknowledged,
            "corrupted": self.corrupted,
            "unresumable": self.unresumable,
            "answers_lost": self.answers_lost,
            "failures": self.failures[:20],
        }


def _reader(stream, lines: queue.Queue) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def integrity(db: Path) -> str:
    with sqlite3.connect(db, timeout=60) as conn:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])


def logged_actions(db: Path, session_id: int) -> int:
    marks = ",".join("?" * len(AUTOMATIC))
    with sqlite3.connect(db, timeout=60) as conn:
        sql = f"SELECT COUNT(*) FROM turns WHERE session_id = ? AND kind NOT IN ({marks})"
        return int(conn.execute(sql, [session_id, *AUTOMATIC]).fetchone()[0])


class Person:
    """Answers the events of one process and counts the actions the process acknowledged."""

    def __init__(self, proc: subprocess.Popen, rng: np.random.Generator) -> None:
        self.proc, self.rng = proc, rng
        self.session_id: int | None = None
        self.pending = False
        self.acknowledged = 0
        self.final = False
        self.first_question: float | None = None
        self.errors: list[str] = []

    def _send(self, token: str) -> None:
        assert self.proc.stdin is not None  # started with stdin=PIPE
        try:
            self.proc.stdin.write(token + "\n")
            self.proc.stdin.flush()
            self.pending = True
        except (BrokenPipeError, OSError, ValueError):
            pass

    def handle(self, line: str, reply: bool, started: float) -> None:
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            self.errors.append(f"not JSON: {line[:200]!r}")
            return
        kind = event.get("type")
        if kind == "session":
            self.session_id = int(event["id"])
            return
        if kind == "error":
            self.errors.append(f"error event: {event.get('message', '')[:200]}")
            self.pending = False
            return
        if self.pending and kind in ("question", "shortlist", "pair", "proposal", "out_of_scope", "final"):
            self.acknowledged += 1  # the process showed what follows the action: it says the action is done
            self.pending = False
        if kind == "final":
            self.final = True
        if not reply:
            return
        if kind == "question":
            self.first_question = self.first_question or time.monotonic() - started
            n = max(len(event.get("options") or []), 1)
            self._send("s" if self.rng.random() < 0.1 else str(int(self.rng.integers(1, n + 1))))
        elif kind == "pair":
            self._send(str(self.rng.choice(["1", "2", "t"])))
        elif kind == "proposal":
            self._send("y")
        elif kind == "out_of_scope":  # "nothing fits": look at the closest answers, or hand it on (ends it)
            self._send(str(self.rng.choice(["c", "h"])))


def probe_kills(home: Path, domain: str, kills: int, seed: int = 0, timeout: float = 180.0) -> Figures:
    """Kill ``kills`` processes of `clarify ask DOMAIN --json-lines` in ``home`` (a trained domain)."""
    rng = np.random.default_rng(seed)
    db = home / "domains" / f"{domain}.db"
    env = clarify_env(home)
    figures = Figures()
    session_id: int | None = None
    acknowledged: dict[int, int] = {}
    ready = 15.0  # seconds from start to the first question, learned as processes get there
    while figures.kills < kills:
        resuming = session_id
        args = ["ask", domain, "--json-lines"]
        args += ["--resume", str(resuming)] if resuming is not None else [str(rng.choice(QUERIES))]
        kill_at = float(rng.uniform(0.0, ready * 1.3 + 3.0))
        figures.processes += 1
        attempt = _attempt(args, rng, env, home, kill_at, timeout)
        if attempt.person.first_question:
            ready = 0.7 * ready + 0.3 * attempt.person.first_question
        elif attempt.killed and attempt.elapsed >= ready:  # a slow machine: start-up takes longer than assumed
            ready *= 1.3
        if not _count_attempt(figures, attempt, resuming):
            session_id = None
            continue
        session_id = _check_the_log(figures, attempt, resuming, session_id, acknowledged, db)
    if session_id is not None:  # the last kill's resume check
        done = subprocess.run(
            clarify_command("ask", domain, "--json-lines", "--resume", str(session_id)),
            input="q\n", capture_output=True, text=True, env=env, cwd=home, timeout=timeout,
        )  # fmt: skip
        if done.returncode != 0 or f'"id": {session_id}' not in done.stdout:
            figures.unresumable += 1
            figures.failures.append({"problem": "last resume failed", "stderr": done.stderr[-400:]})
    return figures


@dataclass
class _Attempt:
    """One process of the probe: its arguments, the person who talked to it, whether it was killed, its
    exit status and stderr, and the seconds from its start to the end of its output."""

    args: list[str]
    person: Person
    killed: bool
    returncode: int | None
    stderr: str
    elapsed: float


def _attempt(args: list[str], rng, env, home: Path, kill_at: float, timeout: float) -> _Attempt:
    """Start `clarify ARGS`, talk to it as a person until ``kill_at`` seconds, then kill it (unless it ended)."""
    proc = subprocess.Popen(
        clarify_command(*args),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=home,
    )
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=_reader, args=(proc.stdout, lines), daemon=True).start()
    person = Person(proc, rng)
    started = time.monotonic()
    ended = False
    while time.monotonic() - started < kill_at:
        try:
            line = lines.get(timeout=0.05)
        except queue.Empty:
            continue
        if line is None:
            ended = True
            break
        person.handle(line, reply=True, started=started)
    killed = not ended and proc.poll() is None
    if killed:
        proc.send_signal(signal.SIGKILL)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    assert proc.stderr is not None  # stderr=PIPE
    stderr = proc.stderr.read()
    while True:  # what the process printed before it died still counts as said
        try:
            line = lines.get(timeout=1.0)
        except queue.Empty:
            break
        if line is None:
            break
        person.handle(line, reply=False, started=started)
    return _Attempt(args, person, killed, proc.returncode, stderr, time.monotonic() - started)


def _count_attempt(figures: Figures, attempt: _Attempt, resuming: int | None) -> bool:
    """Count a kill, a failure or a session that could not be resumed; False: the resume failed (start anew)."""
    person, args = attempt.person, attempt.args
    if attempt.killed:
        figures.kills += 1
    elif attempt.returncode != 0 or person.errors:
        figures.failures.append(
            {"argv": args, "exit": attempt.returncode, "stderr": attempt.stderr[-400:], "events": person.errors}
        )
    if resuming is not None and person.session_id not in (None, resuming):
        figures.unresumable += 1
        figures.failures.append({"argv": args, "problem": f"resumed session {person.session_id}"})
    elif resuming is not None and not attempt.killed and attempt.returncode != 0:
        figures.unresumable += 1
        figures.failures.append({"argv": args, "problem": "resume failed", "stderr": attempt.stderr[-400:]})
        return False
    return True


def _check_the_log(
    figures: Figures,
    attempt: _Attempt,
    resuming: int | None,
    session_id: int | None,
    acknowledged: dict[int, int],
    db: Path,
) -> int | None:
    """The database's integrity and the acknowledged actions in its log; the session to resume next."""
    person, args = attempt.person, attempt.args
    if person.session_id is not None:
        if person.session_id != resuming:
            figures.sessions += 1
        acknowledged[person.session_id] = acknowledged.get(person.session_id, 0) + person.acknowledged
        figures.acknowledged += person.acknowledged
        session_id = person.session_id
    check = integrity(db) if db.exists() else "ok"
    if check != "ok":
        figures.corrupted += 1
        figures.failures.append({"argv": args, "problem": f"integrity_check: {check[:300]}"})
    if session_id is not None and db.exists():
        lost = acknowledged[session_id] - logged_actions(db, session_id)
        if lost > 0:
            figures.answers_lost += lost
            figures.failures.append({"argv": args, "problem": f"{lost} acknowledged actions not in the log"})
    if person.final:
        figures.finished += 1
        session_id = None
    return session_id
