"""Hypothesis-generated malformed files: each is rejected with a clear message and changes nothing.

Every example is imported into the same tiny domain; since every import must fail, the domain's full SQL
dump must be identical before and after each one.
"""

from __future__ import annotations

import csv
import io
import json

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from assistant.errors import ClarifyError, ValidationError
from assistant.progress import run_job
from assistant.store import normalize_label_name
from crowdsourcing.importing import import_file
from tests.support.crowd import DATA, build_bank, dump

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    database=None,
)
LABEL_NAMES = {normalize_label_name(n) for n in ("card_arrival", "Card arrival", "lost_or_stolen_card", "exchange_rate",
                                                   "Exchange rate", "top_up_failed", "Top up failed", "Lost or stolen card")}  # fmt: skip
MTURK_TAGS = (DATA / "mturk_tags_bank.csv").read_text(encoding="utf-8")
MTURK_QUERIES = (DATA / "mturk_queries_bank.csv").read_text(encoding="utf-8")
LABELSTUDIO = (DATA / "labelstudio_tags_bank.json").read_text(encoding="utf-8")
JSONL = (DATA / "tags_bank.jsonl").read_text(encoding="utf-8")


@pytest.fixture
def domain():
    name = build_bank()
    return name, dump(name)


def assert_rejected(domain, path, fmt, kind=None):
    """Importing ``path`` fails with a ClarifyError whose message is one clear line; nothing changes."""
    name, before = domain
    with pytest.raises(ClarifyError) as caught:
        run_job(import_file(path, name, fmt, kind=kind))
    message = str(caught.value)
    assert message and "\n" not in message and "Traceback" not in message
    if isinstance(caught.value, ValidationError):
        assert caught.value.problems
        assert all(p.file == path.name and p.message for p in caught.value.problems)
        assert "nothing was imported" in message
    assert dump(name) == before
    return caught.value


def csv_table(text):
    rows = list(csv.reader(io.StringIO(text, newline="")))
    return rows[0], rows[1:]


def csv_text(header, rows):
    buffer = io.StringIO()
    writer = csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


@SETTINGS
@given(content=st.binary(max_size=400), fmt=st.sampled_from(["mturk", "labelstudio", "csv", "jsonl"]))
def test_random_bytes(domain, tmp_path, content, fmt):
    path = tmp_path / ("batch.jsonl" if fmt == "jsonl" else "batch.csv")
    path.write_bytes(content)
    assert_rejected(domain, path, "csv" if fmt == "jsonl" else fmt)


@SETTINGS
@given(data=st.data(), source=st.sampled_from(["mturk_tags", "mturk_queries", "labelstudio", "jsonl"]))
def test_truncated_files(domain, tmp_path, data, source):
    text = {"mturk_tags": MTURK_TAGS, "mturk_queries": MTURK_QUERIES, "labelstudio": LABELSTUDIO, "jsonl": JSONL}[
        source
    ]
    body = text.rstrip("\n")
    last_row = body.rindex("\n") + 1
    if source == "labelstudio":  # anywhere before the closing bracket
        cut = data.draw(st.integers(1, body.rindex("]") - 1))
    else:  # inside the last row, dropping at least its final character
        cut = data.draw(st.integers(last_row + 1, len(body) - 1))
        # cut just after the last comma, an MTurk row is complete again, with an empty last field (Reject)
        assume(not (source.startswith("mturk") and cut == body.rindex(",") + 1))
    path = tmp_path / ("batch.jsonl" if source == "jsonl" else "batch.json" if source == "labelstudio" else "batch.csv")
    path.write_text(text[:cut], encoding="utf-8")
    fmt = {"labelstudio": "labelstudio", "jsonl": "csv"}.get(source, "mturk")
    assert_rejected(domain, path, fmt)


@SETTINGS
@given(column=st.sampled_from(["HITId", "AssignmentId", "WorkerId", "Input.label", "Answer.selected"]))
def test_missing_required_columns(domain, tmp_path, column):
    header, rows = csv_table(MTURK_TAGS)
    keep = [i for i, name in enumerate(header) if name != column]
    path = tmp_path / "batch.csv"
    path.write_text(csv_text([header[i] for i in keep], [[row[i] for i in keep] for row in rows]), encoding="utf-8")
    error = assert_rejected(domain, path, "mturk")
    assert column in str(error) or "Answer." in str(error)


