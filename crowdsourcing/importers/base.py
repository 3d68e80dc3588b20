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

import codecs
import csv
import difflib
import hashlib
import io
import json
import os
import stat
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from assistant.errors import Problem

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


class Problems:
    """Collects ``Problem`` objects for one file (saves repeating the file name everywhere)."""

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.items: list[Problem] = []

    def add(self, line: int | None, column: str | None, message: str) -> None:
        self.items.append(Problem(self.filename, line, column, message))

    def __len__(self) -> int:
        return len(self.items)


# ---- reading files -------------------------------------------------------------------------------------
UTF8_HINT = "save it as UTF-8 (in Excel: 'Save as' > 'CSV UTF-8'; in a text editor: encoding UTF-8)"


MAX_FILE_BYTES = 256 * 1024 * 1024  # crowd exports are megabytes; anything bigger is the wrong file
READ_CHUNK_BYTES = 1024 * 1024
MAX_FIELD_CHARS = 128 * 1024  # the csv module's default limit, kept for every format
MAX_COLUMNS = 2000  # an MTurk results file has a few dozen; 200,000 is a damaged or hostile file
FIELD_HINT = (
    f"a field longer than {MAX_FIELD_CHARS // 1024} KiB is more than Clarify reads in one field: check the file (an "
    "unclosed quote swallows the rest of the file into one field) or shorten the field"
)


def read_bytes(path: Path, problems: Problems, limit: int = MAX_FILE_BYTES, too_large: str = "") -> bytes | None:
    """The bytes of the regular file ``path``, read in bounded chunks; None (with a problem) for a missing,
    unreadable or oversized file and for anything that is not a regular file (a folder, a FIFO, a device such
    as /dev/zero: those could block or never end). ``too_large``: what to tell a person whose file is over
    ``limit`` (default: the crowd-export advice). A symbolic link is refused: a file named like an export
    could point at a secret, and the problems would quote its first line."""
    if os.path.islink(path):
        problems.add(
            None,
            None,
            f"{path} is a symbolic link: Clarify imports only regular files; give the path of the exported file itself",
        )
        return None
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then says what was opened. O_NOFOLLOW:
        # a link put in place after the check above is refused too (ELOOP).
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        problems.add(None, None, f"file not found: {path} does not exist; check the path and the current folder")
        return None
    except IsADirectoryError:
        problems.add(None, None, f"{path} is a folder, not a file: give the path of the exported file")
        return None
    except OSError as exc:
        problems.add(None, None, f"cannot read {path}: {exc.strerror or exc}; check the file's permissions")
        return None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            problems.add(None, None, f"{path} is a folder, not a file: give the path of the exported file")
        else:
            problems.add(
                None,
                None,
                f"{path} is not a regular file (a pipe, socket or device): save the export to a file and import that",
            )
        return None
    with os.fdopen(fd, "rb", buffering=0) as handle:
        if getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(fd, True)
        chunks, size = [], 0
        try:
            while chunk := handle.read(READ_CHUNK_BYTES):
                size += len(chunk)
                if size > limit:
                    problems.add(
                        None,
                        None,
                        f"the file is larger than {limit // (1024 * 1024)} MiB: "
                        + (too_large or "that is not a crowd export; split it into smaller batches"),
                    )
                    return None
                chunks.append(chunk)
        except OSError as exc:
            problems.add(None, None, f"cannot read {path}: {exc.strerror or exc}")
            return None
    return b"".join(chunks)


def read_text(
    path: Path, problems: Problems, limit: int = MAX_FILE_BYTES, too_large: str = ""
) -> tuple[str | None, str]:
    """Read ``path`` as UTF-8 text (a BOM is allowed); return (text or None, sha256 of the bytes).

    Missing, unreadable, non-regular, oversized (``limit``, ``too_large`` as for ``read_bytes``), empty, binary
    and wrongly encoded files become problems, never exceptions.
    """
    data = read_bytes(path, problems, limit, too_large)
    if data is None:
        return None, ""
    digest = hashlib.sha256(data).hexdigest()
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        problems.add(None, None, f"the file is UTF-16 encoded, not UTF-8: {UTF8_HINT}")
        return None, digest
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        problems.add(line, None, f"the file contains NUL bytes, so it is binary, not a text export: {UTF8_HINT}")
        return None, digest
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        problems.add(
            line,
            None,
            f"byte 0x{data[exc.start]:02x} at character {column} is not valid UTF-8 "
            f"(the file is probably Latin-1 or Windows-1252): {UTF8_HINT}",
        )
        return None, digest
    if not text.strip():
        problems.add(None, None, "the file is empty: export the data again and check that it has a header and rows")
        return None, digest
    return text, digest


@dataclass
class Table:
    """A CSV file as a header and rows, each row with its first physical line (1-based)."""

    header: list[str]
    rows: list[tuple[int, dict[str, str]]]


def read_csv(text: str, problems: Problems, delimiter: str = ",") -> Table | None:
    """Parse CSV ``text`` strictly; rows whose field count differs from the header's are problems.

    Blank lines are ignored. Returns None when the file cannot be read as CSV at all.
    """
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    header: list[str] | None = None
    rows: list[tuple[int, dict[str, str]]] = []
    previous_end = 0
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            line = previous_end + 1
            if "field limit" in str(exc):
                problems.add(line, None, f"the row has a field over {MAX_FIELD_CHARS // 1024} KiB: {FIELD_HINT}")
            else:
                problems.add(
                    line,
                    None,
                    f"malformed CSV ({exc}): a quoted field is not closed or the file is truncated; "
                    "export the file again or fix the quotes",
                )
            return None
        start, previous_end = previous_end + 1, reader.line_num
        if not any(f.strip() for f in fields):
            continue
        if header is None:
            header = [f.strip() for f in fields]
            if len(header) > MAX_COLUMNS:
                problems.add(
                    start,
                    None,
                    f"the header has {len(header):,} columns; a crowd export has at most {MAX_COLUMNS:,}: check that "
                    "this is the right file (a data dump, or one long line without line breaks?)",
                )
                return None
            repeated = sorted(h for h, n in Counter(header).items() if n > 1)
            if repeated:
                problems.add(start, None, f"the header repeats column(s) {', '.join(map(repr, repeated))}")
            continue
        if len(fields) != len(header):
            problems.add(
                start,
                None,
                f"the row has {len(fields)} fields but the header has {len(header)}: a field may contain an "
                "unquoted comma or line break, or the file is truncated",
            )
            continue
        rows.append((start, dict(zip(header, fields))))
    if header is None:
        problems.add(None, None, "the file has no header row: the first line must name the columns")
        return None
    return Table(header, rows)


def json_objects(text: str, problems: Problems, example: str) -> Iterator[tuple[int, dict]]:
    """(line number, object) of every non-blank line of a JSON Lines text; a line that is not one JSON object
    is a problem (``example`` shows what a line should look like) and is skipped."""
    # JSON Lines separates records by \n only: U+2028, U+0085 and the like are valid inside strings, and
    # str.splitlines would cut a record there
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            problems.add(number, None, f"invalid JSON: {exc.msg} (column {exc.colno}); each line must be one object")
            continue
        except RecursionError:
            problems.add(number, None, "the JSON is nested too deeply; each line must be one flat object")
            continue
        except ValueError as exc:  # e.g. an integer of more than 4,300 digits
            problems.add(number, None, f"invalid JSON value ({str(exc).split(':')[0]}); each line must be one object")
            continue
        if not isinstance(value, dict):
            problems.add(number, None, f"each line must be a JSON object such as {example}")
            continue
        yield number, value


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
