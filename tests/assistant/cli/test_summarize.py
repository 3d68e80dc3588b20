"""`clarify summarize` through click's CliRunner: the comparison loop, errors, and DUC when present."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from assistant.cli import main
from assistant.paths import shared_data_dir
from assistant.store import KnowledgeBase, SessionLog


@pytest.fixture
def scratch_domain():
    """An empty knowledge base whose session log keeps the summary sessions."""
    KnowledgeBase.create("scratch").close()
    return "scratch"


def test_compare_a_folder_of_files_saves_turn_by_turn_and_resumes(tmp_path, scratch_domain):
    folder = tmp_path / "docs"
    folder.mkdir()
    # longer than the 100-word limit, so that the candidate summaries differ
    facts = [
        "the storm hit the coast",
        "thousands of homes lost power",
        "officials ordered an evacuation",
        "power returned on Friday",
        "insurers expect large claims",
        "schools stayed closed all week",
    ]
    for name in ("one", "two"):
        sentences = [
            f"On day {k} of the {name} report {fact} near the old harbour town." for k, fact in enumerate(facts * 2)
        ]
        (folder / f"{name}.txt").write_text(" ".join(s[0].upper() + s[1:] for s in sentences))
    args = ["summarize", str(folder), "--question", "storm damage", "--candidates", "20", "--domain", scratch_domain]
    args += ["--budget", "2", "--threshold", "1", "--episodes", "30"]
    result = CliRunner().invoke(main, args, input="1\n2\nq\n")
    assert result.exit_code == 0, result.output
    assert (
        "Best summary:" in result.output
        and "Written for you" in result.output
        and "saved as session 1" in result.output
    )
    with KnowledgeBase.open(scratch_domain) as kb:
        log = SessionLog(kb)
        assert [k for k, _ in log.entries(1)] == ["compare", "compare", "better"]
        assert log.list() == [] and log.list(kind="summary")[0].status == "active"  # not among the conversations
    listed = CliRunner().invoke(main, ["summarize", "sessions", "--domain", scratch_domain])
    assert "summary" in listed.output and "docs" in listed.output
    resumed = CliRunner().invoke(main, ["summarize", "--resume", "1", "--domain", scratch_domain], input="b\n")
    assert resumed.exit_code == 0 and "after 2 comparisons" in resumed.output and "accepted" in resumed.output
    with KnowledgeBase.open(scratch_domain) as kb:
        assert SessionLog(kb).list(kind="summary")[0].status == "finished"


@pytest.mark.slow
def test_sentence_mode_on_a_bundled_cluster(fast_encoder, scratch_domain):
    args = ["summarize", "--bundled", "multiling/M002", "--mode", "sentences", "--domain", scratch_domain]
    result = CliRunner().invoke(main, args, input="2\nq\n")
    assert result.exit_code == 0, result.output
    assert "Summary:" in result.output
    with KnowledgeBase.open(scratch_domain) as kb:
        assert [k for k, _ in SessionLog(kb).entries(1)] == ["choose"]
    again = CliRunner().invoke(main, ["summarize", "--resume", "1", "--domain", scratch_domain], input="q\n")
    assert again.exit_code == 0 and "Summary:" in again.output


def test_summary_sessions_need_a_built_domain(tmp_path):
    (tmp_path / "a.txt").write_text("One sentence here. And another one there.")
    result = CliRunner().invoke(main, ["summarize", str(tmp_path / "a.txt"), "--domain", "nowhere"])
    assert result.exit_code == 2 and "clarify domain build" in result.output


@pytest.mark.parametrize(
    "args,message",
    [
        (["summarize", "no-such-folder"], "not found"),
        (["summarize", "--bundled", "opinosis/nope"], "not found"),
        (["summarize", "evaluate", "duc2001", "--data-dir", "/nonexistent"], "evaluation-only"),
        (["summarize", "evaluate", "duc2001", "--strategies", "imp,foo", "--data-dir", "/nonexistent"], "foo"),
    ],
)
def test_bad_input_is_one_line_with_exit_code_2(args, message):
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


@pytest.mark.skipif(not (shared_data_dir() / "duc" / "DUC2001").is_dir(), reason="DUC (evaluation-only) is absent")
@pytest.mark.slow
def test_evaluate_on_one_duc_topic_writes_the_documented_rows(tmp_path):
    out = tmp_path / "r.json"
    args = [
        "summarize",
        "evaluate",
        "duc2001",
        "--max-topics",
        "1",
        "--interactions",
        "2",
        "--strategies",
        "imp,unc,random",
        "--candidates",
        "300",
        "--checkpoints",
        "0,2",
        "--json",
        str(out),
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    rows = json.loads(out.read_text())["rows"]
    keys = {
        "dataset",
        "prior",
        "features",
        "learner",
        "strategy",
        "interactions",
        "ndcg1pct",
        "r",
        "seconds_per_interaction",
        "topics",
        "users",
    }
    assert all(keys <= set(r) for r in rows)
    assert {(r["learner"], r["strategy"]) for r in rows} == {
        ("prior", "none"),
        ("gppl", "imp"),
        ("bt", "unc"),
        ("gppl", "random"),
    }
