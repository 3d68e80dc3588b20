"""Run benchmarks: `python -m benchmarks [NAME ...] [--quick] [--out DIR]` (all when no name is given).

The same runner as `clarify bench run` (assistant.evaluation.bench): one JSON per table, the figures and a
Markdown report in --out (default bench-results). Data and models live in $CLARIFY_HOME when set, else in
bench-results/home (built and trained once, then reused). One benchmark alone, with its own options:
`python -m benchmarks.bench_NAME --help`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from benchmarks.common import HELP, run_command


def main(argv: list[str] | None = None) -> int:
    from assistant.app.research.bench import benchmarks_dir
    from assistant.evaluation.bench import discover

    names = sorted(discover(benchmarks_dir(Path(__file__).parent)))

    @click.command(
        name="python -m benchmarks",
        help=__doc__,
        epilog=f"NAME: {', '.join(names)} (default: all)",
        context_settings=HELP,
    )
    @click.argument("names", nargs=-1, metavar="[NAME]...")
    @click.option("--quick", is_flag=True, help="smaller problem sizes, for a smoke run")
    @click.option("--out", default="bench-results", show_default=True)
    @click.option("--seed", type=int, default=0, show_default=True)
    @click.option("--data-dir", default=None)
    def command(names: tuple[str, ...], quick: bool, out: str, seed: int, data_dir: str | None) -> int:
        return run_all(list(names), quick, out, seed, data_dir)

    return run_command(command, argv)


def run_all(names: list[str], quick: bool, out: str, seed: int, data_dir: str | None) -> int:
    from assistant.app.research.bench import bench_run_job
    from assistant.progress import run_job

    os.environ.setdefault("CLARIFY_HOME", str((Path(out) / "home").resolve()))

    def show(p):
        print(f"[{p.step}/{p.total}] {p.message}", file=sys.stderr, flush=True)

    job = bench_run_job(out, names, quick, seed, data_dir, None, Path(__file__).parent)
    results = run_job(job, show)
    for r in results:
        print(f"{r.name}: {r.status} in {r.seconds:.1f} s; {r.output.summary if r.output else r.reason}")
    print(f"wrote {out}/report.md")
    return 1 if any(r.status == "failed" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
