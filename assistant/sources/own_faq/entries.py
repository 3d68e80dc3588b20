"""A desk's FAQ as typed entries, and the checks every FAQ format shares.

Every parser (``assistant.sources.own_faq.tables``, ``.markdown``, ``.articles``) turns its files into one list
of ``FaqEntry`` plus every ``Problem`` it found (file, line, what is wrong and how to fix it), never raising
for bad input; ``check_entries`` then applies the rules all formats share: a title and an answer, no key
twice, no title twice, no field or entry count over the limits. Nothing is written while a problem exists.

Keys are stable, so that a re-import edits entries in place instead of replacing them: the key/id column
(or a Markdown heading's ``{#key}``, an article's path) when the file has one, else ``derive_key`` of the
title (lowercase ASCII words joined by "-": "How do I renew a book?" -> "how-do-i-renew-a-book"), so
that the same title always gives the same key.
"""

from __future__ import annotations

import re
import unicodedata
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from assistant.errors import Problem
from assistant.sources.files import MAX_FIELD_CHARS, shorten

# A FAQ is tens to a few thousand entries: above this the file is the wrong one (or a data dump).
MAX_ENTRIES = 5000
MAX_TITLE_CHARS = 500
MAX_KEY_CHARS = 100
MAX_KEY_WORDS_CHARS = 60  # a derived key is cut at a word boundary before this
MAX_ANSWERS = 20
MAX_FAQ_FILE_BYTES = 32 * 1024 * 1024

FORMATS: dict[str, str] = {
    "csv": "a spreadsheet saved as CSV: one entry per row (title, answer; optional key, description, category, "
    "answer 2, answer 3, ...)",
    "tsv": "the same columns, tab-separated",
    "jsonl": 'JSON Lines: one object per line, e.g. {"title": ..., "answers": [...], "category": ...}',
    "markdown": "a Markdown FAQ: each question a heading, its answer the text under it; a higher heading above "
    "them is a category",
    "articles": "a folder of help articles (.md, .txt, .html): the first heading is the title, the rest the "
    "answer; a sub-folder is a category",
}


@dataclass(frozen=True)
class FaqEntry:
    """One FAQ entry: ``key`` (stable id), ``title`` (the question as the FAQ asks it), ``answers`` (one or
    more answer texts), an optional ``description`` (what the person sees or says) and ``category``;
    ``file`` and ``line`` say where it came from (for messages)."""

    key: str
    title: str
    answers: tuple[str, ...]
    description: str = ""
    category: str = ""
    file: str = ""
    line: int | None = None
    key_given: bool = False


@dataclass
class ParsedFaq:
    """What a parser found: the entries, every problem, which file columns (or parts) it read as what, and
    what it ignored. ``sha256`` identifies the bytes read (a folder: all its files)."""

    path: Path
    format: str
    entries: list[FaqEntry] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    columns: dict[str, str] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)
    title: str = ""
    sha256: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems and bool(self.entries)

    @property
    def categories(self) -> list[str]:
        return list(dict.fromkeys(e.category for e in self.entries if e.category))

    def describe(self) -> str:
        """One line for a person: what was read, as what."""
        parts = [f"{len(self.entries)} entries"]
        if self.categories:
            parts.append(f"{len(self.categories)} categories")
        several = sum(len(e.answers) > 1 for e in self.entries)
        if several:
            parts.append(f"{several} with several answers")
        found = ", ".join(f"{what} <- {name!r}" for what, name in self.columns.items())
        return ", ".join(parts) + (f" (read {found})" if found else "")


def clean(text: object) -> str:
    """Whitespace of one line collapsed ('' for None)."""
    return " ".join(str(text).split()) if text is not None else ""


