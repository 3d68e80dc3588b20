"""Generated malformed import files: every importer (plain CSV/TSV/JSONL, MTurk, Label Studio) gets valid
seed files damaged by hypothesis-drawn edits, and each one is imported into a real domain.

An outcome is fine when the import either succeeds or fails with a ClarifyError of one line, within the
time limit, and a failed import leaves the database's full SQL dump exactly as it was (all-or-nothing).
Anything else is a crash (another exception), a hang, or a partial import.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.reliability.environment import REPO, dump

SEEDS_DIR = REPO / "tests" / "data" / "crowd"
# (seed file, format, suffix of the damaged copy): every importer and every plain-file flavour
SEEDS = [
    ("tags_bank.csv", "csv", ".csv"),
    ("queries_bank.csv", "csv", ".csv"),
    ("tags_bank.jsonl", "csv", ".jsonl"),
    ("tags_bank.csv", "csv", ".tsv"),  # turned into TSV below
    ("mturk_tags_bank.csv", "mturk", ".csv"),
    ("mturk_queries_bank.csv", "mturk", ".csv"),
    ("mturk_choice_bank.csv", "mturk", ".csv"),
    ("labelstudio_tags_bank.json", "labelstudio", ".json"),
    ("labelstudio_queries_bank.json", "labelstudio", ".json"),
]
HOSTILE = [
    "\x00", '"', '""', "'", ",", "\t", "\r", "\n", "\r\n", "\u2028", "\u0085", "\ufeff", "\\", "{", "}", "[", "]",
    "nan", "inf", "-1", "1e39", "3.4e38", "0", "9" * 5000, "=HYPERLINK(\"http://x\")", "+cmd|' /C calc'!A0",
    "'; DROP TABLE labels; --", "\udcff", "\U0001f600", "a" * 140_000, "null", "true", "{{tag}}", "%s",
]  # fmt: skip
EDITS = ("delete", "insert", "duplicate", "truncate", "swap_lines", "replace_cell", "encode")


def _seed_text(name: str, suffix: str) -> str:
    text = (SEEDS_DIR / name).read_text(encoding="utf-8")
    return text.replace(",", "\t") if suffix == ".tsv" else text


@st.composite
def damaged_files(draw) -> tuple[str, str, bytes, str]:
    """(format, suffix, bytes, kind of damage) of one damaged copy of a seed file."""
    name, fmt, suffix = draw(st.sampled_from(SEEDS))
    text = _seed_text(name, suffix)
    kinds: list[str] = []
    encoding = "utf-8"
    for _ in range(draw(st.integers(1, 3))):
        edit = draw(st.sampled_from(EDITS))
        at = draw(st.integers(0, len(text)))
        if edit == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 40)) :]
        elif edit == "insert":
            text = text[:at] + draw(st.sampled_from(HOSTILE)) + text[at:]
        elif edit == "duplicate":
            lines = text.split("\n")
            i = draw(st.integers(0, len(lines) - 1))
            text = "\n".join(lines[: i + 1] + lines[i:])
        elif edit == "truncate":
            text = text[:at]
        elif edit == "swap_lines":
            lines = text.split("\n")
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
        elif edit == "replace_cell":
            separators = [i for i, c in enumerate(text) if c in ",\t:"]
            if separators:
                i = draw(st.sampled_from(separators))
                end = min([j for j in separators if j > i] or [len(text)])
                text = text[: i + 1] + draw(st.sampled_from(HOSTILE)) + text[end:]
        else:
            encoding = draw(st.sampled_from(["latin-1", "utf-16", "utf-32", "cp1252", "utf-8-sig"]))
        kinds.append(edit)
    data = text.encode(encoding, errors="replace") if encoding != "utf-8" else text.encode("utf-8", "surrogatepass")
    return fmt, suffix, data, f"{fmt}{suffix}:" + "+".join(sorted(set(kinds)))


@dataclass
class Figures:
    tried: int = 0
    accepted: int = 0
    rejected: int = 0
    crashes: int = 0
    hangs: int = 0
    partial_imports: int = 0
    kinds: Counter = field(default_factory=Counter)
    failures: list[dict] = field(default_factory=list)

    def summary(self) -> dict:
        return {
            "files_tried": self.tried,
            "kinds_of_damage": len(self.kinds),
            "accepted": self.accepted,
            "rejected": self.rejected,
            "crashes": self.crashes,
            "hangs": self.hangs,
            "partial_imports": self.partial_imports,
            "failures": self.failures[:20],
        }


def import_with_watchdog(path: Path, domain: str, fmt: str, timeout: float) -> tuple[str, BaseException | None]:
    """('ok' | 'error' | 'hang', exception) of importing ``path``, in a thread with a time limit."""
    from assistant.progress import run_job
    from crowdsourcing.importing import import_file

    box: dict = {}

    def target() -> None:
        try:
            run_job(import_file(path, domain, fmt))
            box["status"] = "ok"
        except BaseException as exc:  # classified by the caller
            box["status"], box["error"] = "error", exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        return "hang", None
    return box["status"], box.get("error")


def probe_files(work: Path, domain: str, examples: int, seed: int = 0, timeout: float = 60.0) -> Figures:
    """Import ``examples`` damaged files into ``domain`` (built in CLARIFY_HOME); an accepted import is undone
    by restoring the database before the next file."""
    from assistant import paths
    from assistant.errors import ClarifyError

    work.mkdir(parents=True, exist_ok=True)
    db = paths.domain_db_path(domain)
    pristine = work / "pristine.db"
    shutil.copyfile(db, pristine)
    before = dump(domain)
    figures = Figures()

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(damaged_files())
    def one(example: tuple[str, str, bytes, str]) -> None:
        fmt, suffix, data, kind = example
        path = work / f"damaged{figures.tried % 7}{suffix}"  # a few names: the file name is part of the task key
        path.write_bytes(data)
        figures.tried += 1
        figures.kinds[kind] += 1
        start = time.perf_counter()
        status, error = import_with_watchdog(path, domain, fmt, timeout)
        seconds = time.perf_counter() - start
        problem = ""
        if status == "hang":
            figures.hangs += 1
            problem = f"still running after {timeout:.0f} s"
        elif status == "ok":
            figures.accepted += 1
        elif not isinstance(error, ClarifyError) or not str(error) or "\n" in str(error).strip():
            figures.crashes += 1
            problem = f"{type(error).__name__}: {str(error)[:300]}"
        else:
            figures.rejected += 1
            if dump(domain) != before:
                figures.partial_imports += 1
                problem = f"the failed import changed the database: {str(error)[:200]}"
        if problem:
            keep = work / f"failure-{len(figures.failures)}{suffix}"
            keep.write_bytes(data)
            figures.failures.append({"kind": kind, "file": str(keep), "seconds": round(seconds, 2), "problem": problem})
        if status != "error":  # accepted (or unknown after a hang): start the next file from the same database
            shutil.copyfile(pristine, db)

    one()
    return figures
