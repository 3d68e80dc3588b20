"""`clarify bench run|list|results|sweep`: every benchmark's tables in one report, and sweeps over a grid."""

from __future__ import annotations

import sys

import click

from assistant.cli.common import SEED, echo, run_with_progress


@click.group()
def bench() -> None:
    """The research bench: quality and speed benchmarks with their peers, and sweeps."""


@bench.command("list")
@click.option("--benchmarks", "benchmarks_dir", type=click.Path(file_okay=False), default=None, hidden=True)
def list_cmd(benchmarks_dir: str | None) -> None:
    """The registered benchmarks, their kind, quick settings and data sets."""
    from assistant.app.research.bench import list_benchmarks

    for b in list_benchmarks(benchmarks_dir):
        data = ", ".join(f"{d.name}{'' if d.required else ' (optional)'}" for d in b.datasets) or "bundled only"
        echo(f"{b.name:<18} {b.kind:<8} {b.title}  [data: {data}]")


@bench.command("run")
@click.option("--only", multiple=True, help="Run only this benchmark (repeatable; default: all).")
@click.option("--quick", is_flag=True, help="Small settings (under 10 minutes on 2 cores): what CI may run.")
@click.option("--out", type=click.Path(file_okay=False), default="bench-results", show_default=True)
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of every benchmark.")
@click.option(
    "--data-dir", type=click.Path(file_okay=False), default=None, help="Shared data folder (SemEval, WikiQA, DUC)."
)
@click.option("--set", "sets", multiple=True, metavar="NAME.KEY=VALUE", help="Override a benchmark setting.")
@click.option("--benchmarks", "benchmarks_dir", type=click.Path(file_okay=False), default=None, hidden=True)
def run_cmd(
    only: tuple[str, ...],
    quick: bool,
    out: str,
    seed: int,
    data_dir: str | None,
    sets: tuple[str, ...],
    benchmarks_dir: str | None,
) -> None:
    """Run the benchmarks and write OUT/report.md, OUT/run.json, OUT/tables/*.json and OUT/figures/*.png.

    Data sets that are absent are skipped with the reason (in the report). A benchmark that fails is
    reported and the others still run; the exit code is then 1.
    """
    from assistant.app.research.bench import bench_run_job, parse_overrides

    results = run_with_progress(
        bench_run_job(out, only, quick, seed, data_dir, parse_overrides(sets), benchmarks_dir), "bench"
    )
    for r in results:
        summary = r.output.summary if r.output else r.reason.splitlines()[0] if r.reason else ""
        echo(f"{r.name:<18} {r.status:<8} {r.seconds:7.1f} s ({r.cpu_seconds:.0f} s CPU)  {summary}")
    echo(f"wrote {out}/report.md")
    if any(r.status == "failed" for r in results):
        sys.exit(1)


@bench.command("results")
@click.argument("folders", nargs=-1, required=True, type=click.Path(file_okay=False, exists=True))
@click.option("--out", type=click.Path(dir_okay=False), default="docs/results.md", show_default=True)
@click.option("--benchmarks", "benchmarks_dir", type=click.Path(file_okay=False), default=None, hidden=True)
def results_cmd(folders: tuple[str, ...], out: str, benchmarks_dir: str | None) -> None:
    """Regenerate OUT (docs/results.md) from the bench run FOLDERS (each the --out of `clarify bench run`):
    every table with its run's commit, seed, load and package versions, reduced settings named."""
    from assistant.app.research.bench import write_results

    echo(f"wrote {write_results(folders, out, benchmarks_dir)}")


@bench.command("sweep")
@click.argument("config", type=click.Path(dir_okay=False))
@click.option("--out", type=click.Path(file_okay=False), default=None, help="Folder (default: sweep-results/NAME).")
@click.option("--workers", type=click.IntRange(1), default=1, show_default=True, help="Local worker processes.")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local", show_default=True)
@click.option("--address", default=None, metavar="HOST:PORT", help="Ray cluster to join (default: a local one).")
def sweep_cmd(config: str, out: str | None, workers: int, backend: str, address: str | None) -> None:
    """Run the grid of CONFIG (TOML; see docs/bench.md): a tidy OUT/sweep.csv and a plot per metric."""
    from pathlib import Path

    from assistant.app.research.bench import sweep_job

    out = out or str(Path("sweep-results") / Path(config).stem)
    engine = "ray" if backend == "ray" else ("loky" if workers > 1 else "serial")
    result = run_with_progress(sweep_job(config, out, engine, workers, address), "sweep")
    echo(
        f"{len(result.rows)} rows from {result.shards} shards in {result.seconds:.1f} s ({engine}, {workers} "
        f"worker{'s' if workers > 1 else ''}); wrote {out}/sweep.csv and {out}/plots/"
    )
