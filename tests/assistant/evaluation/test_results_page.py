"""docs/results.md regenerated from a bench run's JSON: its stamp, its tables, and reduced settings named."""

from __future__ import annotations

import pytest

from assistant.errors import ConfigError
from assistant.evaluation.bench import Benchmark, BenchOutput, Table, run_bench
from assistant.evaluation.results_page import read_run, reduced_settings, results_page, write_results_page
from assistant.progress import Progress, run_job


def _toy(context):
    yield Progress(0, 1, "toy")
    rows = [{"system": "ours", "acc1": 0.9, "acc1_ci": [0.85, 0.95]}, {"system": "peer", "acc1": 0.8}]
    return BenchOutput([Table("main", "Toy table", rows, note="a note")], summary=f"toy with n = {context['n']}")


TOY = Benchmark(name="toy", title="A toy benchmark", run=_toy, full={"n": 1000}, quick={"n": 10})


def test_the_page_carries_the_stamp_the_tables_and_the_reduced_settings(tmp_path):
    run_job(run_bench([TOY], tmp_path / "run", quick=True, seed=7))
    out = write_results_page([tmp_path / "run"], tmp_path / "results.md", {"toy": dict(TOY.full)})
    page = out.read_text()
    run = read_run(tmp_path / "run")
    assert run["environment"]["commit"][:12] in page and "seed 7" in page
    assert "load average" in page and "numpy" in page
    assert "**Reduced run**: n = 10 (full: 1000)" in page and "clarify bench run --only toy" in page
    assert "### Toy table" in page and "| ours | 0.9 | [0.85, 0.95] |" in page and "| peer | 0.8 |  |" in page
    assert "> toy with n = 10" in page and "*a note*" in page


def test_a_full_run_is_not_called_reduced_and_the_same_run_gives_the_same_page(tmp_path):
    run_job(run_bench([TOY], tmp_path / "run", quick=False, seed=0))
    run = read_run(tmp_path / "run")
    full = {"toy": dict(TOY.full)}
    assert "Reduced run" not in results_page([run], full)
    assert results_page([run], full) == results_page([read_run(tmp_path / "run")], full)
    assert reduced_settings({"n": 5, "other": 1}, {"n": 1000}) == {"n": (5, 1000)}


def test_a_folder_without_a_run_says_what_to_pass(tmp_path):
    with pytest.raises(ConfigError, match="clarify bench run"):
        read_run(tmp_path)
    with pytest.raises(ConfigError, match="at least one"):
        results_page([])


def test_a_later_run_of_a_benchmark_replaces_the_earlier_one(tmp_path):
    run_job(run_bench([TOY], tmp_path / "old", quick=True, seed=1))
    run_job(run_bench([TOY], tmp_path / "new", quick=False, seed=2))
    page = results_page([read_run(tmp_path / "old"), read_run(tmp_path / "new")], {"toy": dict(TOY.full)})
    assert page.count("## toy") == 1 and "> toy with n = 1000" in page and "n = 10 " not in page
    assert "run `" + str(tmp_path / "new") in page and str(tmp_path / "old") not in page
