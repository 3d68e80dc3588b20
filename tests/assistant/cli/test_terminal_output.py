"""What reaches the terminal (assistant.cli.common): escape sequences in label names, answers, queries and import
problems never reach the terminal raw; added words count against the query limit; a reader that goes away
(`| head -1`) ends the command quietly."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace

import pytest
from click.testing import CliRunner

from assistant.cli import main
from assistant.cli.common import terminal_text
from assistant.store import KnowledgeBase, SessionLog
from benchmarks.reliability.environment import build_crowd_domain, clarify_command, clarify_env
from tests.support.tiny import TinyAgents

pytestmark = pytest.mark.reliability

TITLE = "\x1b]0;owned\x07"  # OSC 0: retitles the window
CLEAR = "\x1b[2J\x1b[H"  # CSI: clears the screen
CLIPBOARD = "\x1b]52;c;aGFja2Vk\x1b\\"  # OSC 52: writes the clipboard
C1 = "\x9b31m\x9d0;x\x9c"  # the same in 8-bit form
HOSTILE = TITLE + CLEAR + CLIPBOARD + C1
RAW = ("\x1b", "\x07", "\x9b", "\x9d", "\x9c", "\r")


def assert_clean(text: str) -> None:
    found = [repr(c) for c in RAW if c in text]
    assert not found, f"raw control characters {found} in {text[:300]!r}"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (f"a{TITLE}b{CLEAR}c", "abc"),
        (f"x{CLIPBOARD}y", "xy"),
        (f"p{C1}q", "pq"),
        ("tab\tand\nnewline stay; cr\r, del\x7f, nul\x00 go", "tab\tand\nnewline stay; cr, del, nul go"),
        ("an OSC without its end \x1b]0;title\nthe next line stays", "an OSC without its end \nthe next line stays"),
        ("caf\u00e9 \u65e5\u672c \u2014 ok", "caf\u00e9 \u65e5\u672c \u2014 ok"),
    ],
)
def test_terminal_text_removes_escape_sequences_and_controls(text, shown):
    assert terminal_text(text) == shown


@pytest.fixture
def hostile_ask(monkeypatch):
    """`clarify ask tiny` on the tiny domain whose first label is named with escape sequences."""
    agents = TinyAgents(turns=1)
    first = agents.domain.labels[0]
    agents.domain.labels[0] = replace(first, name=f"{first.name}{HOSTILE}", text=f"{first.text}{HOSTILE}")

    def ready(name, candidates="all", text_prior="sru"):
        return agents
        yield

    monkeypatch.setattr("assistant.app.desk.domains.ready_registry", ready)

    def run(query: str, *lines: str, json_lines: bool = False):
        args = ["ask", "tiny", query, "--top", "4", *(["--json-lines"] if json_lines else [])]
        return CliRunner().invoke(main, args, input="".join(f"{x}\n" for x in lines))

    return run


def test_ask_and_sessions_print_no_escape_sequences(hostile_ask):
    result = hostile_ask(f"bird {HOSTILE} with a red crown", "s", "d", "q")
    assert result.exit_code == 0, result.output
    assert "Shortlist" in result.stdout and "owned" not in result.stdout
    assert_clean(result.stdout)
    assert_clean(result.stderr)
    listed = CliRunner().invoke(main, ["sessions", "tiny"])
    assert listed.exit_code == 0 and "bird" in listed.stdout
    assert_clean(listed.stdout)


def test_json_lines_keep_the_text_escaped_not_raw(hostile_ask):
    result = hostile_ask(f"bird {TITLE} red", "s", "d", "q", json_lines=True)
    assert result.exit_code == 0, result.output
    assert_clean(result.stdout)
    first = json.loads(result.stdout.splitlines()[0])
    assert first["query"] == f"bird {TITLE} red"  # machine mode gives the text as it is, JSON-escaped


def test_an_import_problem_quoting_escape_sequences_prints_them_removed(tmp_path):
    build_crowd_domain("bank")
    path = tmp_path / "tags.csv"
    path.write_text(f"label,answer,tag{HOSTILE}\ncard_arrival,yes,lost card\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["import", "csv", str(path), "--domain", "bank", "--kind", "tags"])
    assert result.exit_code == 2 and "has no 'tag' column" in result.stderr
    assert_clean(result.stderr)


# ---- item 9: added words count against the query limit --------------------------------------------------
def test_added_words_that_make_the_query_too_long_are_refused_and_not_stored(hostile_ask):
    result = hostile_ask("bird", "a " + "word " * 300, "q", json_lines=True)
    events = [json.loads(line) for line in result.stdout.splitlines()]
    [error] = [e for e in events if e["type"] == "error"]
    assert "1,000" in error["message"]
    with KnowledgeBase.open("tiny") as kb:
        [summary] = SessionLog(kb).list()
        assert [kind for kind, _ in SessionLog(kb).entries(summary.id)].count("words") == 0


def test_added_words_within_the_limit_still_work(hostile_ask):
    result = hostile_ask("bird", "a with a red crown", "q", json_lines=True)
    assert not [line for line in result.stdout.splitlines() if json.loads(line)["type"] == "error"]
    with KnowledgeBase.open("tiny") as kb:
        [summary] = SessionLog(kb).list()
        assert ("words", {"text": "with a red crown"}) in SessionLog(kb).entries(summary.id)


# ---- item 10: the reader goes away ------------------------------------------------------------------------
@pytest.mark.slow
def test_a_closed_pipe_ends_the_listing_quietly(fresh_clarify_home):
    build_crowd_domain("bank")
    with KnowledgeBase.open("bank") as kb:
        for i in range(3):
            SessionLog(kb).create(f"question {i}", {})
    process = subprocess.Popen(
        clarify_command("sessions", "bank"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=clarify_env(fresh_clarify_home),
    )
    process.stdout.close()  # the reader is gone before the first line is written (as `| head -1` after one)
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=120) == 141
    assert "error" not in stderr.lower() and "Traceback" not in stderr, stderr
