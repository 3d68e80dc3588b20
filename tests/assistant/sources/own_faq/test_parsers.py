"""The FAQ parsers (tables, Markdown, folders of articles): good files give the entries, malformed ones one
clear problem per defect with its file and line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from assistant.errors import ConfigError
from assistant.sources.own_faq import derive_key, faq_format, parse_faq
from tests.support import EXAMPLES


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def problems(parsed) -> list[tuple[str, int | None, str | None]]:
    return [(p.file, p.line, p.column) for p in parsed.problems]


# ---- tables ------------------------------------------------------------------------------------------------
def test_csv_columns_are_found_by_name_in_any_case_and_numbered_answers_add_up(tmp_path):
    path = write(
        tmp_path,
        "desk.csv",
        "ID,Question,Details,Topic,Answer,Answer 2,answer_3,Notes\n"
        'vpn,How do I connect to the VPN?,Off campus,Network,"Install the client, then sign in.",Or use the web portal.,,x\n'
        ",Why is the printer offline?,,Printing,Turn it off and on.,,,\n",
    )
    parsed = parse_faq(path)
    assert parsed.ok and parsed.format == "csv"
    assert parsed.columns == {
        "title": "Question",
        "key": "ID",
        "description": "Details",
        "category": "Topic",
        "answers": "Answer, Answer 2, answer_3",
    }
    assert parsed.ignored == ["Notes"]
    first, second = parsed.entries
    assert (first.key, first.title, first.description, first.category) == (
        "vpn",
        "How do I connect to the VPN?",
        "Off campus",
        "Network",
    )
    assert first.answers == ("Install the client, then sign in.", "Or use the web portal.")
    assert second.key == "why-is-the-printer-offline" and second.line == 3 and not second.key_given
    assert parsed.categories == ["Network", "Printing"]


def test_the_issue_columns_label_name_text_answer_are_understood(tmp_path):
    path = write(tmp_path, "itdesk.csv", "label,name,text,answer\nmfa,New phone and 2FA,Lost my codes,Call the desk.\n")
    entry = parse_faq(path).entries[0]
    assert (entry.key, entry.title, entry.description, entry.answers) == (
        "mfa",
        "New phone and 2FA",
        "Lost my codes",
        ("Call the desk.",),
    )


def test_tsv_and_jsonl_read_the_same_entries(tmp_path):
    tsv = write(tmp_path, "f.tsv", "title\tanswer\tcategory\nReset a password\tUse the portal.\tAccounts\n")
    jsonl = write(
        tmp_path,
        "f.jsonl",
        json.dumps({"Title": "Reset a password", "answers": ["Use the portal.", "Or call us."], "category": "Accounts"})
        + "\n",
    )
    a, b = parse_faq(tsv).entries[0], parse_faq(jsonl).entries[0]
    assert (
        (a.key, a.title, a.category)
        == (b.key, b.title, b.category)
        == ("reset-a-password", "Reset a password", "Accounts")
    )
    assert b.answers == ("Use the portal.", "Or call us.")


def test_every_problem_of_a_table_is_listed_with_its_line_and_column(tmp_path):
    path = write(
        tmp_path,
        "bad.csv",
        "key,question,answer\n"
        "a,How do I print?,Use the print station.\n"
        "b,,An answer without a question.\n"  # 3: empty title
        "c,How do I scan?,\n"  # 4: empty answer
        "a,How do I copy?,Copier on floor 1.\n"  # 5: key used twice
        "d,how do i PRINT,Again.\n",  # 6: the title of line 2 again
    )
    parsed = parse_faq(path)
    assert not parsed.ok
    assert problems(parsed) == [
        ("bad.csv", 3, "question"),
        ("bad.csv", 4, "answer"),
        ("bad.csv", 5, "key"),
        ("bad.csv", 6, "question"),
    ]
    assert "used twice" in parsed.problems[2].message and "bad.csv:2" in parsed.problems[2].message
    assert "also the title of the entry at bad.csv:2" in parsed.problems[3].message


def test_a_missing_column_names_what_is_accepted_and_what_was_found(tmp_path):
    parsed = parse_faq(write(tmp_path, "f.csv", "topic,reply\nPrinting,Use the station.\n"))
    assert problems(parsed) == [("f.csv", 1, "title")]
    message = parsed.problems[0].message
    assert "question" in message and "found: topic, reply" in message


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "empty"),
        (b"title,answer\nCaf\xe9 hours,Open at 9.\n", "not valid UTF-8"),
        (b"title,answer\n", "no entries"),
        (b'title,answer\n"How do I print?,Use the station.\n', "quoted field"),
        (b"title,answer\nA,B,C\n", "3 fields but the header has 2"),
    ],
)
def test_malformed_tables_give_one_clear_problem(tmp_path, content, expected):
    parsed = parse_faq(write(tmp_path, "f.csv", content))
    assert len(parsed.problems) == 1 and not parsed.entries
    assert expected in parsed.problems[0].message


def test_an_oversized_field_and_bad_jsonl_lines_are_problems(tmp_path):
    big = write(tmp_path, "big.csv", "title,answer\nPrinting," + "x" * (200 * 1024) + "\n")
    assert "KiB" in parse_faq(big).problems[0].message
    lines = [
        json.dumps({"title": "A", "answer": "B"}),
        "{not json",
        json.dumps(["a list"]),
        json.dumps({"title": {"x": 1}}),
    ]
    parsed = parse_faq(write(tmp_path, "f.jsonl", "\n".join(lines) + "\n"))
    assert [p.line for p in parsed.problems] == [2, 3, 4]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "faq.csv"
    os.mkfifo(fifo)
    parsed = parse_faq(fifo)
    assert "not a regular file" in parsed.problems[0].message


def test_keys_are_derived_deterministically_from_titles():
    assert derive_key("How do I renew a book?") == "how-do-i-renew-a-book"
    assert derive_key("Ça coûte combien ?") == "ca-coute-combien"
    assert derive_key("打印机") == derive_key("打印机") and derive_key("打印机").startswith("entry-")
    assert len(derive_key("word " * 40)) <= 60


def test_the_format_comes_from_the_suffix_or_is_asked_for(tmp_path):
    assert faq_format(tmp_path) == "articles"
    assert faq_format(tmp_path / "x.md") == "markdown"
    with pytest.raises(ConfigError, match="--format"):
        faq_format(tmp_path / "faq.docx")


# ---- Markdown ----------------------------------------------------------------------------------------------
MARKDOWN = """# Help desk FAQ

