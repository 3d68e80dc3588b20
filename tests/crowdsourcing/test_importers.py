"""Parsing each file format into records and problems with file, line and column (no database involved)."""

from __future__ import annotations

import csv
import io

import pytest

from assistant.errors import ConfigError
from crowdsourcing.importers import QueryRecord, TagRecord, parse_file

H1 = "3J5XXLQDHMDN8R7Y2O4Q5Q1MWW7V3C"


def rewrite_mturk(source, target, edit):
    """Copy an MTurk batch CSV, letting ``edit(rows)`` change the list of row dicts (header kept)."""
    with source.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        header, rows = list(reader.fieldnames), list(reader)
    header = edit(rows) or header
    with target.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=header, quoting=csv.QUOTE_ALL, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return target


def messages(parsed):
    return [str(p) for p in parsed.problems]


# ---- MTurk ------------------------------------------------------------------------------------------------
def test_mturk_tag_batch(data):
    parsed = parse_file(data / "mturk_tags_bank.csv", "mturk")
    assert parsed.ok, messages(parsed)
    assert (parsed.kind, parsed.format, parsed.rows) == ("tags", "mturk", 6)
    # HIT 1: 2 approved assignments x 7 offered tags; HIT 2: 3 x 7
    assert len(parsed.records) == 35
    first = [r for r in parsed.records if r.origin.line == 2]
    assert {r.tag: r.answer for r in first} == {
        "card delivery": "yes",
        "lost card": "no",
        "foreign currency": "no",
        "top up": "no",
        "delayed shipping": "yes",
        "pin code": "no",
        "contactless payment": "no",
    }
    record = first[0]
    assert isinstance(record, TagRecord)
    assert (record.label, record.kind, record.worker, record.task) == ("card_arrival", "binary", "A2XJ8E3Y2M1K4Q", H1)
    assert record.origin.column("tag") == "Input.tag_1"
    assert record.origin.column("answer") == "Answer.selected"
    # the rejected assignment is skipped and reported with its line
    [skipped] = parsed.skipped
    assert (skipped.line, skipped.worker, skipped.reason) == (4, "A3N4KW2U7C9XJZ", "rejected")
    assert "Input.label_name" not in parsed.ignored_columns  # Input.* extras are expected, not reported


def test_mturk_choice_batch_matches_options_case_insensitively(data):
    parsed = parse_file(data / "mturk_choice_bank.csv", "mturk")
    assert parsed.ok, messages(parsed)
    answers = [(r.label, r.tag, r.answer) for r in parsed.records]
    assert answers[:3] == [
        ("card_arrival", "card type", "visa"),
        ("card_arrival", "card type", "visa"),
        ("card_arrival", "card type", "not applicable"),
    ]
    assert parsed.records[3].options == ("standard", "express", "next day")
    assert all(r.kind == "choice" for r in parsed.records)


def test_mturk_query_batch_line_numbers_count_physical_lines(data):
    parsed = parse_file(data / "mturk_queries_bank.csv", "mturk")
    assert parsed.ok, messages(parsed)
    assert parsed.kind == "queries"
    assert [(r.origin.line, r.text) for r in parsed.records] == [
        (2, "still waiting for my card"),
        (3, "when will the card come, it has been two weeks"),  # a quoted line break: lines 3-4
        (5, "where is my card"),
        (6, "what rate do you use for dollars"),
    ]
    [skipped] = parsed.skipped
    assert skipped.line == 7
    assert skipped.reason == "rejected: Not a question about the item"


def test_mturk_problems_name_line_and_column(tmp_path, data):
    def edit(rows):
        rows[0]["Answer.selected"] = "card delivery|parking fine"  # not offered
        rows[1]["Answer.selected"] = ""  # no answer
        rows[3]["Answer.selected"] = "none of the above|stolen card"
        rows[4]["AssignmentId"] = rows[3]["AssignmentId"]  # duplicate assignment
        rows[5]["Input.label"] = "  "

    parsed = parse_file(rewrite_mturk(data / "mturk_tags_bank.csv", tmp_path / "bad.csv", edit), "mturk")
    found = {(p.line, p.column): p.message for p in parsed.problems}
    assert "'parking fine' is not among the tags" in found[2, "Answer.selected"]
    assert "selected nothing" in found[3, "Answer.selected"]
    assert "together with tags" in found[5, "Answer.selected"]
    assert "already appeared on line 5" in found[6, "AssignmentId"]
    assert "label is empty" in found[7, "Input.label"]
    assert all(p.file == "bad.csv" for p in parsed.problems)


