"""The bench runner: same seed, same numbers; reports what it ran on; skips absent data with the reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant.app.research.bench import bench_run_job, benchmarks_dir, parse_overrides
from assistant.errors import ConfigError
from assistant.evaluation.bench import discover
from assistant.progress import run_job

TINY = {
    "ranking_quality": {
        "datasets": ["coffee", "semeval"],
        "max_questions": 3,
        "interactions": 3,
        "candidates": 8,
        "combos": [["gppl", "imp"], ["gppl", "random"], ["bt", "unc"]],
        "pairwisegp": False,
    }
}


def _tables(out: Path) -> dict[str, list[dict]]:
    """Every table's rows without its timing columns."""
    tables = {}
    for path in sorted((out / "tables").glob("*.json")):
        data = json.loads(path.read_text())
        tables[path.name] = [{k: v for k, v in row.items() if k not in data["timing"]} for row in data["rows"]]
    return tables


def test_a_tiny_bench_twice_gives_the_same_json_and_reports_its_context(tmp_path, fast_encoder):
    first, second, other_seed = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    empty = tmp_path / "no-shared-data"
    for out, seed in ((first, 3), (second, 3), (other_seed, 4)):
        run_job(bench_run_job(out, ["ranking_quality"], quick=True, seed=seed, data_dir=str(empty), overrides=TINY))
    a, b = _tables(first), _tables(second)
    assert set(a) == {"ranking_quality.summary.json", "ranking_quality.coffee.json"}
    assert a == b
    assert _tables(other_seed)["ranking_quality.coffee.json"] != a["ranking_quality.coffee.json"]  # new answers
    rows = a["ranking_quality.coffee.json"]
    assert {(r["model"], r["strategy"]) for r in rows} == {
        ("prior", "none"),
        ("gppl", "imp"),
        ("gppl", "random"),
        ("bt", "unc"),
    }
    assert {r["interactions"] for r in rows if r["model"] == "gppl"} == {0, 1, 3}

    run = json.loads((first / "run.json").read_text())
    assert run["seed"] == 3 and run["quick"] is True
    env = run["environment"]
    assert len(env["commit"]) == 40 and env["packages"]["numpy"] and env["machine"]["cores"] >= 1
    (entry,) = run["benchmarks"]
    assert entry["status"] == "ok" and entry["cpu_seconds"] > 0 and entry["seconds"] > 0
    assert "semeval" in entry["skipped_datasets"] and str(empty) in entry["skipped_datasets"]["semeval"]
    report = (first / "report.md").read_text()
    assert "- semeval: " in report and "| gppl | imp | 3 |" in report and "| ranking_quality | quality | ok |" in report
    assert "![coffee" in report and (first / "figures" / "ranking_quality.coffee.png").is_file()


def _write(pkg: Path, name: str, text: str) -> None:
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").touch()
    (pkg / f"bench_{name}.py").write_text(text)


def test_missing_required_data_skips_a_benchmark_and_a_main_only_module_still_reports(tmp_path):
    pkg = tmp_path / "benchpkg_runner"
    _write(
        pkg,
        "needs_data",
        "from assistant.errors import DataMissingError\n"
        "from assistant.evaluation.bench import Benchmark, BenchOutput, DataSet\n"
        "def check(data_dir):\n    raise DataMissingError('corpus.xml not found in ' + str(data_dir))\n"
        "def run(context):\n    raise AssertionError('must not run')\n    yield\n"
        "BENCHMARK = Benchmark('needs_data', 'needs data', run, datasets=(DataSet('corpus', check),))\n",
    )
    _write(
        pkg,
        "old_style",
        '"""An old benchmark."""\nKIND = "speed"\n'
        'def main(argv):\n    print("noise")\n    return {"a": {"b": 2}, "quick": "--quick" in argv}\n',
    )
    found = discover(pkg)
    assert set(found) == {"needs_data", "old_style"}
    out = tmp_path / "out"
    results = run_job(bench_run_job(out, quick=True, data_dir="/nowhere", benchmarks=pkg))
    by_name = {r.name: r for r in results}
    assert (
        by_name["needs_data"].status == "skipped" and "corpus.xml not found in /nowhere" in by_name["needs_data"].reason
    )
    old = json.loads((out / "tables" / "old_style.result.json").read_text())
    assert {r["key"]: r["value"] for r in old["rows"]} == {"a.b": 2, "quick": True}
    assert "needs_data | quality | skipped" in (out / "report.md").read_text()
    assert "old_style | speed | ok" in (out / "report.md").read_text()  # its KIND, not the default


def test_bad_requests_say_how_to_fix_them(tmp_path):
    with pytest.raises(ConfigError, match="unknown benchmark"):
        run_job(bench_run_job(tmp_path, ["no_such_bench"]))
    with pytest.raises(ConfigError, match="has no setting 'colour'"):
        run_job(bench_run_job(tmp_path, ["engine_speed"], overrides={"engine_speed": {"colour": 1}}))
    with pytest.raises(ConfigError, match=r"BENCHMARK\.SETTING=VALUE"):
        parse_overrides(["datasets=beer"])
    assert parse_overrides(['ranking_quality.datasets=["beer"]', "x.y=z"]) == {
        "ranking_quality": {"datasets": ["beer"]},
        "x": {"y": "z"},
    }
    with pytest.raises(ConfigError, match="no benchmarks package"):
        benchmarks_dir(tmp_path)
