"""A FAQ as a table: CSV (a spreadsheet's "Save as CSV"), TSV or JSON Lines, one entry per row.

Columns are found by name, case-insensitively; the first name of each line below that the header has wins
(``COLUMN_NAMES``), and ``ParsedFaq.columns`` says which column was read as what:

=============  ==========================================================================================
title *        title, question, name, heading, subject, q
answer *       answer, answers, response, reply, solution, body, content, a; more answers in numbered
               columns: "answer 2", "answer_3", "Answer3", "response 2", ... (JSONL: a list of strings)
key            key, id, slug, label, entry id (a stable id; without it the key comes from the title)
description    description, text, details, problem, symptom, symptoms, summary
category       category, topic, section, area, group
=============  ==========================================================================================

Other columns are ignored and listed. One row is one entry: a key used twice is a problem (give the other
answers in numbered answer columns instead), and so is a title used twice.
"""

from __future__ import annotations

import re
from pathlib import Path

from assistant.sources.files import Problems, json_objects, read_csv
from assistant.sources.own_faq.entries import FaqEntry, ParsedFaq, clean, clean_block, derive_key

COLUMN_NAMES: dict[str, tuple[str, ...]] = {
    "title": ("title", "question", "name", "heading", "subject", "q"),
    "answer": ("answer", "answers", "response", "reply", "solution", "body", "content", "a"),
    "key": ("key", "id", "slug", "label", "entry id", "entry_id"),
    "description": ("description", "text", "details", "problem", "symptom", "symptoms", "summary"),
    "category": ("category", "topic", "section", "area", "group"),
}
REQUIRED = ("title", "answer")
_NUMBERED_ANSWER = re.compile(r"^(answer|response|reply|solution)s?[\s_.-]*\(?(\d{1,2})\)?$")


def _fold(name: str) -> str:
    return " ".join(str(name).replace("_", " ").casefold().split())


def find_columns(names: list[str]) -> tuple[dict[str, str], list[str], list[str]]:
    """({field: column name}, [answer columns in order], [ignored columns]) for a header (see the module)."""
    folded = {_fold(n): n for n in reversed(names)}  # the first of two spellings wins
    found: dict[str, str] = {}
    for field, aliases in COLUMN_NAMES.items():
        for alias in aliases:
            if _fold(alias) in folded:
                found[field] = folded[_fold(alias)]
                break
    numbered = []
    for name in names:
        match = _NUMBERED_ANSWER.match(_fold(name).replace(" ", ""))
        if match and name != found.get("answer"):
            numbered.append((int(match.group(2)), name))
    answers = ([found["answer"]] if "answer" in found else []) + [n for _, n in sorted(numbered)]
    used = set(found.values()) | set(answers)
    return found, answers, [n for n in names if n not in used]


def _missing(fields: dict[str, str], names: list[str], problems: Problems, what: str) -> bool:
    missing = [f for f in REQUIRED if f not in fields]
    for field in missing:
        accepted = ", ".join(COLUMN_NAMES[field])
        problems.add(
            1,
            field,
            f"no {field} column: name one of the {what} {accepted!s} (any case); found: "
            f"{', '.join(names[:12]) or 'none'}",
        )
    return bool(missing)


def _entry(
    values: dict[str, object], fields: dict[str, str], answer_fields: list[str], filename: str, line: int
) -> FaqEntry:
    def text(field: str) -> str:
        return clean(values.get(fields[field])) if field in fields else ""

    answers: list[str] = []
    for name in answer_fields:
        value = values.get(name)
        for item in value if isinstance(value, list) else [value]:
            block = clean_block(str(item)) if item is not None else ""
            if block:
                answers.append(block)
    title = text("title")
    key = text("key")
    description = clean_block(str(values.get(fields["description"]) or "")) if "description" in fields else ""
    return FaqEntry(
        key=key or derive_key(title),
        title=title,
        answers=tuple(answers),
        description=description,
        category=text("category"),
        file=filename,
        line=line,
        key_given=bool(key),
    )


def parse_table(text: str, path: Path, fmt: str, problems: Problems) -> ParsedFaq:
    """Entries of a CSV/TSV (``fmt`` 'csv' or 'tsv') or JSONL ('jsonl') text; problems go to ``problems``."""
    parsed = ParsedFaq(path, fmt)
    if fmt == "jsonl":
        rows = _jsonl_rows(text, problems)
        if rows is None:
            return parsed
        names = list(dict.fromkeys(k for _, row in rows for k in row))
        what = "fields"
    else:
        table = read_csv(text, problems, "\t" if fmt == "tsv" else ",")
        if table is None:
            return parsed
        names, rows, what = table.header, [(line, dict(values)) for line, values in table.rows], "columns"
    fields, answer_fields, parsed.ignored = find_columns(names)
    parsed.columns = {**{f: fields[f] for f in ("title", "key", "description", "category") if f in fields}}
    if answer_fields:
        parsed.columns["answers"] = ", ".join(answer_fields)
    if _missing(fields, names, problems, what):
        return parsed
    if not rows and not len(problems):
        problems.add(None, None, "the file has a header but no entries: add one row per FAQ entry")
        return parsed
    parsed.entries = [_entry(values, fields, answer_fields, path.name, line) for line, values in rows]
    return parsed


def _jsonl_rows(text: str, problems: Problems) -> list[tuple[int, dict[str, object]]] | None:
    """(line, object) of every non-blank line; None when a line is not a flat JSON object."""
    rows = []
    for number, value in json_objects(text, problems, '{"title": ..., "answer": ...}'):
        bad = [
            k
            for k, v in value.items()
            if isinstance(v, dict | bool) or (isinstance(v, list) and not all(isinstance(i, str) for i in v))
        ]
        for key in bad:
            problems.add(number, str(key), f"field {key!r} must be a string, a number or a list of strings")
        rows.append((number, {str(k): v for k, v in value.items()}))
    return None if len(problems) else rows
