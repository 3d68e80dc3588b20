"""A folder of help articles: one entry per file (.md, .markdown, .txt, .html, .htm).

- Markdown: the first heading is the title, everything after it the answer (read with markdown-it-py as in
  ``assistant.sources.own_faq.markdown``); a block quote right under the title is the description.
- Text: the first non-blank line is the title, the rest the answer.
- HTML (read with BeautifulSoup): the first of h1-h6 is the title (else ``<title>``), the text of the rest of
  the body the answer (scripts, styles, navigation, headers and footers left out), ``<meta
  name="description">`` the description.
- A sub-folder is the category of the articles in it ("printing/duplex.md": category "printing").
- The key is the file's path without its suffix ("printing/duplex"), so renaming a title keeps the entry.

Hidden files are skipped; other files (images, PDFs) are listed as ignored; links, FIFOs and devices are
problems. Each article is read with the same checks as a single FAQ file (size, UTF-8, NUL bytes).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from assistant.errors import Problem
from assistant.sources.files import Problems, read_text
from assistant.sources.own_faq.entries import FaqEntry, ParsedFaq, clean, clean_block

ARTICLE_SUFFIXES = (".md", ".markdown", ".txt", ".html", ".htm")
MAX_ARTICLE_BYTES = 2 * 1024 * 1024
MAX_FILES = 5000
TOO_LARGE = "that is not a help article; shorten it or leave it out of the folder"
_BLOCK_TAGS: tuple[str, ...] = (
    "p",
    "div",
    "li",
    "br",
    "pre",
    "tr",
    "td",
    "th",
    "dt",
    "dd",
    "blockquote",
    "section",
    "article",
)
_BLOCK_TAGS = (*_BLOCK_TAGS, "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "table")
_BLOCK_MARK = "\x1e"  # ASCII record separator: where a block ends (no article text contains it)
_SKIPPED_TAGS = ("script", "style", "nav", "header", "footer", "noscript", "template")


def parse_articles(folder: Path) -> ParsedFaq:
    """Entries of a folder of articles (see the module docstring); every problem is in ``problems``."""
    parsed = ParsedFaq(folder, "articles")
    problems: list[Problem] = []
    files: list[Path] = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if any(part.startswith(".") for part in relative.parts):
            continue
        if path.is_symlink():
            problems.append(Problem(str(relative), None, None, "a link: copy the article into the folder instead"))
        elif path.is_dir():
            continue
        elif path.lstat().st_nlink > 1:  # a second name of a file anywhere on the disk: read like a link
            problems.append(
                Problem(str(relative), None, None, "a hard link (the file has another name): copy the article instead")
            )
        elif path.suffix.casefold() in ARTICLE_SUFFIXES:
            files.append(path)
        else:
            parsed.ignored.append(str(relative))
    if len(files) > MAX_FILES:
        problems.append(
            Problem(folder.name, None, None, f"{len(files):,} articles, more than {MAX_FILES:,}: split the folder")
        )
        files = []
    digest = hashlib.sha256()
    for path in files:
        relative = path.relative_to(folder)
        sink = Problems(str(relative))
        text, sha = read_text(path, sink, MAX_ARTICLE_BYTES, TOO_LARGE)
        digest.update(f"{relative.as_posix()}\0{sha}\0".encode())
        if text is not None:
            entry = _article(text, relative, sink)
            if entry is not None:
                parsed.entries.append(entry)
        problems += sink.items
    if not files and not problems:
        problems.append(
            Problem(
                folder.name,
                None,
                None,
                f"no articles: the folder has no {', '.join(ARTICLE_SUFFIXES)} files"
                + (f" (found {', '.join(parsed.ignored[:5])})" if parsed.ignored else ""),
            )
        )
    parsed.problems = problems
    parsed.sha256 = digest.hexdigest()
    parsed.columns = {"title": "each article's first heading", "answers": "the rest of the article"}
    if any(e.category for e in parsed.entries):
        parsed.columns["category"] = "the sub-folder"
    return parsed


def _article(text: str, relative: Path, problems: Problems) -> FaqEntry | None:
    suffix = relative.suffix.casefold()
    if suffix in (".md", ".markdown"):
        title, line, description, answer = _markdown_article(text)
    elif suffix in (".html", ".htm"):
        title, line, description, answer = _html_article(text)
    else:
        title, line, description, answer = _text_article(text)
    if not title:
        what = "heading" if suffix != ".txt" else "line"
        problems.add(None, "title", f"no title: the article needs a first {what} that names what it answers")
        return None
    parts = relative.with_suffix("").parts
    return FaqEntry(
        key="/".join(parts),
        title=title,
        answers=(answer,) if answer else (),
        description=description,
        category=" / ".join(parts[:-1]),
        file=str(relative),
        line=line,
        key_given=True,
    )


def _markdown_article(text: str) -> tuple[str, int | None, str, str]:
    from assistant.sources.own_faq.markdown import sections

    found, before = sections(text)
    if not found:
        return "", None, "", ""
    first, rest = found[0], found[1:]
    blocks = list(first.blocks)
    description = []
    while blocks and blocks[0][0] == "quote":
        description.append(blocks.pop(0)[1])
    lines = [*before, *(t for kind, t in blocks if kind != "break")]
    for section in rest:
        lines += [section.title, *(t for kind, t in section.blocks if kind != "break")]
    return first.title, first.line, clean(" ".join(description)), clean_block("\n".join(lines))


def _text_article(text: str) -> tuple[str, int | None, str, str]:
    lines = text.replace("\r\n", "\n").split("\n")
    for number, line in enumerate(lines, start=1):
        if line.strip():
            return clean(line), number, "", clean_block("\n".join(lines[number:]))
    return "", None, "", ""


def _html_article(text: str) -> tuple[str, int | None, str, str]:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(text, "html.parser")
    meta = soup.find("meta", attrs={"name": "description"})
    description = clean(meta.get("content", "")) if meta is not None else ""
    for tag in soup.find_all(_SKIPPED_TAGS):
        tag.decompose()
    body = soup.body or soup
    heading = body.find(["h1", "h2", "h3", "h4", "h5", "h6"])
    line = None
    if heading is not None:
        title, line = clean(heading.get_text(" ")), getattr(heading, "sourceline", None)
        heading.decompose()
    else:
        title = clean(soup.title.get_text(" ")) if soup.title is not None else ""
    if soup.title is not None:
        soup.title.decompose()
    for tag in body.find_all(_BLOCK_TAGS):  # blocks on lines of their own; inline marks (<b>, <a>) join
        tag.insert_before(_BLOCK_MARK)
        tag.insert_after(_BLOCK_MARK)
    for tag in body.find_all("li"):
        tag.insert(0, "- ")
    blocks = [clean(s) for s in body.get_text("").split(_BLOCK_MARK)]  # a line break inside a block is a space
    return title, line, description, clean_block("\n".join(b for b in blocks if b))
