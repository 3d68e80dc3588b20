"""Hostile files, planted links and two desks at once (issue 41), each given to real `clarify` processes, so
that a native crash is counted (a negative exit code) instead of ending the probe:

- two `domain create desk` at once with different FAQs: exactly one creates it, whole; the other fails in one
  line ("created by another program meanwhile" or "exists already"); both saying "created" is a silent loss;
- links planted at the domain's lock and integrity stamp, pointing outside the home: refused or replaced,
  never written through (every file outside the home is compared before and after);
- an unclosed code fence in a Markdown FAQ and a domain name with a trailing newline: refused, nothing written;
- with a trained home: the crafted checkpoint (stride -(1 << 40)) over the served policy and a zip bomb over
  the encoder: `clarify ask` must answer (the models are replaced), never crash natively.
"""

from __future__ import annotations

import csv
import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.reliability.checkpoints import negative_stride_checkpoint, zip_bomb
from benchmarks.reliability.environment import clarify_command, clarify_env, copy_home, run_clarify, served_policy

EXAMPLE_FAQ = Path(__file__).resolve().parents[2] / "docs" / "examples" / "library-faq.csv"
UNCLOSED_FENCE = (
    "# Desk\n\n## How do I borrow?\n\nAt the desk:\n\n```\nborrow 1234\n\n## How do I print?\n\nThe station.\n"
)


@dataclass
class Figures:
    cases: int = 0
    native_crashes: int = 0
    tracebacks: int = 0
    writes_outside: int = 0
    silent_losses: int = 0
    hangs: int = 0
    failures: list[str] = field(default_factory=list)

    def check(
        self, name: str, done: subprocess.CompletedProcess | None, codes: tuple[int, ...], says: str = ""
    ) -> bool:
        """Count one command's outcome (None: it ran past its time, a hang); True when it exited as expected,
        without a traceback, saying ``says``."""
        self.cases += 1
        if done is None:
            self.hangs += 1
            self.failures.append(f"{name}: still running at its time limit")
            return False
        text = done.stdout + done.stderr
        if done.returncode < 0:
            self.native_crashes += 1
            self.failures.append(f"{name}: killed by signal {-done.returncode}")
            return False
        if "Traceback (most recent call last)" in text:
            self.tracebacks += 1
            self.failures.append(f"{name}: a traceback")
            return False
        if done.returncode not in codes or says not in text:
            self.failures.append(f"{name}: exit {done.returncode}, {' '.join(done.stderr.split())[:200]!r}")
            return False
        return True

    def summary(self) -> dict:
        counted = self.native_crashes + self.tracebacks + self.writes_outside + self.silent_losses + self.hangs
        return {"hostile_cases": self.cases, "native_crashes": self.native_crashes,
                "hostile_tracebacks": self.tracebacks, "writes_outside": self.writes_outside,
                "silent_losses": self.silent_losses, "hostile_hangs": self.hangs,
                "hostile_wrong": max(len(self.failures) - counted, 0), "failures": self.failures[:20]}  # fmt: skip