@SETTINGS
@given(data=st.data(), label=st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=20))
def test_unknown_labels(domain, tmp_path, data, label):
    assume(label.strip() and normalize_label_name(label) not in LABEL_NAMES)
    header, rows = csv_table(MTURK_TAGS)
    approved = [i for i, row in enumerate(rows) if row[header.index("AssignmentStatus")] != "Rejected"]
    target = data.draw(st.sampled_from(approved))
    rows[target][header.index("Input.label")] = label
    path = tmp_path / "batch.csv"
    path.write_text(csv_text(header, rows), encoding="utf-8")
    error = assert_rejected(domain, path, "mturk")
    assert isinstance(error, ValidationError)
    assert any("unknown label" in p.message and p.column == "Input.label" for p in error.problems)


@SETTINGS
@given(data=st.data(), answer=st.text(max_size=12))
def test_bad_answers(domain, tmp_path, data, answer):
    kind = data.draw(st.sampled_from(["binary", "choice", "query"]))
    path = tmp_path / "bad.csv"
    if kind == "binary":
        assume(answer.strip().casefold() not in {"yes", "y", "true", "1", "t", "no", "n", "false", "0", "f"})
        path.write_text(csv_text(["label", "tag", "answer"], [["card_arrival", "lost card", answer]]), "utf-8")
    elif kind == "choice":
        assume(" ".join(answer.casefold().split()) not in {"visa", "mastercard", "not applicable"})
        path.write_text(
            csv_text(["label", "tag", "answer", "kind"], [["card_arrival", "card type", answer, "choice"]]), "utf-8"
        )
    else:
        answer = data.draw(st.sampled_from(["", " ", "\t", "  \n "]))
        path.write_text(csv_text(["label", "text"], [["card_arrival", answer]]), "utf-8")
    assert_rejected(domain, path, "csv", kind="queries" if kind == "query" else "tags")


def json_values():
    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=12)  # fmt: skip


@SETTINGS
@given(value=json_values(), garbage=st.text(max_size=40))
def test_bad_json(domain, tmp_path, value, garbage):
    path = tmp_path / "export.json"
    path.write_text(json.dumps(value), encoding="utf-8")  # valid JSON, but not a Label Studio export
    assert_rejected(domain, path, "labelstudio")
    try:
        json.loads(garbage)
    except ValueError:
        path.write_text(garbage, encoding="utf-8")  # not JSON at all
        assert_rejected(domain, path, "labelstudio")


@SETTINGS
@given(line=st.sampled_from([0, 1, 4]), value=json_values())
def test_bad_jsonl_lines(domain, tmp_path, line, value):
    assume(not isinstance(value, dict))
    lines = JSONL.splitlines()
    lines[line] = json.dumps(value)
    path = tmp_path / "tags.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    error = assert_rejected(domain, path, "csv")
    assert isinstance(error, ValidationError)
    assert [p.line for p in error.problems] == [line + 1]


def test_a_file_over_the_import_cap_is_refused_with_what_to_do_instead(domain, tmp_path, monkeypatch):
    """Issue 41: one import holds at most ``MAX_IMPORT_RECORDS`` records; a larger file is a problem that says to
    split it, and nothing of it is written."""
    import crowdsourcing.importing

    monkeypatch.setattr(crowdsourcing.importing, "MAX_IMPORT_RECORDS", 3)
    path = tmp_path / "queries.csv"
    rows = "".join(f"card_arrival,where is my card {i}\n" for i in range(4))
    path.write_text("label,text\n" + rows, encoding="utf-8")
    error = assert_rejected(domain, path, "csv", kind="queries")
    assert [p.message for p in error.problems if "split it" in p.message] == [
        "the file holds 4 records; one import takes at most 3: split it into files of at most 3 rows and import "
        "them one after another (each is all-or-nothing)"
    ]
    monkeypatch.setattr(crowdsourcing.importing, "MAX_IMPORT_RECORDS", 4)  # at the cap: imported
    run_job(import_file(path, domain[0], "csv", kind="queries"))
