"""Imports of damaged or hostile files (crowdsourcing.importers, crowdsourcing.importing): counts that would poison the answer model, JSON integers of
more than 4,300 digits, valid JSONL with U+2028 / U+0085 inside strings, fields over 128 KiB, non-regular
files, user template regexes that backtrack, formula injection in exported task batches, and double counting
when the same rows come back reordered in another file."""

from __future__ import annotations

import csv
import json
import os
import threading

import numpy as np
import pytest

from assistant.app.lifecycle.registry import load_domain
from assistant.errors import ConfigError, ValidationError
from assistant.progress import run_job
from assistant.sources.templates import TemplateSet
from benchmarks.reliability.environment import build_crowd_domain, dump
from crowdsourcing.export import export_tasks
from crowdsourcing.importing import import_file

pytestmark = pytest.mark.reliability


@pytest.fixture
def bank():
    return build_crowd_domain("bank")


def rejected(path, fmt="csv", **options) -> ValidationError:
    before = dump("bank")
    with pytest.raises(ValidationError) as caught:
        run_job(import_file(path, "bank", fmt, **options))
    assert dump("bank") == before, "a failed import must change nothing"
    assert "\n" not in str(caught.value)
    return caught.value


# ---- defect 4: counts ------------------------------------------------------------------------------------
@pytest.mark.parametrize("count", ["3.4e38", "1e39", "inf", "nan", "-1", "0", "1000001", "9" * 400])
def test_counts_must_be_finite_positive_and_sane(bank, tmp_path, count):
    path = tmp_path / "tags.csv"
    path.write_text(f"label,tag,answer,count\ncard_arrival,lost card,yes,{count}\n", encoding="utf-8")
    error = rejected(path)
    assert error.problems[0].line == 2 and error.problems[0].column == "count"
    assert "up to 1,000,000" in error.problems[0].message


def test_the_largest_allowed_counts_keep_the_answer_model_finite(bank, tmp_path):
    path = tmp_path / "tags.csv"
    rows = "".join(f"card_arrival,lost card,{a},1000000\n" for a in ("yes", "no"))
    path.write_text("label,tag,answer,count\n" + rows, encoding="utf-8")
    run_job(import_file(path, "bank", "csv"))
    p_hat = load_domain("bank").p_hat()
    assert np.isfinite(p_hat).all()


def test_json_integers_beyond_4300_digits_are_a_problem_not_a_crash(bank, tmp_path):
    path = tmp_path / "tags.jsonl"
    path.write_text('{"label": "card_arrival", "tag": "lost card", "answer": "yes", "count": ' + "9" * 5000 + "}\n")
    error = rejected(path)
    assert "invalid JSON value" in error.problems[0].message
    export = tmp_path / "export.json"
    export.write_text('[{"id": ' + "1" * 5000 + ', "data": {"label": "x"}}]')
    assert "invalid JSON value" in rejected(export, "labelstudio").problems[0].message


# ---- defect 6: JSONL is split on \n only ------------------------------------------------------------------
@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])  # json.dumps escapes the C0 ones
def test_jsonl_strings_may_hold_unicode_line_separators(bank, tmp_path, separator):
    text = f"card still{separator}not here"
    path = tmp_path / "queries.jsonl"
    lines = [json.dumps({"label": "card_arrival", "text": text}, ensure_ascii=False), ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    report = run_job(import_file(path, "bank", "csv"))
    assert report.added["queries"] == 1


def test_jsonl_problems_point_at_real_lines(bank, tmp_path):
    path = tmp_path / "queries.jsonl"
    good = json.dumps({"label": "card_arrival", "text": "a\u2028b"}, ensure_ascii=False)
    path.write_text(f"{good}\n{good}\n{{broken\n", encoding="utf-8")
    assert [p.line for p in rejected(path).problems] == [3]


# ---- defect 5/9: big fields, non-regular files --------------------------------------------------------------
def test_a_field_over_128_kib_gets_the_right_message(bank, tmp_path):
    path = tmp_path / "queries.csv"
    path.write_text('label,text\ncard_arrival,"' + "x" * 140_000 + '"\n', encoding="utf-8")
    problem = rejected(path).problems[0]
    assert "over 128 KiB" in problem.message and "not closed" not in problem.message and problem.line == 2


def test_dev_zero_is_refused_at_once(bank):
    assert "not a regular file" in rejected(os.devnull).problems[0].message
    if os.path.exists("/dev/zero"):
        assert "not a regular file" in rejected("/dev/zero").problems[0].message


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_without_waiting_for_a_writer(bank, tmp_path):
    fifo = tmp_path / "batch.csv"
    os.mkfifo(fifo)
    result: list = []
    worker = threading.Thread(target=lambda: result.append(rejected(fifo)), daemon=True)
    worker.start()
    worker.join(timeout=20)
    assert not worker.is_alive(), "importing a FIFO must not block"
    assert "not a regular file" in result[0].problems[0].message


# ---- defect 5: user templates ---------------------------------------------------------------------------------
def write_templates(tmp_path, rules) -> str:
    path = tmp_path / "templates.json"
    path.write_text(json.dumps({"rules": rules}), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ({"match": ".*", "binary": "Is it {tag:d}?"}, "bad format"),
        ({"match": ".*", "binary": "Is it {tag!z}?"}, "bad format"),
        ({"match": ".*", "binary": "Is it {tag.__class__}?"}, "does not provide"),
        ({"match": ".*", "binary": "Is it {0}?"}, "does not provide"),
        ({"match": ".*", "binary": "Is it {tag:>99999999}?"}, "too wide"),
        ({"match": ".*", "binary": "Is it {tag"}, "bad template"),
        ({"match": ".*", "binary": 5}, "must be a string"),
        ({"match": 5, "binary": "Is it {tag}?"}, "needs a 'match'"),
        ({"match": "(", "binary": "Is it {tag}?"}, "bad regular expression"),
    ],
)
def test_bad_template_rules_are_refused_when_loaded(tmp_path, rule, expected):
    with pytest.raises(ConfigError, match=expected):
        TemplateSet.load(write_templates(tmp_path, [rule]))