def clean_block(text: str) -> str:
    """A multi-line text with each line's whitespace collapsed and runs of blank lines cut to one."""
    lines = [" ".join(line.split()) for line in str(text).replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()


def derive_key(title: str) -> str:
    """A key from a title: its words in lowercase ASCII joined by "-", cut at a word boundary; a title with no
    Latin letters or digits gets "entry-" and a checksum of the title. Deterministic."""
    ascii_text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii").casefold()
    parts = re.findall(r"[a-z0-9]+", ascii_text)
    key = ""
    for part in parts:
        if len(key) + len(part) + 1 > MAX_KEY_WORDS_CHARS and key:
            break
        key = f"{key}-{part}" if key else part[:MAX_KEY_WORDS_CHARS]
    return key or f"entry-{zlib.crc32(title.encode('utf-8')):08x}"


def title_form(title: str) -> str:
    """How two titles are compared: case, spacing and final punctuation do not count."""
    return " ".join(unicodedata.normalize("NFKC", title).casefold().split()).rstrip("?.!: ")


def check_entries(entries: Sequence[FaqEntry]) -> list[Problem]:
    """The rules every format shares (module docstring): one problem, with its file and line, per broken rule."""
    problems: list[Problem] = []

    def report(entry: FaqEntry, column: str | None, message: str) -> None:
        problems.append(Problem(entry.file, entry.line, column, message))

    if len(entries) > MAX_ENTRIES:
        first = entries[MAX_ENTRIES]
        report(
            first,
            None,
            f"the FAQ has {len(entries):,} entries, more than the {MAX_ENTRIES:,} Clarify takes: "
            "split it into several domains",
        )
        return problems
    keys: dict[str, FaqEntry] = {}
    titles: dict[str, FaqEntry] = {}
    for entry in entries:
        if not entry.title:
            report(entry, "title", "the title is empty: every entry needs the question it answers")
        elif len(entry.title) > MAX_TITLE_CHARS:
            report(
                entry,
                "title",
                f"the title has {len(entry.title):,} characters (at most {MAX_TITLE_CHARS}): "
                "is the answer in the title column?",
            )
        if not any(a.strip() for a in entry.answers):
            report(entry, "answer", f"entry {shorten(entry.title or entry.key)!r} has no answer text: write one")
        if len(entry.answers) > MAX_ANSWERS:
            report(entry, "answer", f"{len(entry.answers)} answers (at most {MAX_ANSWERS}): merge some")
        for what, text in (
            ("title", entry.title),
            ("description", entry.description),
            ("category", entry.category),
            *(("answer", a) for a in entry.answers),
        ):
            if len(text) > MAX_FIELD_CHARS:
                report(
                    entry,
                    what,
                    f"the {what} has {len(text):,} characters, over {MAX_FIELD_CHARS // 1024} KiB: "
                    "shorten it or split the entry",
                )
        if entry.key_given and (
            len(entry.key) > MAX_KEY_CHARS or any(unicodedata.category(c)[0] == "C" for c in entry.key)
        ):
            report(
                entry,
                "key",
                f"key {shorten(entry.key)!r} is longer than {MAX_KEY_CHARS} characters or has "
                "control characters: use a short id such as 'renew-online'",
            )
        if entry.key in keys:
            earlier = keys[entry.key]
            if entry.key_given:
                message = (
                    f"key {entry.key!r} is used twice (also {_where(earlier)}): give each entry its own key; "
                    "for several answers use the columns answer 2, answer 3, ..."
                )
            else:
                message = (
                    f"the titles of this entry and of {_where(earlier)} give the same key {entry.key!r}: "
                    "reword one title or add a key column"
                )
            if not (entry.title and title_form(entry.title) in titles):
                report(entry, "key", message)
        else:
            keys[entry.key] = entry
        if entry.title:
            form = title_form(entry.title)
            if form in titles:
                report(
                    entry,
                    "title",
                    f"the title {shorten(entry.title, 60)!r} is also the title of "
                    f"{_where(titles[form])}: a person could not tell them apart; merge them or reword one",
                )
            else:
                titles[form] = entry
    return problems


def _where(entry: FaqEntry) -> str:
    where = entry.file
    if entry.line is not None:
        where += f":{entry.line}"
    return f"the entry at {where}" if where else f"entry {entry.key!r}"
