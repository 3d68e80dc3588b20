"""`clarify rank evaluate|demo` through click's CliRunner, on bundled coffee with tiny settings."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from assistant.cli import main
from tests.support import HashingEncoder

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture
def fast_encoder(monkeypatch):
    """Replace MiniLM by the hashing encoder wherever the ranking code asks for the default encoder."""
    import models.pretrained

    monkeypatch.setattr(models.pretrained, "SentenceEncoder", HashingEncoder)


def test_evaluate_writes_the_documented_json_and_plot(tmp_path, fast_encoder):
    out, plot = tmp_path / "r.json", tmp_path / "r.png"
    args = [
        "rank",
        "evaluate",
        "coffee",
        "--interactions",
        "2",
        "--strategies",
        "imp,unc,random",
        "--models",
        "gppl,bt",
    ]
    args += ["--seed", "1", "--candidates", "6", "--max-questions", "3", "--json", str(out), "--plot", str(plot)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    keys = {"model", "strategy", "interactions", "accuracy", "ndcg5", "seconds_per_interaction", "questions"}
    assert all(set(row) == keys for row in data["rows"])
    combos = {(r["model"], r["strategy"]) for r in data["rows"]}
    assert combos == {("prior", "none"), ("gppl", "imp"), ("gppl", "random"), ("bt", "unc"), ("bt", "random")}
    assert {r["interactions"] for r in data["rows"] if r["model"] == "gppl"} == {0, 1, 2}
    assert all(r["questions"] == 3 and 0 <= r["accuracy"] <= 1 for r in data["rows"])
    assert data["t"] == 0.3 and "best" in data["wilcoxon"] and len(data["wilcoxon"]["tests"]) == 4
    assert plot.stat().st_size > 1000 and "p(acc)" in result.output
    # same seed, same result
    again = CliRunner().invoke(main, [*args[:-4], "--json", str(tmp_path / "again.json")])
    assert again.exit_code == 0
    first = [(r["model"], r["strategy"], r["interactions"], r["accuracy"], r["ndcg5"]) for r in data["rows"]]
    second = [
        (r["model"], r["strategy"], r["interactions"], r["accuracy"], r["ndcg5"])
        for r in json.loads((tmp_path / "again.json").read_text())["rows"]
    ]
    assert first == second


@pytest.mark.parametrize(
    "args,message",
    [
        (["rank", "evaluate", "tea"], "unknown ranking data set"),
        (["rank", "evaluate", "coffee", "--strategies", "ucb"], "unknown strategy"),
        (["rank", "evaluate", "coffee", "--models", "bt", "--strategies", "imp"], "no model takes"),
    ],
)
def test_evaluate_errors_exit_2_with_one_line(args, message):
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


def test_evaluation_only_data_missing_is_a_clear_error(tmp_path):
    result = CliRunner().invoke(main, ["rank", "evaluate", "wikiqa", "--data-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "WikiQA-dev.tsv not found" in result.output and "--data-dir" in result.output


@pytest.mark.slow
def test_demo_loop_with_undo_tie_and_quit(fast_encoder):
    result = CliRunner().invoke(
        main, ["rank", "demo", "coffee", "--candidates", "5", "--budget", "3"], input="1\nu\nt\n2\nq\n"
    )
    assert result.exit_code == 0, result.output
    # 1 answers the first pair; u takes it back (the first pair again); t ties it; 2 answers the second; q
    assert result.output.count("comparison 1 ") == 2 and result.output.count("comparison 2 ") == 2
    assert "comparison 3 " in result.output and "after 2 comparisons" in result.output
    assert "Best answer" in result.output and "accepted answer?" in result.output
