"""The research bench as jobs the CLI (and anything else) runs: every benchmark's tables in one report
(`clarify bench run`), docs/results.md regenerated from runs (`clarify bench results`), and sweeps over a grid of settings (`clarify bench sweep`).

Benchmarks live in the source checkout's benchmarks/ folder (they are not installed with the package):
``benchmarks_dir`` finds it beside this checkout, or takes $CLARIFY_BENCHMARKS.
"""

from __future__ import annotations

import json
import os
from collections.abc import Generator, Mapping, Sequence
from pathlib import Path
from typing import Any

from assistant import paths
from assistant.errors import ConfigError
from assistant.evaluation.bench import Benchmark, BenchResult, discover, run_bench, select
from assistant.evaluation.sweeps import SweepConfig, SweepResult, plot_metrics, run_sweep
from assistant.progress import Progress


def benchmarks_dir(explicit: str | Path | None = None) -> Path:
    """The benchmarks package: ``explicit``, else $CLARIFY_BENCHMARKS, else <checkout>/benchmarks."""
    path = Path(explicit or os.environ.get("CLARIFY_BENCHMARKS") or paths.REPO_ROOT / "benchmarks")
    if not (path / "__init__.py").is_file():
        raise ConfigError(
            f"no benchmarks package at {path}: the bench runs from a Clarify source checkout "
            "(pass --benchmarks DIR or set CLARIFY_BENCHMARKS)"
        )
    return path


def list_benchmarks(directory: str | Path | None = None) -> list[Benchmark]:
    return list(discover(benchmarks_dir(directory)).values())


def parse_overrides(items: Sequence[str]) -> dict[str, dict[str, Any]]:
    """``NAME.KEY=VALUE`` settings (VALUE as JSON when it parses, else a string) -> {NAME: {KEY: VALUE}}."""
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        target, sep, raw = item.partition("=")
        name, dot, key = target.partition(".")
        if not sep or not dot or not name or not key:
            raise ConfigError(
                f"--set {item!r}: write BENCHMARK.SETTING=VALUE, e.g. ranking_quality.datasets='[\"beer\"]'"
            )
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        out.setdefault(name, {})[key] = value
    return out


def bench_run_job(
    out: str | Path = "bench-results",
    only: Sequence[str] = (),
    quick: bool = False,
    seed: int = 0,
    data_dir: str | None = None,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    benchmarks: str | Path | None = None,
) -> Generator[Progress, None, list[BenchResult]]:
    """`clarify bench run`: the chosen benchmarks (all by default), report in ``out``."""
    found = discover(benchmarks_dir(benchmarks))
    chosen = select(found, list(only))
    unknown = sorted(set(overrides or {}) - {b.name for b in chosen})
    if unknown:
        raise ConfigError(f"--set names benchmark(s) not being run: {', '.join(unknown)}")
    return (yield from run_bench(chosen, out, quick=quick, seed=seed, data_dir=data_dir, overrides=overrides))


def write_results(
    folders: Sequence[str | Path], out: str | Path = "docs/results.md", benchmarks: str | Path | None = None
) -> Path:
    """`clarify bench results DIR...`: docs/results.md regenerated from bench run folders, each benchmark's
    reduced settings named against its registered full ones."""
    from assistant.evaluation.results_page import write_results_page

    full = {b.name: dict(b.full) for b in discover(benchmarks_dir(benchmarks)).values()}
    return write_results_page(folders, out, full)


def sweep_job(
    config: str | Path | SweepConfig,
    out: str | Path | None = None,
    backend: str = "serial",
    workers: int = 1,
    address: str | None = None,
) -> Generator[Progress, None, SweepResult]:
    """`clarify bench sweep CONFIG.toml`: run the grid; with ``out``, write sweep.csv (tidy), one PNG per
    metric and sweep.json (the configuration, backend and wall time)."""
    from assistant.app.research.sweeps import sweep_function

    if not isinstance(config, SweepConfig):
        config = SweepConfig.from_toml(config)
    function = sweep_function(config.function)
    result = yield from run_sweep(config, function, backend=backend, workers=workers, address=address)
    if out is not None:
        out = Path(out)
        result.to_csv(out / "sweep.csv")
        plot_metrics(result, out / "plots", config.metrics)
        meta = {
            "function": config.function,
            "source": config.source,
            "grid": config.grid,
            "fixed": config.fixed,
            "backend": result.backend,
            "workers": result.workers,
            "shards": result.shards,
            "seconds": result.seconds,
        }
        (out / "sweep.json").write_text(json.dumps(meta, indent=2, default=str))
    return result
