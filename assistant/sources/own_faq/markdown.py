"""A FAQ written in Markdown, read with markdown-it-py (CommonMark): headings are the questions.

- The *question level* is the heading level that most often has text right under it (ties: the deeper);
  each heading of that level is an entry, its title the heading's text and its answer the text under it,
  up to the next heading of that level or higher. Deeper headings inside an answer stay part of it.
- A heading above the question level is a *category* of the questions under it ("## Borrowing" above
  "### How many books can I borrow?"); a first heading whose level occurs only once is the FAQ's title.
- Several answers: a thematic break (a line ``---``) inside an answer separates them.
- A description (how a person puts the problem): a block quote right under the question heading.
- A stable key: ``{#key}`` at the end of the heading ("### Renewing online {#renew-online}").

Text is kept as plain text (emphasis, links and code marks dropped; list items on lines of their own).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

from assistant.sources.files import Problems
from assistant.sources.own_faq.entries import FaqEntry, ParsedFaq, clean, clean_block, derive_key


@dataclass
class _Section:
    """A heading and the blocks right under it (before the next heading)."""

    level: int
    title: str
    line: int
    key: str = ""
    underlined: bool = False  # a setext heading: its text on one line, ``===`` or ``---`` on the next
    blocks: list[tuple[str, str]] = field(default_factory=list)  # (kind: text|quote|break|heading, text)


def inline_text(token: Token) -> str:
    """The plain text of an inline token (marks dropped, code kept, line breaks as spaces)."""
    parts = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(child.content)
        elif child.type == "html_inline":
            continue
    return clean("".join(parts))


def _split_key(title: str) -> tuple[str, str]:
    """("Renewing online", "renew-online") for "Renewing online {#renew-online}"."""
    stripped = title.rstrip()
    if stripped.endswith("}") and "{#" in stripped:
        head, _, tail = stripped.rpartition("{#")
        key = tail[:-1].strip()
        if key and " " not in key:
            return clean(head), key
    return title, ""


# markdown-it stops reading blocks nested deeper than its maxNesting (20 for CommonMark; a list item inside a
# list counts two) and drops the rest of the enclosing block silently: the entries after a list nested 10
# levels deep would vanish. Clarify reads with room to spare and lists anything nested deeper than
# ``MAX_DEPTH`` lists or quotes as a problem: a file is never read in part.
MAX_NESTING = 64
MAX_DEPTH = 8


def _tokens(text: str) -> list[Token]:
    return MarkdownIt("commonmark", {"maxNesting": MAX_NESTING}).parse(text)


def too_deep(text: str) -> tuple[int, int] | None:
    """(line, depth) of the first list or quote nested deeper than ``MAX_DEPTH``; None when there is none."""
    depth = 0
    for token in _tokens(text):
        if token.type in ("bullet_list_open", "ordered_list_open", "blockquote_open"):
            depth += 1
            if depth > MAX_DEPTH:
                return (token.map or [0])[0] + 1, depth
        elif token.type in ("bullet_list_close", "ordered_list_close", "blockquote_close"):
            depth -= 1
    return None


def nesting_message(depth: int) -> str:
    return (
        f"a list or quote nested {depth} levels deep (Clarify reads at most {MAX_DEPTH}): flatten it, or the "
        "entries after it cannot be read"
    )


def sections(text: str) -> tuple[list[_Section], list[str]]:
    """The headings of a Markdown text with the blocks under each, and the text before the first heading."""
    tokens = _tokens(text)
    found: list[_Section] = []
    before: list[str] = []
    quote_depth = list_depth = 0
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type == "heading_open" and quote_depth == 0 and list_depth == 0:
            title, key = _split_key(inline_text(tokens[i + 1]))
            line = (token.map or [0])[0] + 1
            found.append(_Section(int(token.tag[1:]), title, line, key, token.markup in ("=", "-")))
            i += 3
            continue
        if token.type == "blockquote_open":
            quote_depth += 1
        elif token.type == "blockquote_close":
            quote_depth -= 1
        elif token.type in ("bullet_list_open", "ordered_list_open"):
            list_depth += 1
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            list_depth -= 1
        block = _block(token, quote_depth, list_depth)
        if block is not None:
            if found:
                found[-1].blocks.append(block)
            else:
                before.append(block[1])
        i += 1
    return found, [b for b in before if b]


def _block(token: Token, quote_depth: int, list_depth: int) -> tuple[str, str] | None:
    if token.type == "inline":
        text = inline_text(token)
        kind = "quote" if quote_depth else "text"
        return (kind, ("- " if list_depth else "") + text) if text else None
    if token.type in ("fence", "code_block"):
        return ("text", token.content.strip())
    if token.type == "html_block":
        from bs4 import BeautifulSoup

        text = BeautifulSoup(token.content, "html.parser").get_text(" ")
        return ("text", clean(text)) if clean(text) else None
    if token.type == "hr":
        return ("break", "")
    return None


def unclosed_fences(text: str) -> list[int]:
    """The lines of code fences (```) that are never closed: CommonMark reads everything after one, headings
    too, as its code, so that the entries below it silently became one answer."""
    lines = text.split("\n")
    unclosed = []
    for token in _tokens(text):
        if token.type != "fence" or not token.map:
            continue
        start, end = token.map
        last = lines[end - 1].strip().lstrip(">").strip() if end - 1 > start and end - 1 < len(lines) else ""
        marker = token.markup[:1]
        if not (marker and len(last) >= len(token.markup) and set(last) == {marker}):
            unclosed.append(start + 1)
    return unclosed


def folding_problems(found: list[_Section], level: int) -> list[tuple[int, str]]:
    """(line, message) for the headings a person reads as entries that the question level folds into the
    previous answer: a deeper heading that asks a question, and an underlined (setext) heading in a FAQ
    whose other headings are written with # (a line of --- meant as a break under a paragraph)."""
    found_problems = []
    marked = any(not s.underlined for s in found)
    for section in found:
        mark = "#" * section.level
        if section.level > level and section.title.rstrip().endswith("?"):
            found_problems.append(
                (
                    section.line,
                    f"the level-{section.level} heading {section.title!r} is read as part of the answer "
                    f"above it (the questions are level-{level} headings): write it as {'#' * level} to make it an "
                    "entry of its own",
                )
            )
        elif section.underlined and marked:
            found_problems.append(
                (
                    section.line,
                    f"{section.title!r} is underlined with {'=' if section.level == 1 else '-'}, which "
                    f"makes it a level-{section.level} heading: leave a blank line before a --- that separates "
                    f"answers, or write the heading as {mark} {section.title}",
                )
            )
    return found_problems


def question_level(found: list[_Section]) -> int | None:
    """The heading level that most often has text right under it (ties: the deeper one)."""
    counts = Counter(s.level for s in found if any(kind != "break" for kind, _ in s.blocks))
    if not counts:
        return None
    return max(counts, key=lambda level: (counts[level], level))


def parse_markdown(text: str, path: Path, problems: Problems) -> ParsedFaq:
    """Entries of a Markdown FAQ (see the module docstring); problems go to ``problems``."""
    parsed = ParsedFaq(path, "markdown")
    deep = too_deep(text)
    if deep is not None:
        problems.add(deep[0], None, nesting_message(deep[1]))
        return parsed
    for line in unclosed_fences(text):
        problems.add(
            line, None, "a code block opened with ``` is never closed: everything after it, headings too, is read "
            "as its code; close it with a line ```"
        )  # fmt: skip
    found, _intro = sections(text)
    level = question_level(found)
    if level is None:
        problems.add(
            None,
            None,
            "no question headings with text under them: write each question as a heading (## How do I ...?) "
            "with its answer below it",
        )
        return parsed
    levels = Counter(s.level for s in found)
    title_section = found[0] if found[0].level < level and levels[found[0].level] == 1 else None
    if title_section is not None:
        parsed.title = title_section.title
    parsed.columns = {"title": f"level-{level} headings", "answers": "the text under them"}
    for line, message in folding_problems(found, level):
        problems.add(line, None, message)
    category = ""
    current: _Section | None = None
    answer_blocks: list[tuple[str, str]] = []
    extra: list[str] = []

    def finish() -> None:
        if current is not None:
            parsed.entries.append(_entry(current, answer_blocks, category, path.name))

    for section in found:
        if section.level < level:
            finish()
            current, answer_blocks = None, []
            if section is not title_section:
                category = section.title
                parsed.columns["category"] = f"level-{section.level} headings"
            if any(kind == "text" for kind, _ in section.blocks):
                extra.append(f"the text under {section.title!r} (line {section.line})")
        elif section.level == level:
            finish()
            current, answer_blocks = section, list(section.blocks)
        elif current is not None:  # a deeper heading: part of the answer
            answer_blocks += [("text", section.title), *section.blocks]
    finish()
    parsed.ignored = extra
    return parsed


def _entry(section: _Section, blocks: list[tuple[str, str]], category: str, filename: str) -> FaqEntry:
    description = []
    start = 0
    while start < len(blocks) and blocks[start][0] == "quote":
        description.append(blocks[start][1])
        start += 1
    answers: list[list[str]] = [[]]
    for kind, text in blocks[start:]:
        if kind == "break":
            answers.append([])
        else:
            answers[-1].append(text)
    texts = tuple(a for a in (clean_block("\n".join(part)) for part in answers) if a)
    return FaqEntry(
        key=section.key or derive_key(section.title),
        title=section.title,
        answers=texts,
        description=clean(" ".join(description)),
        category=category,
        file=filename,
        line=section.line,
        key_given=bool(section.key),
    )
