"""`clarify import ...` and `clarify export tasks`: exit codes and messages (via click's CliRunner)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from assistant.cli import main
from assistant.store import KnowledgeBase
from tests.support.crowd import dump


@pytest.fixture
def cli():
    runner = CliRunner()
    return lambda *args: runner.invoke(main, [str(a) for a in args])


def test_import_and_reimport(cli, bank, data):
    result = cli("import", "mturk", data / "mturk_tags_bank.csv", "--domain", bank)
    assert result.exit_code == 0, result.output
    assert "imported mturk_tags_bank.csv (mturk, tags) into bank" in result.stdout
    assert "added      6 questions, 35 annotations" in result.stdout
    assert "'Lost cards' -> 'lost card' (same words; existing question)" in result.stdout
    assert "replaced   induced annotations of 2 questions" in result.stdout
    assert "agreement  binary: fleiss kappa" in result.stdout
    result = cli("import", "mturk", data / "mturk_tags_bank.csv", "--domain", bank)
    assert result.exit_code == 0 and "nothing changed" in result.stdout


def test_import_json_report(cli, bank, data):
    result = cli("import", "labelstudio", data / "labelstudio_queries_bank.json", "-d", bank, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["kind"] == "queries" and report["added"]["queries"] == 3


def test_import_csv_accepts_jsonl_and_labels(cli, data):
    result = cli("import", "csv", data / "labels_helpdesk.csv", "--domain", "helpdesk")
    assert result.exit_code == 0, result.output
    assert "added      3 labels" in result.stdout
    result = cli("import", "csv", data / "labels_helpdesk.jsonl", "--domain", "helpdesk", "--kind", "labels")
    assert result.exit_code == 0 and "1 labels" in result.stdout


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "file not found"),
        (b"", "the file is empty"),
        (b"label,text\ncaf\xe9 card,x\n", "is not valid UTF-8"),
        (b"label,split\ncard_arrival,train\n", "has no 'text' column"),
        (b"label,text\ncard arival,where is it\n", "unknown label 'card arival' in domain 'bank': did you mean"),
        (b"label,tag,answer,kind\ncard_arrival,card type,amex,choice\n", "unknown option 'amex'"),
        (b"label,text\ncard_arrival,   \n", "'text' is empty"),
    ],
)
def test_bad_input_exits_2_with_one_error_line(cli, bank, tmp_path, content, expected):
    path = tmp_path / "input.csv"
    if content is not None:
        path.write_bytes(content)
    before = dump(bank)
    kind = ["--kind", "queries"] if b"split" in (content or b"") else []
    result = cli("import", "csv", path, "--domain", bank, *kind)
    assert result.exit_code == 2
    assert result.stdout == ""
    # one problem: the error line says it all (no numbered list repeating it)
    (first,) = result.stderr.splitlines()
    assert first.startswith("error: input.csv") and expected in first
    assert "nothing was imported" in first
    assert "Traceback" not in result.output
    assert dump(bank) == before


def test_several_problems_are_numbered_under_the_error_line(cli, bank, tmp_path):
    path = tmp_path / "input.csv"
    path.write_text("label,text\nnobody,hi\nsomebody,hello\n", encoding="utf-8")
    result = cli("import", "csv", path, "--domain", bank)
    assert result.exit_code == 2
    first, *problems = result.stderr.splitlines()
    assert first.startswith("error: input.csv") and "(and 1 more problems)" in first
    assert [p[:5] for p in problems] == ["  1. ", "  2. "]


def test_problems_as_json(cli, bank, tmp_path):
    path = tmp_path / "q.csv"
    path.write_text("label,text\nnobody,hi\nsomebody,hello\n", encoding="utf-8")
    result = cli("import", "csv", path, "--domain", bank, "--json")
    assert result.exit_code == 2
    payload = json.loads(result.stdout)
    assert [(p["line"], p["column"]) for p in payload["problems"]] == [(2, "label"), (3, "label")]


def test_other_errors_exit_2_in_one_line(cli, bank, data, tmp_path):
    result = cli("import", "csv", data / "queries_bank.csv", "--domain", "nowhere")
    assert result.exit_code == 2 and "domain 'nowhere' does not exist" in result.stderr
    result = cli("import", "csv", data / "queries_bank.csv", "--domain", "Bad Name!")
    assert result.exit_code == 2 and "invalid domain name" in result.stderr
    result = cli("import", "mturk", data / "mturk_tags_bank.csv", "-d", bank, "--templates", tmp_path / "none.json")
    assert result.exit_code == 2 and "template file" in result.stderr
    result = cli("import", "mturk", data / "mturk_tags_bank.csv", "-d", bank, "--kind", "labels")
    assert result.exit_code == 2 and "--kind labels" in result.stderr
    assert all("Traceback" not in r for r in (result.output,))


def test_export_tasks(cli, bank, tmp_path):
    out = tmp_path / "batch.csv"
    result = cli("export", "tasks", "--domain", bank, "--out", out, "--per-label", "3", "--layout", tmp_path / "t.html")
    assert result.exit_code == 0, result.output
    assert "wrote 4 tags tasks for 4 labels of bank" in result.stdout
    header = out.read_text(encoding="utf-8").splitlines()[0]
    assert header.startswith("label,label_name,label_text,tag_1,")
    assert "${tag_1}" in (tmp_path / "t.html").read_text(encoding="utf-8")
    result = cli("export", "tasks", "-d", bank, "-o", tmp_path / "q.csv", "--kind", "queries", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["tasks"] == 4
    result = cli("export", "tasks", "-d", bank, "-o", tmp_path / "no" / "q.csv")
    assert result.exit_code == 2 and "does not exist" in result.stderr
    result = cli("export", "tasks", "-d", "nowhere", "-o", out)
    assert result.exit_code == 2 and "not built" in result.stderr


def test_split_option_for_queries_without_one(cli, bank, data):
    result = cli("import", "mturk", data / "mturk_queries_bank.csv", "--domain", bank, "--split", "test")
    assert result.exit_code == 0, result.output
    with KnowledgeBase.open(bank) as kb:
        splits = {s for (s,) in kb.db.execute("SELECT split FROM queries WHERE source = 'crowd:mturk'")}
    assert splits == {"test"}
    result = cli("import", "mturk", data / "mturk_queries_bank.csv", "--domain", bank, "--split", "holdout")
    assert result.exit_code == 2 and "holdout" in result.output