def test_mturk_missing_column_suggests_a_close_name(tmp_path, data):
    def edit(rows):
        for row in rows:
            row["WorkerID"] = row.pop("WorkerId")
        return [c if c != "WorkerId" else "WorkerID" for c in rows[0]]

    parsed = parse_file(rewrite_mturk(data / "mturk_tags_bank.csv", tmp_path / "b.csv", edit), "mturk")
    [problem] = parsed.problems
    assert problem.line == 1 and problem.column == "WorkerId"
    assert "found 'WorkerID'" in problem.message


def test_mturk_without_answer_columns_says_what_it_expected(tmp_path):
    path = tmp_path / "other.csv"
    path.write_text("HITId,AssignmentId,WorkerId,Input.label,Answer.rating\nH,A,W,card_arrival,5\n", encoding="utf-8")
    [problem] = parse_file(path, "mturk").problems
    assert "Answer.query" in problem.message and "Answer.rating" in problem.message
    with pytest.raises(ConfigError, match="unknown import format"):
        parse_file(path, "excel")
    with pytest.raises(ConfigError, match="unknown import kind"):
        parse_file(path, "mturk", kind="answers")


# ---- Label Studio -------------------------------------------------------------------------------------------
def test_labelstudio_tags_export(data):
    parsed = parse_file(data / "labelstudio_tags_bank.json", "labelstudio")
    assert parsed.ok, messages(parsed)
    assert parsed.kind == "tags"
    by_task: dict[str, set] = {}
    for r in parsed.records:
        by_task.setdefault(r.task, set()).add((r.worker, r.tag, r.answer))
    assert ("3", "travel abroad", "yes") in by_task["101"]
    assert ("annotator5@example.org", "travel abroad", "no") in by_task["101"]
    # 'none of the above' -> every offered tag 'no'
    assert {a for w, _, a in by_task["102"] if w == "annotator5@example.org"} == {"no"}
    assert [(r.tag, r.answer, r.options) for r in parsed.records if r.task == "103"] == [
        ("card type", "mastercard", ("visa", "mastercard"))
    ]
    [cancelled] = parsed.skipped
    assert (cancelled.assignment, cancelled.worker, cancelled.line) == ("1003", "7", 2)
    lines = sorted({r.origin.line for r in parsed.records})
    assert lines[0] == 2 and len(lines) == 3  # each task's records point at the line where it starts


def test_labelstudio_queries_and_problems(tmp_path, data):
    parsed = parse_file(data / "labelstudio_queries_bank.json", "labelstudio")
    assert parsed.ok and parsed.kind == "queries"
    assert [r.text for r in parsed.records] == ["someone took my wallet", "card gone missing", "euro conversion cost"]

    path = tmp_path / "ls.json"
    path.write_text('[\n  {"id": 1, "data": {"label": "x"}, "annotations": [{"result": [\n  {"type": "textarea",'
                    ' "value": {"text": ["  "]}}]}]}\n]', encoding="utf-8")  # fmt: skip
    [problem] = parse_file(path, "labelstudio").problems
    assert (problem.line, problem.column) == (2, "annotations[0].result[0].value.text")
    assert "query is empty" in problem.message

    path.write_text('{"tasks": []}', encoding="utf-8")
    assert "expected a JSON list of tasks" in parse_file(path, "labelstudio").problems[0].message
    path.write_text('[{"id": 1,\n "data": {"label": "x"}\n "annotations": []}]', encoding="utf-8")
    [problem] = parse_file(path, "labelstudio").problems
    assert problem.line == 3 and "invalid JSON" in problem.message


# ---- plain CSV / JSONL ----------------------------------------------------------------------------------------
def test_plain_queries_csv(data):
    parsed = parse_file(data / "queries_bank.csv", "csv")
    assert parsed.ok, messages(parsed)
    assert parsed.kind == "queries" and parsed.format == "csv"
    assert [(r.label, r.split) for r in parsed.records] == [
        ("card_arrival", "train"),
        ("Card arrival", "test"),
        ("lost_or_stolen_card", "train"),
        ("exchange_rate", None),
        ("top_up_failed", "dev"),
    ]
    assert isinstance(parsed.records[2], QueryRecord) and parsed.records[2].text == "I lost my wallet, card inside"


def test_plain_tags_csv_and_jsonl(data):
    parsed = parse_file(data / "tags_bank.csv", "csv")
    assert parsed.ok, messages(parsed)
    assert [(r.tag, r.kind, r.answer, r.count) for r in parsed.records][:3] == [
        ("card delivery", "binary", "yes", 4.0),
        ("card delivery", "binary", "no", 1.0),
        ("card delivery", "binary", "no", 5.0),
    ]
    assert (
        parsed.records[-1].kind == "choice" and parsed.records[-1].answer == "Visa"
    )  # checked against the domain later
    parsed = parse_file(data / "tags_bank.jsonl", "csv")
    assert parsed.ok and parsed.format == "jsonl"
    assert [r.origin.line for r in parsed.records] == [1, 2, 3, 5, 6, 7]  # a blank line 4 is skipped
    assert parsed.records[4].options == ("euro", "dollar", "pound")


