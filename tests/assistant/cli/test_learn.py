"""`clarify learn evaluate` through click's CliRunner on bundled coffee with tiny settings, and its errors."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from assistant.cli import main
from tests.support import HashingEncoder

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture
def fast_encoder(monkeypatch):
    """MiniLM-sized hashing vectors instead of MiniLM wherever the default sentence encoder is built."""
    import models.pretrained

    monkeypatch.setattr(models.pretrained, "SentenceEncoder", lambda: HashingEncoder(384))


@pytest.mark.slow
def test_evaluate_writes_rows_needed_fractions_and_a_plot(tmp_path, fast_encoder):
    out, plot = tmp_path / "l.json", tmp_path / "l.png"
    args = ["learn", "evaluate", "coffee", "--seeds", "2", "--rounds", "1", "--initial", "0.1", "--step", "0.2"]
    args += ["--samples", "4", "--epochs", "1", "--methods", "dasl,coreset", "--candidates", "6"]
    result = CliRunner().invoke(main, [*args, "--json", str(out), "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert {"dataset", "model", "method", "labelled_fraction", "mrr", "seed"} <= set(data["rows"][0])
    full = [r for r in data["rows"] if r["method"] == "full"]
    assert [(r["seed"], r["labelled_fraction"]) for r in full] == [(0, 1.0), (1, 1.0)]
    pool = data["pool"]
    dasl = sorted({r["labelled"] for r in data["rows"] if r["method"] == "dasl"})
    assert dasl == [round(0.1 * pool), round(0.1 * pool) + round(0.2 * pool)]
    assert all(0 <= r["mrr"] <= 1 for r in data["rows"])
    assert {n["method"] for n in data["needed"]} == {"dasl", "coreset", "full"}
    assert plot.read_bytes()[:4] == b"\x89PNG" and "needed" in result.output
    again = CliRunner().invoke(main, [*args, "--json", str(tmp_path / "again.json")])
    assert again.exit_code == 0
    rerun = json.loads((tmp_path / "again.json").read_text())["rows"]
    assert [(r["method"], r["seed"], r["mrr"]) for r in rerun] == [
        (r["method"], r["seed"], r["mrr"]) for r in data["rows"]
    ]


def test_evaluate_errors_are_one_line_with_exit_code_2(tmp_path):
    missing = CliRunner().invoke(main, ["learn", "evaluate", "semeval", "--data-dir", str(tmp_path)])
    assert missing.exit_code == 2 and "not found" in missing.output and "Traceback" not in missing.output
    unknown = CliRunner().invoke(main, ["learn", "evaluate", "coffee", "--methods", "magic"])
    assert unknown.exit_code == 2 and "unknown method magic" in unknown.output
    no_domain = CliRunner().invoke(main, ["learn", "suggest", "nowhere", "--out", str(tmp_path / "t.csv")])
    assert no_domain.exit_code == 2 and "not built" in no_domain.output
    bad_out = CliRunner().invoke(main, ["learn", "suggest", "nowhere", "--out", str(tmp_path / "t.txt")])
    assert bad_out.exit_code == 2 and ".csv" in bad_out.output
