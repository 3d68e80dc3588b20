"""Bad command-line arguments: every one must end with one error line and exit code 2 (a few, such as the
end of input in `rank demo`, end cleanly with 0), never a traceback or a hang.

``bad_argument_cases`` builds the corpus (its files in a folder of their own); ``run_cases`` runs each case
in this process through click's test runner with a watchdog, and classifies the outcome.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from click.testing import CliRunner

HUGE_INT = "9" * 5000  # more digits than Python's int() accepts from text (4,300)
NUMBERS = ["nan", "inf", "-inf", "-1", "abc", "1e999", HUGE_INT, ""]


@dataclass(frozen=True)
class Case:
    name: str
    argv: tuple[str, ...]
    stdin: str = ""
    exit_codes: tuple[int, ...] = (2,)


@dataclass
class Outcome:
    case: Case
    exit_code: int | None
    seconds: float
    traceback: bool = False
    hang: bool = False
    error_lines: int = 0
    problem: str = ""

    @property
    def ok(self) -> bool:
        return not self.problem


@dataclass
class Figures:
    outcomes: list[Outcome] = field(default_factory=list)

    def summary(self) -> dict:
        bad = [o for o in self.outcomes if not o.ok]
        return {
            "bad_arguments": len(self.outcomes),
            "tracebacks": sum(o.traceback for o in self.outcomes),
            "hangs": sum(o.hang for o in self.outcomes),
            "wrong_exit_or_message": sum(1 for o in bad if not o.traceback and not o.hang),
            "failures": [
                {"case": o.case.name, "argv": [a[:80] for a in o.case.argv], "problem": o.problem[:300]} for o in bad
            ],
        }


def _write(path: Path, data: str | bytes) -> str:
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return str(path)


def bad_argument_cases(work: Path, domain: str = "bank", trained: str | None = None) -> list[Case]:
    """The corpus; ``domain`` is a built domain to import into, ``trained`` (optional) one with models."""
    work.mkdir(parents=True, exist_ok=True)
    w = work
    good_queries = _write(w / "queries.csv", "label,text\ncard_arrival,where is my card\n")
    files = {
        "missing": str(w / "missing.csv"),
        "folder": str(w),
        "dev-null": os.devnull,
        "dev-zero": "/dev/zero",
        "empty": _write(w / "empty.csv", ""),
        "binary": _write(w / "binary.csv", bytes(range(256)) * 4),
        "latin-1": _write(w / "latin1.csv", "label,text\ncard_arrival,caf\xe9\n".encode("latin-1")),
        "utf-16": _write(w / "utf16.csv", "label,text\ncard_arrival,x\n".encode("utf-16")),
        "field-over-128k": _write(w / "big.csv", 'label,text\ncard_arrival,"' + "x" * 140_000 + '"\n'),
        "json-huge-int": _write(w / "big.jsonl", '{"label": "card_arrival", "text": "x", "count": ' + HUGE_INT + "}\n"),
        "count-inf": _write(w / "inf.csv", "label,tag,answer,count\ncard_arrival,lost card,yes,1e39\n"),
        "unclosed-quote": _write(w / "quote.csv", 'label,text\ncard_arrival,"where\n'),
        "labelstudio-not-list": _write(w / "ls.json", '{"a": 1}'),
        "labelstudio-deep": _write(w / "deep.json", "[" * 100_000),
    }
    if hasattr(os, "mkfifo"):
        fifo = w / "fifo.csv"
        if not fifo.exists():
            os.mkfifo(fifo)
        files["fifo"] = str(fifo)
    cases: list[Case] = []
    for kind, path in files.items():
        for fmt in ("csv", "mturk", "labelstudio"):
            cases.append(Case(f"import {fmt} {kind}", ("import", fmt, path, "--domain", domain)))
    cases += [
        Case("import into a missing domain", ("import", "csv", good_queries, "--domain", "nowhere")),
        Case("import bad domain name", ("import", "csv", good_queries, "--domain", "../etc")),
        Case("import bad kind", ("import", "csv", good_queries, "--domain", domain, "--kind", "spam")),
        Case("import bad split", ("import", "csv", good_queries, "--domain", domain, "--split", "x")),
    ]
    for value in NUMBERS:
        cases.append(
            Case(f"import --alpha {value[:10]}", ("import", "csv", good_queries, "-d", domain, "--alpha", value))
        )
    templates = {
        "missing": str(w / "none.json"),
        "folder": str(w),
        "fifo": files.get("fifo", str(w / "none.json")),
        "not-json": _write(w / "t1.json", "{rules"),
        "not-utf8": _write(w / "t2.json", b"\xff\xfe{}"),
        "huge-int": _write(w / "t3.json", '{"rules": [' + HUGE_INT + "]}"),
        "no-rules": _write(w / "t4.json", "{}"),
        "bad-regex": _write(w / "t5.json", json.dumps({"rules": [{"match": "(", "binary": "{tag}?"}]})),
        "bad-format": _write(w / "t6.json", json.dumps({"rules": [{"match": ".*", "binary": "{tag:d}?"}]})),
        "attribute": _write(w / "t7.json", json.dumps({"rules": [{"match": ".*", "binary": "{tag.upper}?"}]})),
        "wrong-type": _write(w / "t8.json", json.dumps({"rules": [{"match": ".*", "binary": ["x"]}]})),
        "wide": _write(w / "t9.json", json.dumps({"rules": [{"match": ".*", "binary": "{tag:>999999999}"}]})),
        "backtracking": _write(w / "t10.json", json.dumps({"rules": [{"match": "^(a|aa)+$", "binary": "{tag}?"}]})),
    }
    backtrack_tags = _write(w / "atags.csv", "label,tag,answer\ncard_arrival," + "a" * 64 + "b,yes\n")
    for kind, path in templates.items():
        source = backtrack_tags if kind == "backtracking" else good_queries
        cases.append(Case(f"import --templates {kind}", ("import", "csv", source, "-d", domain, "--templates", path)))

    name_cases = ["", "UPPER", "../x", "a" * 100, "x y", "caf\xe9", "nowhere"]
    for name in name_cases:
        label = name[:12] or "empty"
        cases += [
            Case(f"domain stats {label}", ("domain", "stats", name)),
            Case(f"sessions {label}", ("sessions", name)),
            Case(f"ask {label}", ("ask", name, "where is my card")),
            Case(f"export {label}", ("export", "tasks", "--domain", name, "--out", str(w / "t.csv"))),
        ]
    cases += [Case("domain build unknown", ("domain", "build", "nowhere")), Case("prepare unknown", ("prepare", "x"))]

    model_domain = trained or domain
    for value in NUMBERS:
        short = value[:10] or "empty"
        cases += [
            Case(f"evaluate --seed {short}", ("evaluate", model_domain, "--seed", value)),
            Case(f"evaluate --episodes {short}", ("evaluate", model_domain, "--episodes", value)),
            Case(f"ask --resume {short}", ("ask", model_domain, "--resume", value)),
            Case(f"rank evaluate --t {short}", ("rank", "evaluate", "beer", "--t", value)),
            Case(f"rank demo --threshold {short}", ("rank", "demo", "beer", "--threshold", value)),
        ]
    for value in [v for v in NUMBERS if v != "-1"]:  # -1 is a valid reward per question: that would train
        short = value[:10] or "empty"
        cases.append(
            Case(f"train policy --turn-reward {short}", ("train", "policy", model_domain, "--turn-reward", value))
        )
    cases += [
        Case("evaluate --episodes 0", ("evaluate", model_domain, "--episodes", "0")),
        Case("evaluate --max-turns 0", ("evaluate", model_domain, "--max-turns", "0")),
        Case("evaluate --systems ,", ("evaluate", model_domain, "--systems", ",")),
        Case("evaluate --systems spam", ("evaluate", model_domain, "--systems", "ours,spam")),
        Case("evaluate --candidates spam", ("evaluate", model_domain, "--candidates", "spam")),
        Case("evaluate --prior spam", ("evaluate", model_domain, "--prior", "spam")),
        Case("train policy --iterations 0", ("train", "policy", model_domain, "--iterations", "0")),
        Case("train policy --turn-budget -1", ("train", "policy", model_domain, "--turn-budget", "-1")),
        Case("train policy --variant spam", ("train", "policy", model_domain, "--variant", "spam")),
        Case("ask --top 0", ("ask", model_domain, "x", "--top", "0")),
        Case("ask without a query", ("ask", model_domain)),
        Case("ask --resume unknown", ("ask", model_domain, "--resume", "999999"), "q\n"),
        Case("sessions --status spam", ("sessions", model_domain, "--status", "spam")),
        Case("export --per-label 0", ("export", "tasks", "-d", domain, "--out", str(w / "t.csv"), "--per-label", "0")),
        Case("export --kind spam", ("export", "tasks", "-d", domain, "--out", str(w / "t.csv"), "--kind", "spam")),
    ]
    for option in ("--json", "--csv", "--plot"):
        cases += [
            Case(f"evaluate {option} missing folder", ("evaluate", model_domain, option, str(w / "no" / "out.x"))),
            Case(f"evaluate {option} a folder", ("evaluate", model_domain, option, str(w))),
            Case(f"evaluate {option} below a file", ("evaluate", model_domain, option, str(w / "empty.csv" / "x"))),
        ]
    cases += [
        Case("export --out missing folder", ("export", "tasks", "-d", domain, "--out", str(w / "no" / "t.csv"))),
        Case("export --out a folder", ("export", "tasks", "-d", domain, "--out", str(w))),
        Case(
            "export --layout missing folder",
            ("export", "tasks", "-d", domain, "-o", str(w / "t.csv"), "--layout", str(w / "no" / "l.html")),
        ),
        Case("rank evaluate --json below a file", ("rank", "evaluate", "beer", "--json", str(w / "empty.csv" / "x"))),
        Case("rank evaluate --plot a folder", ("rank", "evaluate", "beer", "--plot", str(w))),
    ]
    too_big = "9223372036854775808"  # 2**63: no SQLite integer (issue 27)
    cases += [
        Case("ask --resume 2**63", ("ask", model_domain, "--resume", too_big)),
        Case("summarize --resume 2**63", ("summarize", "compare", "--domain", domain, "--resume", too_big)),
    ]
    for seed in ("-5", "99999999999999999999"):
        cases += [
            Case(f"learn update --seed {seed[:10]}", ("learn", "update", model_domain, "--seed", seed)),
            Case(
                f"learn suggest --seed {seed[:10]}",
                ("learn", "suggest", model_domain, "--out", str(w / "s.csv"), "--seed", seed),
            ),
        ]
    if trained:
        cases += [
            Case("ask a query that is not UTF-8", ("ask", trained, "pass\udcffword"), "q\n"),
            Case(
                "ask then add 1 MB of words",
                ("ask", trained, "my card", "--json-lines"),
                "a " + "word " * 200_000 + "\nq\n",
                exit_codes=(0,),
            ),
        ]
    queries = {
        "missing": str(w / "none.tsv"),
        "folder": str(w),
        "dev-zero": "/dev/zero",
        "latin-1": _write(w / "q1.tsv", "label\tquery\ncard_arrival\tcaf\xe9\n".encode("latin-1")),
        "utf-16": _write(w / "q2.tsv", "label\tquery\ncard_arrival\tx\n".encode("utf-16")),
        "field-over-128k": _write(w / "q3.tsv", "label\tquery\ncard_arrival\t" + "x" * 140_000 + "\n"),
        "no-header": _write(w / "q4.tsv", "card_arrival\twhere\n"),
        "unknown-label": _write(w / "q5.tsv", "label\tquery\nspam\twhere is it\n"),
        "empty-query": _write(w / "q6.tsv", "label\tquery\ncard_arrival\t \n"),
        "no-words": _write(w / "q7.tsv", "label\tquery\ncard_arrival\t?!?\n"),
        "too-long": _write(w / "q8.tsv", "label\tquery\ncard_arrival\t" + "word " * 400 + "\n"),
        "no-rows": _write(w / "q9.tsv", "label\tquery\n"),
    }
    if "fifo" in files:
        queries["fifo"] = files["fifo"]
    for kind, path in queries.items():
        cases.append(Case(f"evaluate --queries {kind}", ("evaluate", model_domain, "--queries", path)))
    cases += [
        Case("ask a query without words", ("ask", model_domain, "?!? ..."), "q\n"),
        Case("ask an empty query", ("ask", model_domain, "   "), "q\n"),
        Case("ask a query of 5,000 characters", ("ask", model_domain, "card " * 1000), "q\n"),
        Case("rank unknown data set", ("rank", "evaluate", "spam")),
        Case("rank demo unknown data set", ("rank", "demo", "spam")),
        Case("rank bad strategies", ("rank", "evaluate", "beer", "--strategies", "spam")),
        Case("rank bad models", ("rank", "evaluate", "beer", "--models", "spam")),
        Case("rank bad split", ("rank", "evaluate", "beer", "--split", "spam")),
        Case("rank --candidates 1", ("rank", "evaluate", "beer", "--candidates", "1")),
        Case("rank semeval without data", ("rank", "evaluate", "semeval", "--data-dir", str(w / "no"))),
        Case("summarize --resume unknown", ("summarize", "compare", "--resume", "424242")),
        Case("summarize unknown bundled", ("summarize", "compare", "--bundled", "spam/none")),
        Case("summarize missing file", ("summarize", "compare", str(w / "none.txt"))),
        Case("unknown command", ("spam",)),
        Case("unknown option", ("domain", "list", "--spam")),
    ]
    return cases + desk_cases(w, model_domain)


def _nested_markdown(depth: int) -> str:
    """A Markdown FAQ of three entries, the first with a list nested ``depth`` levels deep."""
    lines = ["# FAQ", "", "## How do I renew a book?", "", "Online:", ""]
    lines += ["  " * i + f"- step {i}" for i in range(depth)]
    lines += [
        "",
        "## How many books can I borrow?",
        "",
        "Twenty.",
        "",
        "## Where do I return them?",
        "",
        "At the desk.",
    ]
    return "\n".join(lines) + "\n"


def desk_cases(w: Path, model_domain: str) -> list[Case]:
    """A desk's own FAQ files and the desk's commands (issue 34): each is refused with one error line and exit
    code 2 before any work, and nothing is written."""
    faq = _write(w / "faq.csv", "title,answer\nHow do I renew a book?,Online.\nWhere do I return them?,At the desk.\n")
    big_field = _write(w / "faq-big.csv", 'title,answer\nHow do I renew?,"' + "x" * 140_000 + '"\n')
    return [
        Case("domain create --from empty", ("domain", "create", "desk_x", "--from", "")),
        Case("domain create --from missing", ("domain", "create", "desk_x", "--from", str(w / "none.csv"))),
        Case(
            "domain create --from /dev/zero", ("domain", "create", "desk_x", "--from", "/dev/zero", "--format", "csv")
        ),
        Case("domain create --title 100,000", ("domain", "create", "desk_x", "--from", faq, "--title", "t" * 100_000)),
        Case("domain create --title a line break", ("domain", "create", "desk_x", "--from", faq, "--title", "a\nb")),
        Case("domain create field-over-128k", ("domain", "create", "desk_x", "--from", big_field)),
        Case(
            "domain create markdown nested 12",
            ("domain", "create", "desk_x", "--from", _write(w / "nested12.md", _nested_markdown(12))),
        ),
        Case(
            "domain create markdown nested 5000",
            ("domain", "create", "desk_x", "--from", _write(w / "nested5000.md", _nested_markdown(5000))),
        ),
        Case("domain update missing domain", ("domain", "update", "desk_none", "--from", faq)),
        Case("domain create a bundled name", ("domain", "create", "faq", "--from", faq)),
        Case("domain create without a name", ("domain", "create")),
        Case("learn sessions --seed 10**20", ("learn", "sessions", model_domain, "--seed", "99999999999999999999")),
        Case("learn sessions --min 0", ("learn", "sessions", model_domain, "--min", "0")),
        Case("learn suggest --out a folder", ("learn", "suggest", model_domain, "--out", str(w))),
        Case("cold-start evaluate --json a folder", ("cold-start", "evaluate", "faq-texts", "--json", str(w))),
        Case("cold-start evaluate --episodes 0", ("cold-start", "evaluate", "faq-texts", "--episodes", "0")),
        Case("inbox unknown domain", ("inbox", "desk_none")),
    ]


def run_case(case: Case, timeout: float = 300.0, release: list[str] | None = None) -> Outcome:
    """Run one case in this process; a case still running after ``timeout`` seconds is a hang (its FIFOs in
    ``release`` are then opened for writing, which lets a blocked reader go)."""
    runner = CliRunner()
    box: dict = {}

    def target() -> None:
        from assistant.cli import main

        box["result"] = runner.invoke(main, list(case.argv), input=case.stdin)

    start = time.perf_counter()
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout)
    seconds = time.perf_counter() - start
    if thread.is_alive():
        for fifo in release or ():
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(10)
        return Outcome(case, None, seconds, hang=True, problem=f"still running after {timeout:.0f} s")
    result = box["result"]
    stderr = result.stderr
    error_lines = sum(1 for line in stderr.splitlines() if line.lower().startswith("error:"))
    outcome = Outcome(case, result.exit_code, seconds, error_lines=error_lines)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        outcome.traceback = True
        outcome.problem = f"{type(result.exception).__name__}: {result.exception}"
    elif result.exit_code not in case.exit_codes:
        outcome.problem = f"exit code {result.exit_code}, expected {case.exit_codes}: {stderr.strip()[-300:]}"
    elif result.exit_code == 2 and (error_lines != 1 or "Usage:" in stderr):
        outcome.problem = f"{error_lines} error lines: {stderr.strip()[-300:]}"
    return outcome


def run_cases(cases: list[Case], timeout: float = 300.0) -> Figures:
    fifos = sorted({a for c in cases for a in c.argv if a.endswith("fifo.csv")})
    figures = Figures()
    for case in cases:
        figures.outcomes.append(run_case(case, timeout, fifos))
    return figures
