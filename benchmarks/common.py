"""Helpers shared by the benchmarks."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from assistant.store import Domain


def bundled_domain(name: str) -> Domain:
    """The bundled domain ``name`` from $CLARIFY_HOME, built there first if it is not yet."""
    from assistant.app.registry import load_domain
    from assistant.progress import run_job
    from assistant.store import built_domains
    from crowdsourcing.adapters import build_domain

    if name not in built_domains():
        run_job(build_domain(name))
    return load_domain(name)


def run_main(benchmark, argv: list[str] | None = None) -> dict:
    """`python -m benchmarks.bench_NAME [--quick] [--seed S] [--set KEY=VALUE ...]`: run one registered
    benchmark, write its figures under bench-results/figures, print its tables as JSON and a one-line summary."""
    from assistant.evaluation.bench import run_one
    from assistant.progress import run_job

    parser = argparse.ArgumentParser(prog=f"bench_{benchmark.name}", description=benchmark.title)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    overrides = {}
    for item in args.sets:
        key, _, raw = item.partition("=")
        try:
            overrides[key] = json.loads(raw)
        except json.JSONDecodeError:
            overrides[key] = raw
    os.environ.setdefault("CLARIFY_HOME", str(Path("bench-results/home").resolve()))
    result = run_job(run_one(benchmark, args.quick, args.seed, args.data_dir, Path("bench-results/figures"), overrides))
    data = {
        "benchmark": result.name,
        "status": result.status,
        "reason": result.reason,
        "seconds": result.seconds,
        "settings": result.settings,
        "skipped_datasets": result.skipped_datasets,
        "tables": {t.name: t.rows for t in result.output.tables} if result.output else {},
    }
    print(json.dumps(data, indent=2, default=str))
    print(f"{result.name}: {result.output.summary if result.output else result.status + ' ' + result.reason}")
    if result.status == "failed":
        print(result.reason, file=sys.stderr)
    return data
