"""`clarify bench`: listing, a sweep from a TOML file, and one-line errors."""

from __future__ import annotations

import csv

import pytest
from click.testing import CliRunner

from assistant.cli import main

SWEEP = """
function = "ranking"
[fixed]
dataset = "coffee"
split = "all"
candidates = 8
max_questions = 4
questions_per_shard = 2
interactions = 2
[grid]
strategy = ["imp", "random"]
"""


def test_bench_list_names_every_registered_benchmark():
    result = CliRunner().invoke(main, ["bench", "list"])
    assert result.exit_code == 0, result.output
    names = {line.split()[0] for line in result.output.splitlines()}
    assert {"engine_quality", "engine_speed", "prior", "ranking_quality", "ranking_speed"} <= names
    assert "semeval (optional)" in result.output


@pytest.mark.slow
def test_bench_sweep_writes_a_tidy_csv_and_plots(tmp_path, fast_encoder):
    config = tmp_path / "strategies.toml"
    config.write_text(SWEEP)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["bench", "sweep", str(config), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "from 4 shards" in result.output and "(serial, 1 worker)" in result.output
    with (out / "sweep.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert {r["strategy"] for r in rows} == {"imp", "random"} and {r["metric"] for r in rows} == {"accuracy", "ndcg5"}
    assert all(r["count"] == "4" for r in rows)
    assert (out / "plots" / "accuracy.png").is_file() and (out / "sweep.json").is_file()


def test_bench_errors_are_one_line_with_exit_code_2(tmp_path):
    result = CliRunner().invoke(main, ["bench", "run", "--only", "nope", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "error: unknown benchmark(s) nope: choose from" in result.output
    bad = tmp_path / "bad.toml"
    bad.write_text('function = "ranking"\n[grid]\nseed = [0]\n[fixed]\nseed = 1\n')
    result = CliRunner().invoke(main, ["bench", "sweep", str(bad)])
    assert result.exit_code == 2 and "appear in both [grid] and [fixed]" in result.output
    assert "Traceback" not in result.output


def test_bench_results_rewrites_the_page_from_a_run_and_refuses_a_folder_without_one(tmp_path):
    from assistant.evaluation.bench import Benchmark, BenchOutput, Table, run_bench
    from assistant.progress import Progress, run_job

    def toy(context):
        yield Progress(0, 1, "toy")
        return BenchOutput([Table("main", "Toy", [{"acc1": 0.5}])])

    run_job(run_bench([Benchmark(name="toy", title="Toy", run=toy)], tmp_path / "run"))
    page = tmp_path / "results.md"
    result = CliRunner().invoke(main, ["bench", "results", str(tmp_path / "run"), "--out", str(page)])
    assert result.exit_code == 0, result.output
    assert "### Toy" in page.read_text() and "| 0.5 |" in page.read_text()
    empty = tmp_path / "empty"
    empty.mkdir()
    refused = CliRunner().invoke(main, ["bench", "results", str(empty), "--out", str(page)])
    assert refused.exit_code != 0 and "run.json" in refused.output and "Traceback" not in refused.output
