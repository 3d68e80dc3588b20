"""Run benchmarks: `python -m benchmarks [NAME ...] [--quick] [--out DIR]` (all when no name is given).

The same runner as `clarify bench run` (assistant.evaluation.bench): one JSON per table, the figures and a
Markdown report in --out (default bench-results). Data and models live in $CLARIFY_HOME when set, else in
bench-results/home (built and trained once, then reused). One benchmark alone, with its own options:
`python -m benchmarks.bench_NAME --help`.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    from assistant.app.bench import bench_run_job, benchmarks_dir
    from assistant.evaluation.bench import discover
    from assistant.progress import run_job

    names = sorted(discover(benchmarks_dir(Path(__file__).parent)))
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("names", nargs="*", help=f"benchmarks to run (default: all of {', '.join(names)})")
    parser.add_argument("--quick", action="store_true", help="smaller problem sizes, for a smoke run")
    parser.add_argument("--out", default="bench-results")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args(argv)
    os.environ.setdefault("CLARIFY_HOME", str((Path(args.out) / "home").resolve()))

    def show(p):
        print(f"[{p.step}/{p.total}] {p.message}", file=sys.stderr, flush=True)

    job = bench_run_job(args.out, args.names, args.quick, args.seed, args.data_dir, None, Path(__file__).parent)
    results = run_job(job, show)
    for r in results:
        print(f"{r.name}: {r.status} in {r.seconds:.1f} s; {r.output.summary if r.output else r.reason}")
    print(f"wrote {args.out}/report.md")
    return 1 if any(r.status == "failed" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
