"""Hostile inputs through the CLI, the importers and the learning loop: a header of many columns, queries and added words a conversation
cannot use, numbers no store or generator takes, session rows that are not JSON, and an import that is a
symbolic link to a secret file."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from assistant.cli import main
from assistant.errors import ClarifyError, ValidationError
from assistant.progress import run_job
from assistant.sources.files import MAX_COLUMNS, Problems, read_csv
from benchmarks.reliability.environment import build_crowd_domain, dump
from crowdsourcing.importing import import_file

pytestmark = pytest.mark.reliability


@pytest.fixture
def bank():
    return build_crowd_domain("bank")


# ---- item 7: the header check --------------------------------------------------------------------------
def test_a_header_wider_than_any_crowd_export_is_one_problem():
    problems = Problems("wide.csv")
    header = ",".join(f"c{i}" for i in range(MAX_COLUMNS + 1))
    assert read_csv(header + "\n" + ",".join("x" * (MAX_COLUMNS + 1)) + "\n", problems) is None
    [problem] = problems.items
    assert problem.line == 1 and f"{MAX_COLUMNS + 1:,} columns" in problem.message


def test_repeated_columns_are_still_named_once_each():
    problems = Problems("wide.csv")
    read_csv("label,text,label,tag,text,tag,tag\nx,y,x,z,y,z,z\n", problems)
    [problem] = problems.items
    assert problem.message == "the header repeats column(s) 'label', 'tag', 'text'"


# ---- item 10: an import that is a symbolic link ----------------------------------------------------------
def test_an_import_that_is_a_symlink_to_a_secret_is_refused_without_quoting_it(bank, tmp_path):
    secret = tmp_path / "id_secret"
    secret.write_text("SECRET-FIRST-LINE,hunter2\nsecond line\n", encoding="utf-8")
    link = tmp_path / "tags.csv"
    link.symlink_to(secret)
    before = dump("bank")
    with pytest.raises(ValidationError) as caught:
        run_job(import_file(link, "bank", "csv"))
    assert dump("bank") == before
    message = str(caught.value)
    assert "symbolic link" in message and "SECRET" not in message and "hunter2" not in message


# ---- item 8: numbers and texts that used to end in a traceback ------------------------------------------
def test_a_query_with_bytes_that_are_not_text_is_refused():
    from assistant.clarification.query_check import check_query

    with pytest.raises(ClarifyError) as caught:
        check_query("pass\udcffword")  # what Python makes of the byte 0xff in a command-line argument
    assert "\n" not in str(caught.value) and "UTF-8" in str(caught.value)


@pytest.mark.parametrize(
    "argv",
    [
        ("ask", "bank", "--resume", "9223372036854775808"),
        ("summarize", "compare", "--domain", "bank", "--resume", "9223372036854775808"),
        ("ask", "bank", "--resume", "0"),
    ],
)
def test_session_ids_beyond_sqlite_integers_are_a_usage_error(bank, argv):
    result = CliRunner().invoke(main, list(argv))
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "--resume" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("seed", ["-5", "99999999999999999999"])
@pytest.mark.parametrize("command", [("learn", "update", "bank"), ("learn", "suggest", "bank", "--out", "x.csv")])
def test_seeds_numpy_cannot_take_are_a_usage_error(bank, command, seed):
    result = CliRunner().invoke(main, [*command, "--seed", seed])
    assert result.exit_code == 2 and "--seed" in result.output, result.output


# ---- item 8: session rows that are not JSON ---------------------------------------------------------------
def _damage(session_id: int, sql: str) -> None:
    from assistant.store import KnowledgeBase

    with KnowledgeBase.open("tiny") as kb, kb.transaction():
        kb.db.execute(sql, [session_id])


@pytest.mark.parametrize(
    ("sql", "names"),
    [
        ("UPDATE turns SET payload = '{\"index\": ' WHERE session_id = ? AND kind = 'answer'", "entry 2 (answer)"),
        ("UPDATE turns SET payload = '[1, 2]' WHERE session_id = ? AND kind = 'answer'", "entry 2 (answer)"),
        ("UPDATE sessions SET config = 'not json' WHERE id = ?", "settings"),
    ],
)
def test_a_session_row_that_is_not_json_is_a_one_line_error_naming_the_session(sql, names):
    from assistant.app.session.session import Session, SessionConfig
    from assistant.store.session_log import DamagedSessionError
    from tests.support.tiny import TinyAgents

    agents = TinyAgents(turns=2)
    session = Session.start(agents, "bird with a red crown", SessionConfig())
    session.answer(0)
    _damage(session.id, sql)
    with pytest.raises(DamagedSessionError) as caught:
        Session.resume(agents, session.id)
    message = str(caught.value)
    assert isinstance(caught.value, ClarifyError) and "\n" not in message
    assert f"session {session.id}" in message and names in message and "new session" in message


def test_learning_skips_a_damaged_session_and_counts_it():
    from assistant.app.desk.learning import collect_sessions
    from assistant.app.session.session import Session, SessionConfig
    from assistant.store import KnowledgeBase
    from tests.support.tiny import TinyAgents

    agents = TinyAgents(turns=2)
    damaged = Session.start(agents, "bird with a red crown", SessionConfig())
    damaged.answer(0)
    kept = Session.start(agents, "small yellow bird", SessionConfig())
    kept.answer(0)
    _damage(damaged.id, "UPDATE turns SET payload = 'x' WHERE session_id = ?")
    with KnowledgeBase.open("tiny") as kb:
        data = collect_sessions(kb, agents.domain)
    assert data.pool == ["small yellow bird"] and data.damaged_skipped == 1