def _clarify(home: Path, *args: str, input: str = "", timeout: float = 300.0) -> subprocess.CompletedProcess | None:
    """`clarify ARGS` run to its end in ``home``; None when it is still running after ``timeout`` (a hang)."""
    try:
        return run_clarify(home, *args, input=input, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def _snapshot(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def _faqs(work: Path) -> tuple[Path, Path]:
    with EXAMPLE_FAQ.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    written = []
    for name, keep in (("first.csv", 6), ("second.csv", 9)):
        path = work / name
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows[:keep])
        written.append(path)
    return written[0], written[1]


def _entries(home: Path, name: str) -> int | None:
    done = _clarify(home, "domain", "stats", name, "--json")
    if done is None:
        return None
    try:
        import json

        return int(json.loads(done.stdout)["labels"])
    except (ValueError, KeyError, TypeError):
        return None


def probe_two_creates(work: Path, pairs: int, figures: Figures) -> None:
    first, second = _faqs(work)
    for i in range(pairs):
        home = work / f"creates-{i}"
        home.mkdir(parents=True)
        procs = [
            subprocess.Popen(clarify_command("domain", "create", "desk", "--from", str(faq)), env=clarify_env(home),
                             cwd=home, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for faq in (first, second)
        ]  # fmt: skip
        results = []
        for p in procs:
            try:
                out, err = p.communicate(timeout=600)
            except subprocess.TimeoutExpired:
                p.kill()
                out, err = p.communicate()
            results.append(subprocess.CompletedProcess(p.args, p.returncode, out, err))
        created = [r for r in results if r.returncode == 0]
        for n, r in enumerate(results):
            figures.check(f"two creates {i}: create {n + 1}", r, (0, 2))
        if len(created) != 1:
            figures.silent_losses += len(created) > 1
            figures.failures.append(f"two creates {i}: {len(created)} of 2 said created")
            continue
        refused = next(r for r in results if r.returncode != 0).stderr
        if "created by another program meanwhile; nothing written" not in refused and "exists already" not in refused:
            figures.failures.append(f"two creates {i}: the second said {' '.join(refused.split())[:200]!r}")
        winner = (6, 9)[results.index(created[0])]
        if _entries(home, "desk") != winner:
            figures.silent_losses += 1
            figures.failures.append(f"two creates {i}: the domain does not hold the created FAQ's {winner} entries")


def probe_planted_links(work: Path, figures: Figures) -> None:
    home, outside = work / "links-home", work / "outside"
    home.mkdir(parents=True)
    outside.mkdir(parents=True)
    first, second = _faqs(work)
    figures.check("links: create", _clarify(home, "domain", "create", "desk", "--from", str(first)), (0,))
    for name in ("lock-target.txt", "stamp-target.txt"):
        (outside / name).write_text("precious\n")
    domains = home / "domains"
    os.utime(domains / "desk.db", ns=(1_000_000_000, 1_000_000_000))  # settled: the next check writes its stamp
    for planted, target in ((".desk.lock", "lock-target.txt"), (".desk.db.checked", "stamp-target.txt")):
        (domains / planted).unlink(missing_ok=True)
        os.symlink(outside / target, domains / planted)
    before = _snapshot(outside)
    figures.check("links: stats", _clarify(home, "domain", "stats", "desk"), (0,))
    update = _clarify(home, "domain", "update", "desk", "--from", str(second), timeout=600)
    figures.check("links: update", update, (2,), "symbolic link")
    figures.check("links: sessions", _clarify(home, "sessions", "desk"), (0,))
    if _snapshot(outside) != before:
        figures.writes_outside += 1
        figures.failures.append("links: a file outside the home changed")


def probe_refused_inputs(work: Path, figures: Figures) -> None:
    home = work / "refused-home"
    home.mkdir(parents=True)
    fence = work / "fence.md"
    fence.write_text(UNCLOSED_FENCE, encoding="utf-8")
    first, _ = _faqs(work)
    figures.check("unclosed fence", _clarify(home, "domain", "create", "fence", "--from", str(fence)), (2,),
                  "never closed")  # fmt: skip
    figures.check("newline name", _clarify(home, "domain", "create", "desk\n", "--from", str(first)), (2,),
                  "invalid domain name")  # fmt: skip
    written = sorted(p.name for p in (home / "domains").glob("*")) if (home / "domains").exists() else []
    if any(not name.startswith(".") for name in written):
        figures.failures.append(f"refused inputs wrote {written}")


def probe_hostile_checkpoints(
    trained_home: Path, domain: str, work: Path, figures: Figures, timeout: float = 900.0
) -> None:
    damages = {
        "crafted policy (stride -(1 << 40))": (f"{served_policy(domain)}.pt", negative_stride_checkpoint),
        "encoder zip bomb (1 GiB deflated)": ("encoder.pt", lambda: zip_bomb(1 << 30)),
    }
    for i, (name, (file, content)) in enumerate(damages.items()):
        home = copy_home(trained_home, work / f"checkpoint-{i}", domain)
        (home / "models" / domain / file).write_bytes(content())
        done = _clarify(home, "ask", domain, "my card has not arrived", input="q\n", timeout=timeout)
        figures.check(f"{name}: ask", done, (0,), "Q1:")


def probe_hostile(
    work: Path, trained_home: Path | None, domain: str, pairs: int = 2, timeout: float = 900.0
) -> Figures:
    """Every case above in scratch folders under ``work`` (``timeout``: the most seconds an `ask` may take)."""
    work.mkdir(parents=True, exist_ok=True)
    figures = Figures()
    probe_refused_inputs(work, figures)
    probe_planted_links(work, figures)
    probe_two_creates(work, pairs, figures)
    if trained_home is not None:
        probe_hostile_checkpoints(trained_home, domain, work, figures, timeout)
    shutil.rmtree(work / "outside", ignore_errors=True)
    return figures
