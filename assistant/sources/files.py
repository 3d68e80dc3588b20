"""Careful reading of the files a person gives Clarify (a FAQ, a folder of articles, a crowd export): bounded,
regular files only, never through a link, UTF-8 text, strict CSV and JSON Lines, every damage a ``Problem``
at its line and never an exception. The own-FAQ readers (``assistant.sources.own_faq``) and the crowd
importers (``crowdsourcing.importers``) share them.
"""

from __future__ import annotations

import codecs
import csv
import hashlib
import io
import json
import os
import stat
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from assistant.errors import Problem


def shorten(text: str, width: int = 40) -> str:
    """``text`` cut to ``width`` characters for a message (a hostile field can be megabytes long)."""
    return text if len(text) <= width else text[: width - 1] + "…"


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
