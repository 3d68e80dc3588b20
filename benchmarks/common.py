"""Helpers shared by the benchmarks."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from assistant.store import Domain

HELP = {"help_option_names": ["-h", "--help"]}


def bundled_domain(name: str) -> Domain:
    """The bundled domain ``name`` from $CLARIFY_HOME, built there first if it is not yet."""
    from assistant.app.lifecycle.registry import load_domain
    from assistant.progress import run_job
    from assistant.sources.adapters import build_domain
    from assistant.store import built_domains

    if name not in built_domains():
        run_job(build_domain(name))
    return load_domain(name)


def interval_columns(row: dict) -> dict:
    """A report row's 95% intervals and its paired verdicts against ours, as table columns: Acc@1 and mean
    questions each "tie" where the paired interval holds 0 (``assistant.evaluation.intervals``)."""
    out: dict[str, Any] = {"acc1_ci": row.get("acc1_ci"), "mean_turns_ci": row.get("mean_turns_ci")}
    versus = row.get("vs_ours")
    if versus and "verdict" in versus:
        out["acc1_vs_ours"] = f"{versus['acc1_diff']:+.3f} {versus['acc1_diff_ci']} {versus['verdict']}"
    if versus and "turns_verdict" in versus:
        out["turns_vs_ours"] = f"{versus['turns_diff']:+.2f} {versus['turns_diff_ci']} {versus['turns_verdict']}"
    return out


def run_command(command: click.Command, argv: Sequence[str] | None = None) -> Any:
    """Parse ``argv`` (default: the command line) with ``command``'s options and return what its function
    returns (a benchmark's figures). --help prints the help and exits 0; a bad option prints the usage and the
    error and exits 2, as a click program does."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        with command.make_context(command.name, args) as ctx:
            return command.invoke(ctx)
    except click.exceptions.Exit as exc:  # --help
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)


def comma_list(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> list[str]:
    """A repeatable option's values, each also split at commas: ``--domains faq,banking --domains birds``."""
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def run_main(benchmark, argv: list[str] | None = None) -> dict:
    """`python -m benchmarks.bench_NAME [--quick] [--seed S] [--set KEY=VALUE ...]`: run one registered
    benchmark, write its figures under bench-results/figures, print its tables as JSON and a one-line summary."""

    @click.command(name=f"bench_{benchmark.name}", help=benchmark.title, context_settings=HELP)
    @click.option("--quick", is_flag=True)
    @click.option("--seed", type=int, default=0)
    @click.option("--data-dir", default=None)
    @click.option("--set", "sets", multiple=True, metavar="KEY=VALUE")
    def command(quick: bool, seed: int, data_dir: str | None, sets: tuple[str, ...]) -> dict:
        return _run_registered(benchmark, quick, seed, data_dir, sets)

    return run_command(command, argv)


def _run_registered(benchmark, quick: bool, seed: int, data_dir: str | None, sets: Sequence[str]) -> dict:
    from assistant.evaluation.bench import run_one
    from assistant.progress import run_job

    overrides = {}
    for item in sets:
        key, _, raw = item.partition("=")
        try:
            overrides[key] = json.loads(raw)
        except json.JSONDecodeError:
            overrides[key] = raw
    os.environ.setdefault("CLARIFY_HOME", str(Path("bench-results/home").resolve()))
    result = run_job(run_one(benchmark, quick, seed, data_dir, Path("bench-results/figures"), overrides))
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
