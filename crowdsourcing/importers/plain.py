"""Plain CSV (comma; tab for .tsv) and JSONL files, one record per row or line.

Column (or field) names are case-insensitive; unknown ones are ignored and listed in the report.

========  =======================================================================================
kind      columns (* = required)
========  =======================================================================================
queries   label*, text* (or query), split (train|dev|test, default train), worker, task
tags      label*, tag*, answer*, kind (binary|choice; default choice when options are given, else
          binary), options ("a|b|c"), worker, task, count (how many people gave this answer, default 1)
labels    label* (the key), name, text, answer (one answer text; repeat the row for more, or give an
          "answers" list in JSONL)
========  =======================================================================================

Binary answers are yes/no (y/n, true/false, 1/0 accepted); choice answers an option or "not applicable".
Without --kind the kind is guessed from the columns: a 'tag' column means tags, a 'name' or 'answer'
column labels, otherwise queries.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from assistant.sources.files import Problems, json_objects, read_csv, shorten
from crowdsourcing.importers.base import (
    NOT_APPLICABLE,
    LabelRecord,
    Origin,
    ParsedFile,
    QueryRecord,
    TagRecord,
    match_choice,
    split_multi,
)
from crowdsourcing.validation import (
    BINARY_HELP,
    MAX_COUNT,
    SPLIT_HELP,
    binary_answer,
    clean_text,
    normalize_split,
    parse_count,
)

COLUMNS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # kind: (required, optional)
    "queries": (("label", "text"), ("split", "worker", "task")),
    "tags": (("label", "tag", "answer"), ("kind", "options", "worker", "task", "count")),
    "labels": (("label",), ("name", "text", "answer", "answers")),
}
ALIASES = {"query": "text"}
CHOICE_KINDS: dict[str, Literal["binary", "choice"]] = {
    "choice": "choice",
    "multiple-choice": "choice",
    "multiple choice": "choice",
    "binary": "binary",
}


class Row:
    """One row or JSON line: values by lower-case field name, and each field's name as written in the file."""

    def __init__(self, line: int, values: dict[str, Any], names: dict[str, str]) -> None:
        self.line = line
        self.values = values
        self.names = names

    def text(self, name: str) -> str:
        value = self.values.get(name)
        if isinstance(value, list):
            return "|".join(clean_text(v) for v in value)
        return clean_text(value)

    def column(self, name: str) -> str:
        return self.names.get(name, name)

    def origin(self, *fields: str) -> Origin:
        return Origin(self.line, {f: self.column(f) for f in fields})


def detect_kind(fields: set[str]) -> str | None:
    if "tag" in fields:
        return "tags"
    if fields & {"name", "answer", "answers"}:
        return "labels"
    if "text" in fields:
        return "queries"
    return None


def parse(text: str, parsed: ParsedFile, problems: Problems, jsonl: bool = False, delimiter: str = ",") -> None:
    """Fill ``parsed`` from a plain CSV or JSONL file; report into ``problems``."""
    read = _jsonl_rows(text, problems) if jsonl else _csv_rows(text, problems, delimiter)
    if read is None:
        return
    rows, fields = read  # fields: lower-case name -> name as written (CSV: the header; JSONL: all keys)
    parsed.rows = len(rows)
    kind = parsed.kind or detect_kind(set(fields))
    if kind is None:
        problems.add(
            1,
            None,
            f"cannot tell what the file holds from its {'fields' if jsonl else 'columns'} "
            f"({', '.join(fields.values()) or 'none'}): pass --kind queries, tags or labels",
        )
        return
    parsed.kind = kind
    required, optional = COLUMNS[kind]
    parsed.ignored_columns = [name for key, name in fields.items() if key not in required + optional]
    if not rows:
        problems.add(None, None, "the file has a header but no data rows")
        return
    if not jsonl:
        missing = [c for c in required if c not in fields]
        for column in missing:
            problems.add(
                1,
                column,
                f"the header has no {column!r} column, which a {kind} file needs (columns: "
                f"{', '.join(required)} required, {', '.join(optional)} optional); found: "
                f"{', '.join(fields.values())}",
            )
        if missing:
            return
    handler: Callable[[Row, ParsedFile, Problems], None] = {
        "queries": _query,
        "tags": _tag,
        "labels": _label,
    }[kind]
    for row in rows:
        absent = [c for c in required if not row.text(c)]
        if absent:
            for column in absent:
                problems.add(row.line, row.column(column), f"{column!r} is empty or missing: a {kind} row needs it")
            continue
        handler(row, parsed, problems)


