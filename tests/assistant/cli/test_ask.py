"""`clarify ask` in machine mode (--json-lines) on the tiny domain: the honest endings in the terminal."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from assistant.cli import main
from tests.support.tiny import TinyAgents


@pytest.fixture
def ask(monkeypatch):
    agents = TinyAgents(turns=2)

    def ready(name, candidates="all", text_prior="sru"):
        return agents
        yield  # a job that reports nothing

    monkeypatch.setattr("assistant.app.desk.domains.ready_registry", ready)

    def run(*lines: str, args: tuple[str, ...] = ("bird",)) -> list[dict]:
        result = CliRunner().invoke(
            main, ["ask", "tiny", *args, "--json-lines", "--top", "4"], input="".join(f"{x}\n" for x in lines)
        )
        assert result.exit_code == 0, result.output
        return [json.loads(line) for line in result.stdout.splitlines()]

    return run


def test_done_proposes_then_reject_and_take_another_answer(ask):
    events = ask("s", "s", "d", "n not this one", "1")
    kinds = [e["type"] for e in events]
    assert kinds[:4] == ["session", "question", "question", "shortlist"]
    assert "pair" in kinds
    proposal = next(e for e in events if e["type"] == "proposal")  # "d" proposes, it does not accept
    # nothing was compared yet: no "best of the compared"; its chance is the one belief's (issue 32)
    assert proposal["best_of_compared"] is None and 0 < proposal["chance"] <= proposal["probability"] <= 1
    rejected = next(e for e in events if e["type"] == "rejected")
    assert proposal["key"] not in {c["id"].split("#")[0] for c in rejected["alternatives"]}
    final = events[-1]
    assert final["type"] == "final" and final["status"] == "finished"
    assert final["key"] == rejected["alternatives"][0]["id"].split("#")[0]


def test_neither_more_questions_and_give_up(ask):
    events = ask("s", "s", "n", "d", "n", "u", "n", "g")  # neither, done, reject, undo, reject, give up
    assert any(e["type"] == "rejected" for e in events)
    assert events[-1] == {**events[-1], "type": "final", "status": "failed"}
    errors = [e for e in events if e["type"] == "error"]
    assert not errors, errors


def test_an_unknown_answer_says_which_keys_work(ask):
    events = ask("s", "s", "x", "q")
    [error] = [e for e in events if e["type"] == "error"]
    assert "n = neither is relevant" in error["message"] and "d = done" in error["message"]
    assert "--resume" in events[-1]["reason"]


def test_resuming_a_session_that_does_not_exist_says_so_before_preparing_anything(monkeypatch):
    TinyAgents(turns=2)  # builds the tiny domain's knowledge base

    def ready(*args, **kwargs):
        raise AssertionError("a mistyped session id must not prepare (train) anything")
        yield

    monkeypatch.setattr("assistant.app.desk.domains.ready_registry", ready)
    result = CliRunner().invoke(main, ["ask", "tiny", "--resume", "999"])
    assert result.exit_code == 2 and "there is no session 999 in domain 'tiny'" in result.output
    unbuilt = CliRunner().invoke(main, ["ask", "nowhere", "--resume", "1"])
    assert unbuilt.exit_code == 2 and "not built yet" in unbuilt.output


def test_after_a_rejection_the_terminal_hands_the_question_on_to_a_person(ask):
    events = ask("s", "s", "d", "n not this one", "h wrong bird, it had a red cap")
    rejected = next(e for e in events if e["type"] == "rejected")
    assert rejected["alternatives"]  # the keys offer a number only where there is an answer to take
    final = events[-1]
    assert final["type"] == "final" and final["status"] == "failed" and final["handed_off"] is True
    assert not [e for e in events if e["type"] == "error"]
    wrong = ask("s", "s", "d", "n not this one", "x", "g")
    [error] = [e for e in wrong if e["type"] == "error"]
    assert "h = hand it on to a person" in error["message"] and "<number> = take that answer" in error["message"]