def test_plain_problems(tmp_path):
    path = tmp_path / "tags.csv"
    path.write_text(
        "Label,Tag,Answer,Count,Colour\n"
        "card_arrival,lost card,maybe,1,red\n"
        "card_arrival,lost card,yes,-2,red\n"
        "card_arrival,,yes,1,red\n"
        "card_arrival,card type,amex,1,red\n",
        encoding="utf-8",
    )
    parsed = parse_file(path, "csv")
    found = {(p.line, p.column): p.message for p in parsed.problems}
    assert "'maybe' is not a binary answer: use 'yes' or 'no'" in found[2, "Answer"]
    assert "not a positive number" in found[3, "Count"]
    assert "'tag' is empty" in found[4, "Tag"]
    assert parsed.ignored_columns == ["Colour"]
    assert "put 'choice' in the kind column" in found[5, "Answer"]  # no kind, no options: binary
    path.write_text("label,tag,answer,options\ncard_arrival,card type,amex,visa|mastercard\n", encoding="utf-8")
    [problem] = parse_file(path, "csv").problems
    assert "unknown option 'amex' for question 'card type'" in problem.message

    path.write_text("label,question\nx,y\n", encoding="utf-8")
    assert "pass --kind" in parse_file(path, "csv").problems[0].message
    path.write_text("label,name\n", encoding="utf-8")
    assert "header but no data rows" in parse_file(path, "csv").problems[0].message
    path.write_text("label,split\nx,train\n", encoding="utf-8")
    [problem] = parse_file(path, "csv", kind="queries").problems
    assert problem.column == "text" and "has no 'text' column" in problem.message
    jsonl = tmp_path / "q.jsonl"
    jsonl.write_text('{"label": "x", "text": "hi"}\n{"label": "x", "text": 7, "split": "holdout"}\n[1]\n{bad', "utf-8")
    parsed = parse_file(jsonl, "csv")
    assert [(p.line, p.column) for p in parsed.problems] == [(3, None), (4, None)]
    jsonl.write_text('{"label": "x", "text": "hi", "split": "holdout"}\n', "utf-8")
    assert "unknown split 'holdout'" in parse_file(jsonl, "csv").problems[0].message


# ---- reading files ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "the file is empty"),
        (b"  \n\n", "the file is empty"),
        (b"label,text\ncaf\xe9,x\n", "is not valid UTF-8"),
        ("label,text\n".encode("utf-16"), "UTF-16"),
        (b"label,text\x00\n", "NUL bytes"),
        (b'label,text\ncard_arrival,"unclosed\n', "quoted field is not closed"),
        (b"label,text\ncard_arrival,a,b\n", "the row has 3 fields but the header has 2"),
    ],
)
def test_unreadable_files_are_problems_not_exceptions(tmp_path, content, expected):
    path = tmp_path / "f.csv"
    path.write_bytes(content)
    parsed = parse_file(path, "csv", kind="queries")
    assert not parsed.ok
    assert expected in parsed.problems[0].message
    if b"\xe9" in content:
        assert parsed.problems[0].line == 2 and "character 4" in parsed.problems[0].message


def test_missing_file_and_folder(tmp_path):
    [problem] = parse_file(tmp_path / "nope.csv", "mturk").problems
    assert "file not found" in problem.message and problem.line is None
    [problem] = parse_file(tmp_path, "csv").problems
    assert "is a folder" in problem.message


def test_bom_is_accepted(tmp_path):
    path = tmp_path / "q.csv"
    path.write_bytes(b"\xef\xbb\xbflabel,text\ncard_arrival,hello\n")
    parsed = parse_file(path, "csv")
    assert parsed.ok and parsed.kind == "queries"


def test_all_rejected_means_nothing_to_import(tmp_path, data):
    def edit(rows):
        for row in rows:
            row["AssignmentStatus"] = "Rejected"

    parsed = parse_file(rewrite_mturk(data / "mturk_tags_bank.csv", tmp_path / "r.csv", edit), "mturk")
    assert "all 6 assignments were skipped" in parsed.problems[0].message


def test_csv_reader_handles_crlf(tmp_path):
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerows([["label", "text"], ["card_arrival", "a"], ["x", "b"]])
    path = tmp_path / "crlf.csv"
    path.write_text(buffer.getvalue(), encoding="utf-8", newline="")
    parsed = parse_file(path, "csv")
    assert [r.origin.line for r in parsed.records] == [2, 3]