def test_a_backtracking_template_regex_is_stopped(bank, tmp_path):
    templates = write_templates(tmp_path, [{"match": "^(a|aa)+$", "binary": "Is it {tag}?"}])
    path = tmp_path / "tags.csv"
    path.write_text("label,tag,answer\ncard_arrival," + "a" * 60 + "b,yes\n", encoding="utf-8")
    error = rejected(path, templates=templates)
    assert "backtracks" in error.problems[0].message


def test_template_files_that_are_not_json_objects(tmp_path):
    path = tmp_path / "templates.json"
    for content, expected in [
        ('{"rules": [' + "1" * 5000 + "]}", "not a template set"),
        (b"\xff\xfe{", "not UTF-8"),
        ("[]", "expected a JSON object"),
    ]:
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        with pytest.raises(ConfigError, match=expected):
            TemplateSet.load(path)


# ---- defect 7: formula injection ------------------------------------------------------------------------------
HOSTILE_LABELS = ['=HYPERLINK("http://x","y")', "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\t=1+1", "\r=1+1"]


def test_exported_cells_never_start_a_formula_and_import_back(bank, tmp_path):
    from assistant.store import KnowledgeBase, Label

    with KnowledgeBase.open("bank") as kb:
        kb.upsert_labels([Label(f"evil{i}", name, name) for i, name in enumerate(HOSTILE_LABELS)], "probe")
    out = tmp_path / "tasks.csv"
    export_tasks(load_domain("bank"), out, "tags", per_label=3)
    with out.open(encoding="utf-8", newline="") as handle:  # keep the \r inside quoted cells
        rows = list(csv.reader(handle))
    for row in rows[1:]:
        for cell in row:
            assert not cell.lstrip(" \t\r\n").startswith(("=", "+", "-", "@")), cell
            assert not cell.startswith(("\t", "\r")), cell
    names = {row[1] for row in rows[1:]}
    # every hostile name neutralised; a carriage return is a control character and leaves the cell (issue 41)
    assert {"'" + name.replace("\r", "") for name in HOSTILE_LABELS} <= names


def test_neutralised_cells_come_back_as_they_were(bank, tmp_path):
    from crowdsourcing.importers.base import neutralise_formula, restore_formula

    for cell in [*HOSTILE_LABELS, "plain", "'quoted", "-", "'=x", "''+y", ""]:
        assert restore_formula(neutralise_formula(cell)) == cell


# ---- defect 8: the same rows again, reordered, without a task column ---------------------------------------
@pytest.mark.parametrize("with_worker", [True, False])
def test_reordered_rows_without_a_task_are_not_counted_twice(bank, tmp_path, with_worker):
    rows = [
        ("card_arrival", "lost card", "no", "w1", "1"),
        ("card_arrival", "top up", "no", "w2", "2"),
        ("lost_or_stolen_card", "lost card", "yes", "w1", "3"),
        ("lost_or_stolen_card", "top up", "no", "w3", "1"),
        ("exchange_rate", "lost card", "no", "w2", "1"),
        ("exchange_rate", "top up", "no", "w1", "1"),
        ("top_up_failed", "top up", "yes", "w1", "2"),
        ("top_up_failed", "lost card", "no", "w2", "1"),
        ("top_up_failed", "top up", "yes", "w3", "1"),
    ]
    header = "label,tag,answer,worker,count" if with_worker else "label,tag,answer,count"

    def write(name, ordered):
        lines = [",".join(r if with_worker else (*r[:3], r[4])) for r in ordered]
        (tmp_path / name).write_text("\n".join([header, *lines]) + "\n", encoding="utf-8")
        return tmp_path / name

    first = run_job(import_file(write("a.csv", rows), "bank", "csv"))
    second = run_job(import_file(write("b.csv", rows[::-1]), "bank", "csv"))
    # without workers the two 'top_up_failed / top up / yes' rows are one aggregated count
    assert first.added["annotations"] == (9 if with_worker else 8) and second.added["annotations"] == 0
    counts = load_domain("bank").counts
    assert counts.sum() == pytest.approx(40.0 + sum(float(r[4]) for r in rows))  # 40: the induced ones
