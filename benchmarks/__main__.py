"""Run benchmarks: `python -m benchmarks [NAME ...] [--quick] [OPTIONS]` (all when no name is given).

Other options go to each named benchmark (`python -m benchmarks ranking_quality --split dev`). Results
are also written to bench-results/<name>.json. Data and models live in $CLARIFY_HOME when set, else in
bench-results/home for every benchmark (built and trained once, then reused).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import pkgutil
import sys
import time
from pathlib import Path

import benchmarks


def available() -> list[str]:
    return sorted(
        m.name.removeprefix("bench_") for m in pkgutil.iter_modules(benchmarks.__path__) if m.name.startswith("bench_")
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("names", nargs="*", help=f"benchmarks to run (default: all of {', '.join(available())})")
    parser.add_argument("--quick", action="store_true", help="smaller problem sizes, for a smoke run")
    args, passed = parser.parse_known_args(argv)
    names = args.names or available()
    unknown = sorted(set(names) - set(available()))
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(unknown)}; choose from {', '.join(available())}")
    out_dir = Path("bench-results")
    out_dir.mkdir(exist_ok=True)
    os.environ.setdefault("CLARIFY_HOME", str((out_dir / "home").resolve()))
    for name in names:
        module = importlib.import_module(f"benchmarks.bench_{name}")
        print(f"== {name}", file=sys.stderr)
        start = time.perf_counter()
        result = module.main((["--quick"] if args.quick else []) + passed)
        result.setdefault("wall_seconds", round(time.perf_counter() - start, 2))
        (out_dir / f"{name}.json").write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
