"""What a bench run writes: one JSON per table, the figures, ``run.json`` (commit, seeds, package versions,
machine, each benchmark's status and wall time) and ``report.md`` with every table and figure.

Layout of the output folder::

    report.md                 the tables and figures of every benchmark, skipped data sets with the reason
    run.json                  environment + per benchmark: status, settings, seconds, skipped data sets
    tables/BENCH.TABLE.json   {benchmark, table, title, columns, timing, note, seed, quick, rows}
    figures/BENCH.NAME.png
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from assistant import paths

PACKAGES = (
    "clarify-assistant",
    "numpy",
    "scipy",
    "torch",
    "botorch",
    "gpytorch",
    "choix",
    "joblib",
    "threadpoolctl",
    "ray",
    "transformers",
    "sru",
    "matplotlib",
)


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=paths.REPO_ROOT, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def package_versions(names: Sequence[str] = PACKAGES) -> dict[str, str | None]:
    """Installed version of each package (None when it is not installed)."""
    out: dict[str, str | None] = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                return round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return None


def environment() -> dict[str, Any]:
    """The commit (and whether the tree had changes), package versions, the machine and its load."""
    status = _git("status", "--porcelain", "--untracked-files=no")
    return {
        "commit": _git("rev-parse", "HEAD"),
        "branch": _git("rev-parse", "--abbrev-ref", "HEAD"),
        "uncommitted_changes": None if status is None else bool(status),
        "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "command": " ".join(sys.argv),  # what docs/results.md says was run
        "python": platform.python_version(),
        "packages": package_versions(),
        "machine": {
            "platform": platform.platform(),
            "cpu": _cpu_model(),
            "cores": os.cpu_count(),
            "memory_gib": _memory_gib(),
            "load_average_1min_at_start": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        },
        "threads": {k: os.environ.get(k) for k in ("OPENBLAS_THREAD_TIMEOUT", "OMP_NUM_THREADS", "MKL_NUM_THREADS")},
    }


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) < 1e5 else f"{value:.3e}"
    if value is None:
        return "-"
    return str(value).replace("|", "\\|").replace("\n", " ")


def markdown_table(table) -> str:
    columns = table.column_names()
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in table.rows:
        lines.append("| " + " | ".join(_cell(row.get(c)) for c in columns) + " |")
    return "\n".join(lines)


def _table_json(result, table, quick: bool, seed: int) -> dict:
    return {
        "benchmark": result.name,
        "table": table.name,
        "title": table.title,
        "columns": table.column_names(),
        "timing": list(table.timing),
        "note": table.note,
        "seed": seed,
        "quick": quick,
        "rows": table.rows,
    }


def _section(result, out: Path) -> list[str]:
    lines = [f"## {result.name}: {result.title}", ""]
    settings = ", ".join(f"{k} = {v}" for k, v in result.settings.items()) or "none"
    lines.append(
        f"*{result.kind}; status {result.status}; {result.seconds:.1f} s wall, {result.cpu_seconds:.1f} s CPU; "
        f"settings: {settings}*"
    )
    lines.append("")
    if result.status != "ok":
        reason = result.reason.splitlines()[0] if result.reason else ""
        lines += [f"**{result.status}**: {reason}", ""]
    skipped = result.skipped_datasets
    if skipped:
        lines += ["Data sets left out:", ""] + [f"- {k}: {v}" for k, v in skipped.items()] + [""]
    if result.output is None:
        return lines
    if result.output.summary:
        lines += [f"> {result.output.summary}", ""]
    for table in result.output.tables:
        lines += [f"### {table.title}", "", markdown_table(table), ""]
        notes = [table.note] if table.note else []
        if table.timing:
            notes.append(f"timing columns (vary between runs): {', '.join(table.timing)}")
        if notes:
            lines += ["*" + "; ".join(notes) + "*", ""]
    for figure in result.output.figures:
        rel = Path("figures") / f"{result.name}.{figure.name}.png"
        if (out / rel).is_file():
            lines += [f"![{figure.caption}]({rel.as_posix()})", "", f"*{figure.caption}*", ""]
    return lines


def write_report(out: Path, results: Sequence, env: dict, quick: bool, seed: int, seconds: float) -> Path:
    """Write tables/, run.json and report.md for ``results`` (BenchResult) into ``out``; returns report.md."""
    tables_dir = out / "tables"
    tables_dir.mkdir(parents=True, exist_ok=True)
    for result in results:
        for table in result.output.tables if result.output else []:
            path = tables_dir / f"{result.name}.{table.name}.json"
            path.write_text(json.dumps(_table_json(result, table, quick, seed), indent=2))
    env = {**env, "load_average_1min_now": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None}
    run = {
        "quick": quick,
        "seed": seed,
        "wall_seconds": round(seconds, 1),
        "cpu_seconds": round(sum(r.cpu_seconds for r in results), 1),
        "environment": env,
        "benchmarks": [
            {
                "name": r.name,
                "kind": r.kind,
                "status": r.status,
                "reason": r.reason,
                "seconds": r.seconds,
                "cpu_seconds": r.cpu_seconds,
                "settings": r.settings,
                "skipped_datasets": r.skipped_datasets,
                "tables": [t.name for t in r.output.tables] if r.output else [],
                "summary": r.output.summary if r.output else "",
            }
            for r in results
        ],
    }
    (out / "run.json").write_text(json.dumps(run, indent=2, default=str))
    machine = env["machine"]
    load = (machine.get("load_average_1min_at_start"), env.get("load_average_1min_now"))
    lines = [
        "# Clarify bench report",
        "",
        f"- mode: {'quick' if quick else 'full'}; seed {seed}; wall time {seconds:.0f} s, "
        f"CPU time {sum(r.cpu_seconds for r in results):.0f} s",
        f"- commit {env.get('commit') or 'unknown'} ({env.get('branch')})"
        + (", with uncommitted changes" if env.get("uncommitted_changes") else ""),
        f"- machine: {machine['cpu']}, {machine['cores']} cores, {machine['memory_gib']} GiB; Python {env['python']}",
        f"- load average (1 min) at start / end: {load[0]} / {load[1]} on {machine['cores']} cores"
        + (
            " - a loaded machine: absolute times are inflated, ratios measured in the same run hold"
            if max(v or 0 for v in load) > 0.5 * (machine["cores"] or 1)
            else ""
        ),
        "- packages: " + ", ".join(f"{k} {v}" for k, v in env["packages"].items() if v),
        "",
        "| benchmark | kind | status | wall s | CPU s | skipped data sets |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        skipped = ", ".join(r.skipped_datasets) or "-"
        lines.append(f"| {r.name} | {r.kind} | {r.status} | {r.seconds:.1f} | {r.cpu_seconds:.1f} | {skipped} |")
    lines.append("")
    for r in results:
        lines += _section(r, out)
    path = out / "report.md"
    path.write_text("\n".join(lines))
    return path