Welcome text.

## Accounts

### How do I reset my password? {#reset}

> I forgot my password.

Go to **id.example.edu** and choose *Forgot password*.

- Type your user name.
- Follow the email.

---

Or come to the desk with your ID.

### Why is my account locked?

Too many wrong passwords. Wait 15 minutes.

#### On a phone

Remove the old password from the mail app.

## Network

### How do I connect to eduroam?

Use your full email address as the user name.
"""


def test_markdown_headings_are_questions_and_higher_headings_categories():
    path = Path("faq.md")
    from assistant.sources.files import Problems
    from assistant.sources.own_faq.markdown import parse_markdown

    parsed = parse_markdown(MARKDOWN, path, Problems("faq.md"))
    assert parsed.title == "Help desk FAQ"
    reset, locked, eduroam = parsed.entries
    assert (reset.key, reset.title, reset.description, reset.category, reset.line) == (
        "reset",
        "How do I reset my password?",
        "I forgot my password.",
        "Accounts",
        7,
    )
    assert reset.answers == (
        "Go to id.example.edu and choose Forgot password.\n- Type your user name.\n- Follow the email.",
        "Or come to the desk with your ID.",
    )
    assert locked.answers == (
        "Too many wrong passwords. Wait 15 minutes.\nOn a phone\nRemove the old password from the mail app.",
    )
    assert (eduroam.key, eduroam.category) == ("how-do-i-connect-to-eduroam", "Network")


def test_markdown_problems_have_lines(tmp_path):
    text = "# FAQ\n\n## Printing\n\n## Scanning\n\nUse the copier.\n\n## scanning\n\nAgain.\n"
    parsed = parse_faq(write(tmp_path, "faq.md", text))
    assert problems(parsed) == [("faq.md", 3, "answer"), ("faq.md", 9, "title")]
    no_headings = parse_faq(write(tmp_path, "plain.md", "Just a paragraph.\n"))
    assert "no question headings" in no_headings.problems[0].message


# ---- folders of articles -----------------------------------------------------------------------------------
def test_the_example_articles_read_titles_descriptions_and_categories():
    parsed = parse_faq(EXAMPLES / "library-articles")
    assert parsed.ok and parsed.format == "articles"
    by_key = {e.key: e for e in parsed.entries}
    assert set(by_key) == {"computers/printing", "computers/wifi", "visiting/opening-hours", "visiting/parking"}
    wifi = by_key["computers/wifi"]
    assert wifi.title == "Connecting to the library Wi-Fi" and wifi.category == "computers"
    assert wifi.description == "My laptop doesn't get internet in the library."
    assert "Home" not in wifi.answers[0] and "12 Mill Street" not in wifi.answers[0]  # nav and footer left out
    assert "If the terms page does not appear, type neverssl.com" in wifi.answers[0]
    assert by_key["visiting/opening-hours"].title == "When is the library open?"


def test_article_problems_name_the_file(tmp_path):
    folder = tmp_path / "help"
    folder.mkdir()
    write(folder, "ok.md", "# Printing\n\nUse the station.\n")
    write(folder, "untitled.html", "<p>No heading here</p>")
    write(folder, "empty.txt", "")
    write(folder, "logo.png", b"\x89PNG")
    write(folder, ".hidden.md", "# Hidden\n\nskipped\n")
    (folder / "link.md").symlink_to(folder / "ok.md")
    parsed = parse_faq(folder)
    assert sorted(p.file for p in parsed.problems) == ["empty.txt", "link.md", "untitled.html"]
    assert parsed.ignored == ["logo.png"] and [e.key for e in parsed.entries] == ["ok"]


def test_a_hard_link_in_an_articles_folder_is_refused_like_a_symbolic_one(tmp_path):
    """Issue 41: a hard link to an outside file (a secret) was read as an article, a symbolic one refused."""
    import os

    folder = tmp_path / "help"
    folder.mkdir()
    write(folder, "ok.md", "# Printing\n\nUse the station.\n")
    secret = write(tmp_path, "secret.md", "# Password\n\nhunter2\n")
    os.link(secret, folder / "planted.md")
    parsed = parse_faq(folder)
    assert [(p.file, p.message) for p in parsed.problems] == [
        ("planted.md", "a hard link (the file has another name): copy the article instead")
    ]
    assert [e.key for e in parsed.entries] == ["ok"]


UNCLOSED_FENCE = """# Library FAQ

