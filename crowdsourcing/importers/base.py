"""What every importer shares: the parsed record types, the file conventions and careful file reading.

Importers are pure: they turn the bytes of one file into records plus a list of ``Problem`` (file, line,
column, message) and never touch a knowledge base. Checking the records against a domain and writing
them is ``crowdsourcing.importing``'s job, so that the GUI can preview a file without writing anything.

Conventions shared by the importers and by the task exporter (``crowdsourcing.export``):

- a multi-selection is one field with the values separated by ``|`` ("lost card|card delivery");
- a tag task offers up to ``TAG_SLOTS`` tags (``tag_1`` ... ``tag_10``) plus ``NONE_OF_THE_ABOVE``;
- a multiple-choice task offers ``options`` ("small|medium|large") plus ``NOT_APPLICABLE``.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from assistant.errors import Problem
from assistant.sources.files import Problems

ImportKind = Literal["queries", "tags", "labels"]
KINDS: tuple[str, ...] = ("queries", "tags", "labels")

TAG_SLOTS = 10
SEPARATOR = "|"
NONE_OF_THE_ABOVE = "none of the above"
NOT_APPLICABLE = "not applicable"
DEFAULT_SPLIT = "train"


# ---- records -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Origin:
    """Where a record came from: its (first) line and the file's name for each logical field."""

    line: int
    columns: Mapping[str, str] = field(default_factory=dict)

    def column(self, name: str) -> str:
        return self.columns.get(name, name)


@dataclass(frozen=True)
class QueryRecord:
    """A query a worker wrote for a label (kind 'queries'). ``split`` None means the default split."""

    origin: Origin
    label: str
    text: str
    split: str | None = None
    worker: str = ""
    task: str = ""


@dataclass(frozen=True)
class TagRecord:
    """One answer about one tag for one label (kind 'tags').

    Binary: ``answer`` is 'yes' or 'no'. Choice: ``answer`` is an option or ``NOT_APPLICABLE`` and
    ``options`` the values the task offered (empty when the file does not say). ``count`` is how many
    people gave this answer (1 for one worker's answer; plain files may give aggregated counts).
    """

    origin: Origin
    label: str
    tag: str
    kind: Literal["binary", "choice"]
    answer: str
    options: tuple[str, ...] = ()
    worker: str = ""
    task: str = ""
    count: float = 1.0


@dataclass(frozen=True)
class LabelRecord:
    """A label to create or extend (kind 'labels'); repeated rows for one key add answers."""

    origin: Origin
    key: str
    name: str = ""
    text: str = ""
    answers: tuple[str, ...] = ()


Record = QueryRecord | TagRecord | LabelRecord


@dataclass(frozen=True)
class Skipped:
    """An assignment or annotation left out on purpose (rejected on MTurk, cancelled in Label Studio)."""

    line: int
    worker: str
    task: str
    assignment: str
    reason: str

    def as_dict(self) -> dict:
        return {
            "line": self.line,
            "worker": self.worker,
            "task": self.task,
            "assignment": self.assignment,
            "reason": self.reason,
        }


@dataclass
class ParsedFile:
    """The result of parsing one file: records, problems and what was skipped. Nothing is written."""

    path: Path
    format: str
    kind: str | None
    sha256: str = ""
    records: list[Record] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    rows: int = 0
    ignored_columns: list[str] = field(default_factory=list)

    @property
    def filename(self) -> str:
        return self.path.name

    @property
    def ok(self) -> bool:
        return not self.problems


def missing_columns(
    header: Sequence[str], required: Sequence[str], problems: Problems, what: str, hint: str = ""
) -> bool:
    """Report each required column absent from ``header`` (suggesting close names); True if any is missing."""
    missing = [c for c in required if c not in header]
    for column in missing:
        close = difflib.get_close_matches(column, list(header), n=1, cutoff=0.6)
        suggestion = f" (found {close[0]!r}: rename it?)" if close else ""
        problems.add(
            1,
            column,
            f"the header has no {column!r} column, which {what} needs{suggestion}; columns found: "
            f"{', '.join(header[:12])}{' ...' if len(header) > 12 else ''}{'; ' + hint if hint else ''}",
        )
    return bool(missing)


# Spreadsheets run a cell as a formula when it starts with one of these (also after leading blanks, tabs or
# carriage returns); OWASP's CSV-injection advice: prefix such cells with an apostrophe.
FORMULA_STARTS = ("=", "+", "-", "@")
FORMULA_PREFIX = "'"


def _needs_prefix(cell: str) -> bool:
    """A formula, or an apostrophe before what needs one (so that ``restore_formula`` is exact)."""
    if cell.startswith(("\t", "\r")) or cell.lstrip(" \t\r\n").startswith(FORMULA_STARTS):
        return True
    return cell.startswith(FORMULA_PREFIX) and _needs_prefix(cell[1:])


def neutralise_formula(cell: str) -> str:
    """``cell`` with a leading apostrophe when a spreadsheet would run it as a formula (export side)."""
    return FORMULA_PREFIX + cell if _needs_prefix(cell) else cell


def restore_formula(cell: str) -> str:
    """Undo ``neutralise_formula`` on a value that comes back from a crowd platform (import side)."""
    if cell.startswith(FORMULA_PREFIX) and _needs_prefix(cell[1:]):
        return cell[1:]
    return cell


def split_multi(value: str) -> list[str]:
    """Split a ``|``-separated multi-selection, dropping blanks."""
    return [part.strip() for part in value.split(SEPARATOR) if part.strip()]


def fold(text: str) -> str:
    """Case- and space-insensitive form used to match answers against offered options."""
    return " ".join(str(text).casefold().split())


def match_choice(raw: str, options: tuple[str, ...]) -> str | None:
    """The offered option ``raw`` names (case-insensitive), NOT_APPLICABLE, or None if it names neither.

    With no options listed, any value is accepted here; the domain's question checks it later.
    """
    if fold(raw) == NOT_APPLICABLE:
        return NOT_APPLICABLE
    if not options:
        return raw
    return next((o for o in options if fold(o) == fold(raw)), None)
