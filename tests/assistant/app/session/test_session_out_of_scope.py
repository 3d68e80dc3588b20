"""The out-of-scope ending of a Session and of `clarify ask`: said plainly, rephrase, closest anyway, hand on,
the log's status, and the export of unanswered questions (and its labelling batch)."""

from __future__ import annotations

import csv
import json

import pytest
from click.testing import CliRunner

from assistant.app.desk.crowd import export_job, export_unanswered_job
from assistant.app.session.session import Session, SessionConfig
from assistant.cli import main
from assistant.errors import ConfigError, SessionStateError
from assistant.store import KnowledgeBase
from tests.support.desk import MODEL, DeskAgents

CONFIG = SessionConfig(shortlist_size=3, ranking_budget=2, ranking_threshold=0.999)


def unanswerable(agents) -> Session:
    """A person whose question nothing answers: "something else" where it is offered, else "not sure" (on the
    tiny desk a "no" to "Is it about a card?" would point at its one other intent, flights)."""
    session = Session.start(agents, "what is the weather like", CONFIG)
    while session.phase == "clarifying":
        view = session.question
        if "something else" in view.options:
            session.answer(view.options.index("something else"))
        else:
            session.answer(kind="not_sure")
    return session


def run(out, *jobs):
    for job in jobs:
        try:
            while True:
                next(job)
        except StopIteration as stop:
            out.append(stop.value)
    return out


def test_nothing_fits_is_said_plainly_and_logged_as_out_of_scope():
    agents = DeskAgents()
    session = unanswerable(agents)
    assert session.phase == "out_of_scope" and session.status == "out_of_scope"
    view = session.nothing_fits
    assert view.message.startswith("I don't have an answer for that") and view.probability >= MODEL.threshold
    assert view.help_topics == ("banking", "travel") and len(view.did_you_mean) == 3
    assert "nothing it knows" in session.stop_explanation
    with pytest.raises(SessionStateError):
        session.accept()
    with KnowledgeBase.open("desk") as kb:
        [summary] = Session.saved(kb)
    assert summary.status == "out_of_scope"
    resumed = Session.resume(agents, session.id)
    assert resumed.phase == "out_of_scope" and resumed.nothing_fits == view


def test_rephrase_undo_or_see_the_closest_answers_anyway():
    agents = DeskAgents()
    session = unanswerable(agents)
    session.add_words("i lost my card")  # say it differently: questions again, or (sure at once) an answer
    assert session.phase in ("clarifying", "comparing", "decided") and session.status == "active"
    again = unanswerable(agents)
    again.undo()
    assert again.phase == "clarifying" and again.status == "active"
    third = unanswerable(agents)
    third.show_closest()
    assert third.phase == "comparing" and third.pair is not None


def test_hand_off_goes_to_the_unanswered_csv_and_to_a_labelling_batch(tmp_path):
    agents = DeskAgents()
    session = unanswerable(agents)
    session.hand_off("  customer   asked twice ")
    with pytest.raises(SessionStateError):
        session.hand_off()
    Session.start(agents, "lost my card", CONFIG)  # an answered session is not exported
    unanswered, batch = tmp_path / "unanswered.csv", tmp_path / "batch.csv"
    summary, tasks = run([], export_unanswered_job("desk", unanswered), export_job("desk", batch, "unanswered"))
    assert summary["questions"] == 1 and tasks["tasks"] == 1
    [row] = list(csv.DictReader(unanswered.open(encoding="utf-8")))
    assert (row["session"], row["query"], row["note"]) == (str(session.id), session.query, "customer asked twice")
    assert len(row["closest"].split("|")) == 3
    [task] = list(csv.DictReader(batch.open(encoding="utf-8")))
    options = task["options"].split("|")
    assert options[-1] == "none of the above" and any(o.startswith("flight: ") for o in options)


def test_nothing_handed_on_yet_is_a_clear_error(tmp_path):
    DeskAgents()
    with pytest.raises(ConfigError, match="handed on"):
        run([], export_job("desk", tmp_path / "batch.csv", "unanswered"))


def test_the_terminal_shows_the_ending_and_hands_the_question_on(monkeypatch):
    agents = DeskAgents()

    def ready(name, candidates="all", text_prior="sru"):
        return agents
        yield  # a job that reports nothing

    monkeypatch.setattr("assistant.app.desk.domains.ready_registry", ready)
    answers = "3\ns\nh\nplease call back\n"  # something else, not sure, then hand it on with a note
    result = CliRunner().invoke(main, ["ask", "desk", "what is the weather like"], input=answers)
    assert result.exit_code == 0, result.output
    assert "I don't have an answer for that" in result.output and "I can help with: banking, travel" in result.output
    assert "Did you mean:" in result.output and "logged as out of scope" in result.output
    assert "unknown answer" not in result.output
    lines = CliRunner().invoke(main, ["ask", "desk", "what is the weather like", "--json-lines"], input="3\ns\nc\nq\n")
    events = [json.loads(line) for line in lines.output.splitlines() if line.startswith("{")]
    kinds = [e["type"] for e in events]
    assert "error" not in kinds and kinds[kinds.index("out_of_scope") + 1] in ("shortlist", "pair")


def test_a_hand_off_taken_back_is_not_exported_and_the_ending_replays(tmp_path):
    agents = DeskAgents()
    session = unanswerable(agents)
    session.hand_off("call back")
    session.undo()  # takes back the hand-off only: the ending stays
    assert session.phase == "out_of_scope" and not session.handed_off and session.can_undo
    resumed = Session.resume(agents, session.id)
    assert resumed.phase == "out_of_scope" and not resumed.handed_off
    with pytest.raises(ConfigError, match="handed on"):
        run([], export_job("desk", tmp_path / "batch.csv", "unanswered"))


def test_i_can_help_with_names_topics_not_actions():
    """Issue 34: "I can help with: search, add, link, download, …" (the action facet, the widest question)."""
    from types import SimpleNamespace

    from assistant.app.session.session_records import out_of_scope_view
    from assistant.store import SOMETHING_ELSE, Question

    def choice(tag, options):
        return Question(tag, f"{tag}?", "choice", tag, (*options, SOMETHING_ELSE), True)

    questions = [
        choice("action", ["search", "add", "link", "download", "send", "export", "create"]),
        choice("product", ["Gmail", "Facebook", "YouTube"]),
        choice("object", ["messages", "account", "video", "email"]),
    ]
    domain = SimpleNamespace(questions=questions, labels=[])
    conversation = SimpleNamespace(
        clarifier=SimpleNamespace(domain=domain), out_of_scope_probability=lambda: 0.8, shortlist=lambda k: []
    )
    view = out_of_scope_view(conversation, "Web services FAQ")
    assert view.help_topics == ("Gmail", "Facebook", "YouTube")
    domain.questions = [questions[0], questions[2]]
    assert out_of_scope_view(conversation, "x").help_topics == ("messages", "account", "video", "email")