## How do I borrow?

Use the desk:

```
borrow --card 1234

## How do I print?

Use the station.

## Can I eat here?

No.
"""

FOLDED = """## How do I borrow?

Use the desk.

### How do I print?

Use the station.

### Steps

Press start.

## Where is the desk?

Downstairs.

## Can I eat here?

No food
---
Drinks are fine.
"""


def test_an_unclosed_code_fence_is_a_problem_at_its_line(tmp_path):
    """Issue 41: the fence read the two entries below it as its code: three entries became one, silently."""
    parsed = parse_faq(write(tmp_path, "faq.md", UNCLOSED_FENCE))
    assert [(p.line, p.message.split(":")[0]) for p in parsed.problems] == [
        (7, "a code block opened with ``` is never closed")
    ]
    closed = parse_faq(write(tmp_path, "closed.md", UNCLOSED_FENCE.replace("1234\n", "1234\n```\n")))
    assert closed.problems == [] and [e.title for e in closed.entries][1:] == ["How do I print?", "Can I eat here?"]


def test_headings_folded_into_an_answer_are_problems_at_their_line(tmp_path):
    """Issue 41: a question one level too deep, and a --- right under a paragraph (a setext heading), were
    read into the answer above or as an entry of their own without a word."""
    parsed = parse_faq(write(tmp_path, "faq.md", FOLDED))
    found = [(p.line, p.message) for p in parsed.problems]
    assert found[0][0] == 5 and found[0][1].startswith("the level-3 heading 'How do I print?' is read as part of")
    assert found[0][1].endswith("write it as ## to make it an entry of its own")
    assert found[1][0] == 19 and found[1][1].startswith("'No food' is underlined with -")
    assert all("Steps" not in message for _, message in found)  # a sub-heading that asks nothing is the answer's
    underlined_only = "Borrowing?\n==========\n\nUse the desk.\n\nPrinting?\n=========\n\nThe station.\n"
    assert parse_faq(write(tmp_path, "setext.md", underlined_only)).problems == []  # one style throughout


