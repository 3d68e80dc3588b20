"""What the commands print and write (issue 27, items 5, 6, 7 and 10).

- *terminal*: label names, session queries and import problems holding escape sequences (OSC title, OSC 52
  clipboard, CSI clear screen, their 8-bit forms) are printed by real commands; any raw ESC, BEL, C1 or CR
  in their output is a *raw escape*; an import of a symbolic link to a secret must not quote the secret;
- *output targets*: `export tasks`, `export unanswered` and `learn suggest` get --out (and --layout) that is
  a FIFO, a device node of the probe's own, a symbolic link, a dangling one or a folder: each must end with
  one error line, exit 2 and leave the target as it was (*replaced* if not); an existing 0600 file keeps
  its mode;
- *closed pipe*: `clarify sessions` whose reader is gone ends with 141 and no error line;
- *wide header*: an import whose header has 200,000 columns is refused (the seconds it took are reported).
"""

from __future__ import annotations

import os
import stat
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.reliability.arguments import Case, run_case
from benchmarks.reliability.environment import clarify_command, clarify_env

TITLE, CLEAR, CLIPBOARD, C1 = "\x1b]0;owned\x07", "\x1b[2J\x1b[H", "\x1b]52;c;aGFja2Vk\x1b\\", "\x9b31m\x9d0;x\x9c"
HOSTILE = TITLE + CLEAR + CLIPBOARD + C1
RAW = ("\x1b", "\x07", "\x9b", "\x9d", "\x9c", "\r")
SECRET = "SECRET-FIRST-LINE hunter2"


@dataclass
class Figures:
    terminal_checks: int = 0
    raw_escapes: int = 0
    output_targets: int = 0
    replaced: int = 0
    pipe_checks: int = 0
    pipe_errors: int = 0
    wide_header_seconds: float = 0.0
    wide_header_refused: bool = False
    added_words_checks: int = 0
    added_words_stored: int = 0
    failures: list[str] = field(default_factory=list)

    def summary(self) -> dict:
        return {
            "terminal_checks": self.terminal_checks,
            "raw_escapes": self.raw_escapes,
            "output_targets": self.output_targets,
            "outputs_replaced": self.replaced,
            "closed_pipe_checks": self.pipe_checks,
            "closed_pipe_errors": self.pipe_errors,
            "wide_header_refused": self.wide_header_refused,
            "added_words_checks": self.added_words_checks,
            "added_words_stored": self.added_words_stored,
            "wide_header_seconds": round(self.wide_header_seconds, 2),
            "failures": self.failures[:20],
        }


def _check_clean(figures: Figures, what: str, *texts: str) -> None:
    figures.terminal_checks += 1
    found = sorted({repr(c) for text in texts for c in RAW if c in text})
    if found:
        figures.raw_escapes += 1
        figures.failures.append(f"{what}: raw {', '.join(found)}")


def probe_terminal(work: Path, domain: str, trained: str | None = None, figures: Figures | None = None) -> Figures:
    """Hostile texts through real commands (in this process, CLARIFY_HOME as set by the caller)."""
    from click.testing import CliRunner

    from assistant.cli import main
    from assistant.store import KnowledgeBase, SessionLog

    figures = figures or Figures()
    work.mkdir(parents=True, exist_ok=True)
    runner = CliRunner()
    labels = work / "hostile-labels.csv"
    labels.write_text(
        f"label,name,text\nhostile_one,Refund{HOSTILE},How do I get my money{HOSTILE} back?\n"
        f"hostile_two,Log-in{TITLE},I cannot log in{CLEAR}\n",
        encoding="utf-8",
    )
    result = runner.invoke(main, ["import", "csv", str(labels), "--domain", "hostile", "--kind", "labels"])
    _check_clean(figures, "import of hostile labels", result.stdout, result.stderr)
    with KnowledgeBase.open(domain) as kb:
        SessionLog(kb).create(f"where is my card{HOSTILE}", {})
    for argv in (["sessions", domain], ["domain", "stats", "hostile"], ["domain", "list"]):
        result = runner.invoke(main, argv)
        _check_clean(figures, " ".join(argv), result.stdout, result.stderr)
    header = work / "hostile-header.csv"
    header.write_text(f"label,answer,tag{HOSTILE}\ncard_arrival,yes,lost card\n", encoding="utf-8")
    result = runner.invoke(main, ["import", "csv", str(header), "--domain", domain, "--kind", "tags"])
    _check_clean(figures, "import problem quoting a hostile header", result.stdout, result.stderr)
    secret, link = work / "id_secret", work / "innocent.csv"
    secret.write_text(f"{SECRET}\nsecond line\n", encoding="utf-8")
    link.unlink(missing_ok=True)
    link.symlink_to(secret)
    result = runner.invoke(main, ["import", "csv", str(link), "--domain", domain])
    figures.terminal_checks += 1
    if "hunter2" in result.output or result.exit_code != 2:
        figures.raw_escapes += 1
        figures.failures.append(
            f"import of a symbolic link to a secret: exit {result.exit_code}, {result.output[-200:]}"
        )
    if trained:
        result = runner.invoke(main, ["ask", trained, f"my card{HOSTILE} has not arrived"], input="s\nd\nq\n")
        _check_clean(figures, f"ask {trained} with a hostile query", result.stdout, result.stderr)
        _probe_added_words(runner, main, trained, figures)
    return figures


