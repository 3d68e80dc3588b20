"""A desk's own FAQ: read it from the files a desk has, and turn it into a knowledge base with no crowd data.

- ``parse_faq(path, fmt)`` reads a CSV/TSV/JSONL table (``tables``), a Markdown FAQ (``markdown``) or a
  folder of help articles (``articles``) into one ``ParsedFaq``: typed ``FaqEntry`` records and every
  problem with its file and line (``entries.check_entries`` adds the rules all formats share). Pure: it
  never raises for bad input and never writes.
- ``assistant.sources.own_faq.building.faq_domain_data`` turns the entries into a ``DomainData`` (questions
  induced from the texts, queries synthesized from them, the simulated user's held-out answers).

>>> parsed = parse_faq("docs/examples/library-faq.csv")   # doctest: +SKIP
>>> parsed.ok, parsed.describe()                          # doctest: +SKIP
(True, "32 entries, 6 categories, 5 with several answers (read title <- 'question', ...)")
"""

from __future__ import annotations

import os
from pathlib import Path

from assistant.errors import ConfigError, Problem
from assistant.sources.files import Problems, read_text
from assistant.sources.own_faq.articles import parse_articles
from assistant.sources.own_faq.entries import (
    FORMATS,
    MAX_FAQ_FILE_BYTES,
    FaqEntry,
    ParsedFaq,
    check_entries,
    derive_key,
)
from assistant.sources.own_faq.markdown import parse_markdown
from assistant.sources.own_faq.tables import COLUMN_NAMES, parse_table

__all__ = ["COLUMN_NAMES", "FORMATS", "FaqEntry", "ParsedFaq", "check_source", "derive_key", "faq_format", "parse_faq"]

SUFFIX_FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".md": "markdown",
    ".markdown": "markdown",
}
TOO_LARGE = "a FAQ is far smaller; check that this is the right file, or split it into several domains"


def check_source(path: str | Path) -> None:
    """A ConfigError for an empty path (``Path("")`` is the current folder: its private files must not become
    entries) and for one that does not exist (not 'cannot tell the format')."""
    if not str(path).strip():
        raise ConfigError("the FAQ's path is empty: give the FAQ file or the folder of help articles")
    if not os.path.lexists(path):
        raise ConfigError(f"{path} does not exist: check the FAQ's path and the current folder")


def faq_format(path: str | Path, fmt: str = "auto") -> str:
    """The format of ``path``: ``fmt`` itself, or for 'auto' 'articles' for a folder and by suffix otherwise."""
    if fmt != "auto" and fmt not in FORMATS:
        raise ConfigError(f"unknown FAQ format {fmt!r}: use auto or one of {', '.join(FORMATS)}")
    path = Path(path)
    if fmt != "auto":
        return fmt
    if path.is_dir():
        return "articles"
    found = SUFFIX_FORMATS.get(path.suffix.casefold())
    if found is None:
        raise ConfigError(
            f"cannot tell the format of {path.name} from its suffix: pass --format "
            f"({', '.join(FORMATS)}), or give a folder of articles"
        )
    return found


def parse_faq(path: str | Path, fmt: str = "auto") -> ParsedFaq:
    """Read a FAQ (a file, or a folder of articles) into entries and problems; never raises for bad input
    (only for an unknown ``fmt``, or 'auto' on a file whose suffix says nothing)."""
    check_source(path)
    path = Path(path)
    concrete = faq_format(path, fmt)
    if concrete == "articles":
        if not path.is_dir() or path.is_symlink():
            what = "does not exist" if not os.path.lexists(path) else "is not a folder"
            parsed = ParsedFaq(path, concrete)
            parsed.problems = [
                Problem(path.name, None, None, f"{path} {what}: give the folder that holds the articles")
            ]
            return parsed
        parsed = parse_articles(path)
    else:
        problems = Problems(path.name)
        text, sha = read_text(path, problems, MAX_FAQ_FILE_BYTES, TOO_LARGE)
        if text is None:
            parsed = ParsedFaq(path, concrete)
        elif concrete == "markdown":
            parsed = parse_markdown(text, path, problems)
        else:
            parsed = parse_table(text, path, concrete, problems)
        parsed.sha256 = sha
        parsed.problems = problems.items
    shared = check_entries(parsed.entries)
    if concrete in ("csv", "tsv", "jsonl"):  # name the file's own column ("Question", not "title")
        names = {**parsed.columns, "answer": parsed.columns.get("answers", "answer").split(", ")[0]}
        shared = [Problem(p.file, p.line, names.get(p.column or "", p.column), p.message) for p in shared]
    parsed.problems = [*parsed.problems, *shared]
    return parsed