def _csv_rows(text: str, problems: Problems, delimiter: str) -> tuple[list[Row], dict[str, str]] | None:
    table = read_csv(text, problems, delimiter)
    if table is None:
        return None
    names: dict[str, str] = {}
    for column in table.header:
        key = column.strip().casefold()
        names.setdefault(ALIASES.get(key, key), column)
    rows = [
        Row(line, {ALIASES.get(k.casefold(), k.casefold()): v for k, v in values.items()}, names)
        for line, values in table.rows
    ]
    return rows, names


def _jsonl_rows(text: str, problems: Problems) -> tuple[list[Row], dict[str, str]] | None:
    rows = []
    for number, value in json_objects(text, problems, '{"label": ..., "text": ...}'):
        values, names = {}, {}
        for key, item in value.items():
            lowered = ALIASES.get(str(key).casefold(), str(key).casefold())
            if isinstance(item, dict | bool) or (
                isinstance(item, list) and not all(isinstance(v, str | int | float) for v in item)
            ):
                problems.add(number, str(key), f"field {key!r} must be a string, a number or a list of strings")
                continue
            values[lowered] = item
            names[lowered] = str(key)
        rows.append(Row(number, values, names))
    if problems:
        return None
    fields: dict[str, str] = {}
    for row in rows:
        for key, name in row.names.items():
            fields.setdefault(key, name)
    return rows, fields


def _query(row: Row, parsed: ParsedFile, problems: Problems) -> None:
    split = normalize_split(row.text("split"))
    if split is None:
        problems.add(row.line, row.column("split"), f"unknown split {row.text('split')!r}: {SPLIT_HELP}")
        return
    record = QueryRecord(
        row.origin("label", "text", "split"),
        row.text("label"),
        row.text("text"),
        split or None,
        row.text("worker"),
        row.text("task"),
    )
    parsed.records.append(record)


def _tag(row: Row, parsed: ParsedFile, problems: Problems) -> None:
    options = tuple(split_multi(row.text("options")))
    kind_text = row.text("kind").casefold()
    kind = CHOICE_KINDS.get(kind_text) if kind_text else ("choice" if options else "binary")
    if kind is None:
        problems.add(row.line, row.column("kind"), f"unknown kind {row.text('kind')!r}: use 'binary' or 'choice'")
        return
    count = parse_count(row.values.get("count"))
    if count is None:
        problems.add(
            row.line,
            row.column("count"),
            f"count {shorten(row.text('count'))!r} is not a positive number of people up to {MAX_COUNT:,}: "
            "use e.g. 1 or 3",
        )
        return
    raw = row.text("answer")
    if kind == "binary":
        answer = binary_answer(raw)
        if answer is None:
            problems.add(
                row.line,
                row.column("answer"),
                f"answer {raw!r} is not a binary answer: {BINARY_HELP}; for a multiple-choice question put "
                "'choice' in the kind column",
            )
            return
    else:
        answer = match_choice(raw, options)
        if answer is None:
            problems.add(
                row.line,
                row.column("answer"),
                f"unknown option {raw!r} for question {row.text('tag')!r}: use one of "
                f"{', '.join(map(repr, options))} or {NOT_APPLICABLE!r}",
            )
            return
    parsed.records.append(
        TagRecord(
            row.origin("label", "tag", "answer"),
            row.text("label"),
            row.text("tag"),
            kind,
            answer,
            options,
            row.text("worker"),
            row.text("task"),
            count,
        )
    )


def _label(row: Row, parsed: ParsedFile, problems: Problems) -> None:
    answers: list[str] = []
    for field in ("answer", "answers"):
        value = row.values.get(field)
        if isinstance(value, list):
            answers.extend(clean_text(v) for v in value if clean_text(v))
        elif clean_text(value):
            answers.append(str(value).strip())
    parsed.records.append(
        LabelRecord(
            row.origin("label", "name", "text"),
            row.text("label"),
            row.text("name"),
            str(row.values.get("text") or "").strip(),
            tuple(answers),
        )
    )
