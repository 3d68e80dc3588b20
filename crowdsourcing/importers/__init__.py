"""Importers for crowd data: MTurk batch results, Label Studio JSON exports, plain CSV/TSV/JSONL.

``parse_file(path, fmt, kind)`` reads one file into a ``ParsedFile``: typed records (queries, tag
annotations or labels), every problem with file, line and column, and the assignments that were skipped
(rejected or cancelled). It never raises for bad input and never touches a knowledge base; checking the
records against a domain and writing them is ``crowdsourcing.importing``.

>>> parsed = parse_file("batch_results.csv", "mturk")          # doctest: +SKIP
>>> parsed.kind, len(parsed.records), [str(p) for p in parsed.problems]   # doctest: +SKIP
('tags', 60, [])
"""

from __future__ import annotations

from pathlib import Path

from assistant.errors import ConfigError
from assistant.sources.files import Problems, read_text
from crowdsourcing.importers import labelstudio, mturk, plain
from crowdsourcing.importers.base import (
    KINDS,
    NONE_OF_THE_ABOVE,
    NOT_APPLICABLE,
    SEPARATOR,
    TAG_SLOTS,
    LabelRecord,
    Origin,
    ParsedFile,
    QueryRecord,
    Record,
    Skipped,
    TagRecord,
)

FORMATS: dict[str, str] = {
    "mturk": "Amazon Mechanical Turk batch results CSV (Input.* / Answer.* columns, one row per assignment)",
    "labelstudio": "Label Studio JSON export (tasks with annotations)",
    "csv": "plain CSV (.csv, .tsv) or JSON Lines (.jsonl) with one record per row",
}

__all__ = [
    "FORMATS",
    "KINDS",
    "NONE_OF_THE_ABOVE",
    "NOT_APPLICABLE",
    "SEPARATOR",
    "TAG_SLOTS",
    "LabelRecord",
    "Origin",
    "ParsedFile",
    "QueryRecord",
    "Record",
    "Skipped",
    "TagRecord",
    "parse_file",
]


def file_format(path: Path, fmt: str) -> str:
    """The concrete format stored for an import: 'mturk', 'labelstudio', 'csv', 'tsv' or 'jsonl'."""
    if fmt not in FORMATS and fmt not in ("jsonl", "tsv"):
        raise ConfigError(f"unknown import format {fmt!r}: use one of {', '.join(FORMATS)}")
    if fmt == "csv":
        suffix = path.suffix.casefold()
        if suffix in (".jsonl", ".ndjson"):
            return "jsonl"
        if suffix == ".tsv":
            return "tsv"
    return fmt


def parse_file(path: str | Path, fmt: str, kind: str | None = None) -> ParsedFile:
    """Parse ``path`` in format ``fmt`` ('mturk', 'labelstudio', 'csv'; csv also reads .tsv and .jsonl).

    ``kind`` ('queries', 'tags' or 'labels') is guessed from the file when None. Bad input gives problems
    in the result, never an exception; only an unknown ``fmt`` or ``kind`` raises ConfigError.
    """
    if kind is not None and kind not in KINDS:
        raise ConfigError(f"unknown import kind {kind!r}: use one of {', '.join(KINDS)}")
    path = Path(path)
    concrete = file_format(path, fmt)
    parsed = ParsedFile(path=path, format=concrete, kind=kind)
    problems = Problems(path.name)
    text, parsed.sha256 = read_text(path, problems)
    if text is not None:
        if concrete == "mturk":
            mturk.parse(text, parsed, problems)
        elif concrete == "labelstudio":
            labelstudio.parse(text, parsed, problems)
        else:
            plain.parse(text, parsed, problems, jsonl=concrete == "jsonl", delimiter="\t" if concrete == "tsv" else ",")
    if text is not None and not problems and not parsed.records:
        if parsed.skipped:
            problems.add(None, None, f"nothing to import: all {len(parsed.skipped)} assignments were skipped")
        else:
            problems.add(None, None, "nothing to import: the file has no data rows")
    parsed.problems = problems.items
    return parsed