def _probe_added_words(runner, main, domain: str, figures: Figures) -> None:
    """1 MB of added words (`a WORDS`) must be refused like a 1 MB query, and never stored."""
    import json

    from assistant.store import KnowledgeBase, SessionLog

    result = runner.invoke(main, ["ask", domain, "my card", "--json-lines"], input="a " + "word " * 200_000 + "\nq\n")
    figures.added_words_checks += 1
    try:
        session = json.loads(result.stdout.splitlines()[0])["id"]
        with KnowledgeBase.open(domain) as kb:
            stored = [kind for kind, _ in SessionLog(kb).entries(session) if kind == "words"]
    except (IndexError, ValueError, KeyError) as exc:
        stored = [f"no session ({exc}): {result.output[-200:]}"]
    if stored or result.exit_code != 0:
        figures.added_words_stored += 1
        figures.failures.append(f"1 MB of added words: exit {result.exit_code}, stored {stored[:1]}")


def _private_null(where: Path) -> Path | None:
    try:
        os.mknod(where, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # never /dev/null itself
    except (PermissionError, AttributeError, OSError):
        return None
    return where


def _target(work: Path, kind: str) -> Path | None:
    where = work / f"out-{kind.replace(' ', '-')}.csv"
    if where.is_dir():
        where.rmdir()
    elif where.exists() or where.is_symlink():
        where.unlink()
    if kind == "fifo":
        os.mkfifo(where)
    elif kind == "device":
        return _private_null(where)
    elif kind == "symlink":
        where.symlink_to(work / "secret.txt")
    elif kind == "dangling symlink":
        where.symlink_to(work / "created-through-the-link.csv")
    else:
        where.mkdir()
    return where


def probe_output_targets(work: Path, domain: str, figures: Figures | None = None) -> Figures:
    """Every output option of the exporting commands given what it must not replace."""
    figures = figures or Figures()
    work.mkdir(parents=True, exist_ok=True)
    (work / "secret.txt").write_text("keep me\n")
    commands = {
        "export tasks --out": ("export", "tasks", "--domain", domain, "--out"),
        "export unanswered --out": ("export", "unanswered", "--domain", domain, "--out"),
        "learn suggest --out": ("learn", "suggest", domain, "--out"),
        "export tasks --layout": ("export", "tasks", "--domain", domain, "--out", str(work / "ok.csv"), "--layout"),
    }
    for name, argv in commands.items():
        for kind in ("fifo", "device", "symlink", "dangling symlink", "folder"):
            where = _target(work, kind)
            if where is None:
                continue  # no device nodes without root
            before = os.lstat(where)
            outcome = run_case(Case(f"{name} {kind}", (*argv, str(where))), timeout=120, release=[str(where)])
            after = os.lstat(where)
            figures.output_targets += 1
            unchanged = (stat.S_IFMT(after.st_mode), after.st_ino) == (stat.S_IFMT(before.st_mode), before.st_ino)
            kept = (work / "secret.txt").read_text() == "keep me\n" and not (
                work / "created-through-the-link.csv"
            ).exists()
            if not (outcome.ok and unchanged and kept):
                figures.replaced += 1
                figures.failures.append(f"{name} {kind}: {outcome.problem or 'the target changed'}")
    existing = work / "mode-600.csv"
    existing.write_text("old\n")
    existing.chmod(0o600)
    outcome = run_case(
        Case(
            "export tasks into a 0600 file",
            ("export", "tasks", "--domain", domain, "--out", str(existing)),
            exit_codes=(0,),
        )
    )
    figures.output_targets += 1
    if not outcome.ok or stat.S_IMODE(existing.stat().st_mode) != 0o600:
        figures.replaced += 1
        figures.failures.append(f"export into a 0600 file: {outcome.problem or oct(existing.stat().st_mode)}")
    return figures


def probe_closed_pipe(home: Path, domain: str, figures: Figures | None = None) -> Figures:
    """`clarify sessions DOMAIN` whose reader closed the pipe before the first line."""
    from assistant.store import KnowledgeBase, SessionLog

    figures = figures or Figures()
    with KnowledgeBase(home / "domains" / f"{domain}.db", domain) as kb:
        SessionLog(kb).create("a session to list", {})  # something to print into the closed pipe
    proc = subprocess.Popen(
        clarify_command("sessions", domain), env=clarify_env(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None and proc.stderr is not None  # both PIPE
    proc.stdout.close()
    stderr = proc.stderr.read().decode(errors="replace")
    code = proc.wait(timeout=120)
    figures.pipe_checks += 1
    if code != 141 or "error" in stderr.lower() or "Traceback" in stderr:
        figures.pipe_errors += 1
        figures.failures.append(f"sessions into a closed pipe: exit {code}, {stderr[-200:]}")
    return figures


def probe_wide_header(work: Path, domain: str, columns: int = 200_000, figures: Figures | None = None) -> Figures:
    """An import whose header has ``columns`` columns: refused; how long it took."""
    figures = figures or Figures()
    path = work / "wide.csv"
    path.write_text(",".join(f"c{i}" for i in range(columns)) + "\n" + ",".join("x" * columns) + "\n")
    start = time.perf_counter()
    outcome = run_case(
        Case("import a 200,000-column header", ("import", "csv", str(path), "--domain", domain)), timeout=300
    )
    figures.wide_header_seconds = time.perf_counter() - start
    figures.wide_header_refused = outcome.ok and outcome.exit_code == 2
    if not figures.wide_header_refused:
        figures.failures.append(f"a 200,000-column header: {outcome.problem}")
    return figures