def test_the_example_faq_reads_the_same_from_csv_and_markdown():
    csv_entries = parse_faq(EXAMPLES / "library-faq.csv").entries
    md_entries = parse_faq(EXAMPLES / "library-faq.md").entries
    assert len(csv_entries) == 33
    fields = lambda e: (e.key, e.title, e.description, e.category, e.answers)  # noqa: E731
    assert [fields(e) for e in csv_entries] == [fields(e) for e in md_entries]


def _nested(depth: int) -> str:
    """The reliability probe's FAQ of three entries, the first with a list nested ``depth`` levels deep."""
    from benchmarks.reliability.arguments import _nested_markdown

    return _nested_markdown(depth)


def test_markdown_nested_a_few_levels_keeps_every_entry():
    from assistant.sources.files import Problems
    from assistant.sources.own_faq.markdown import MAX_DEPTH, parse_markdown

    problems = Problems("faq.md")
    parsed = parse_markdown(_nested(MAX_DEPTH), Path("faq.md"), problems)
    assert len(problems) == 0 and len(parsed.entries) == 3
    assert parsed.entries[0].answers[0].count("- step") == MAX_DEPTH


@pytest.mark.parametrize("depth", [9, 12, 5000])
def test_markdown_nested_too_deep_is_a_listed_problem_not_lost_entries(depth):
    """A list nested 12 levels deep read 3 entries as 1 with no problem; 5,000 levels cut an answer."""
    from assistant.sources.files import Problems
    from assistant.sources.own_faq.markdown import parse_markdown

    problems = Problems("faq.md")
    parse_markdown(_nested(depth), Path("faq.md"), problems)
    (problem,) = problems.items
    assert problem.line == 15 and "nested 9 levels deep" in problem.message and "flatten" in problem.message


def test_markdown_quotes_nested_too_deep_are_a_problem_too():
    from assistant.sources.files import Problems
    from assistant.sources.own_faq.markdown import parse_markdown

    text = "## One\n\n" + "".join(">" * i + " q\n" for i in range(1, 30)) + "\n## Two\n\nanswer\n"
    problems = Problems("faq.md")
    parse_markdown(text, Path("faq.md"), problems)
    assert len(problems) == 1 and "nested" in problems.items[0].message


@pytest.mark.parametrize("source", ["", "   "])
def test_an_empty_path_is_refused_not_read_as_the_current_folder(source):
    with pytest.raises(ConfigError, match="path is empty"):
        parse_faq(source)


def test_a_missing_path_says_it_does_not_exist(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        parse_faq(tmp_path / "faq.csv")
    with pytest.raises(ConfigError, match="does not exist"):
        parse_faq(tmp_path / "articles", "articles")


def test_a_field_over_128k_is_not_called_a_crowd_answer(tmp_path):
    path = tmp_path / "faq.csv"
    path.write_text('title,answer\nHow do I renew?,"' + "x" * 140_000 + '"\n', encoding="utf-8")
    parsed = parse_faq(path)
    assert parsed.problems and not any("crowd answer" in p.message for p in parsed.problems)
    assert any("128 KiB" in p.message for p in parsed.problems)
