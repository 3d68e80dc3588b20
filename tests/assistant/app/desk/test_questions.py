"""A desk's review of the questions (schema 5, assistant.store.reviews, assistant.app.desk.questions, `clarify domain
questions`): hidden questions are never asked, rewordings reach the person, both survive a rebuild."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from assistant.app.desk import questions as review
from assistant.app.session.session import Session, SessionConfig
from assistant.cli import main
from assistant.errors import ConfigError
from assistant.priors.sru import encoder_data_hash
from assistant.store import KnowledgeBase, write_domain
from assistant.store.schema import SCHEMA_VERSION
from tests.support.tiny import BLACK, RED, SIZE, TinyAgents, tiny_data


@pytest.fixture
def stored():
    with KnowledgeBase.create("tiny") as kb:
        write_domain(kb, tiny_data())
        yield kb


def test_hidden_and_reworded_questions_load_as_reviewed_and_survive_a_rebuild(stored):
    assert stored.schema_version == SCHEMA_VERSION >= 5  # reviews came with schema 5
    before = stored.load_domain()
    review.set_hidden("tiny", RED)
    review.reword_question("tiny", SIZE, "What size is the bird?")
    review.reword_option("tiny", SIZE, "small", "tiny")
    domain = stored.load_domain()
    assert [q.tag for q in domain.questions] == [BLACK, SIZE]
    assert domain.questions[1].text == "What size is the bird?"
    assert domain.questions[1].options == ("tiny", "medium", "large")
    # the annotations stay with their question and option
    np.testing.assert_array_equal(domain.counts, before.counts[[1, 2]])
    assert encoder_data_hash(domain) != encoder_data_hash(before)  # models trained before are stale, not broken
    assert len(stored.load_domain(reviewed=False).questions) == 3

    write_domain(stored, tiny_data())  # `clarify domain build` again
    entries = {e.tag: e for e in review.list_questions("tiny")}
    assert entries[RED].hidden and not entries[RED].reworded
    assert entries[SIZE].reworded and entries[SIZE].original_text == "How big?"
    assert [q.tag for q in stored.load_domain().questions] == [BLACK, SIZE]

    review.set_hidden("tiny", RED, False)
    review.reset_question("tiny", SIZE)
    assert [q.text for q in stored.load_domain().questions] == ["Is it red?", "Is it black?", "How big?"]
    assert stored.db.execute("SELECT COUNT(*) FROM question_reviews").fetchone()[0] == 0


def test_bad_reviews_are_refused(stored):
    with pytest.raises(ConfigError, match="no question with tag"):
        review.set_hidden("tiny", "nope")
    with pytest.raises(ConfigError, match="end it with"):
        review.reword_question("tiny", SIZE, "Size")
    with pytest.raises(ConfigError, match="yes/no question"):
        review.reword_option("tiny", RED, "yes", "sure")
    with pytest.raises(ConfigError, match="no option"):
        review.reword_option("tiny", SIZE, "huge", "giant")
    with pytest.raises(ConfigError, match="already offers"):
        review.reword_option("tiny", SIZE, "small", "large")
    review.set_hidden("tiny", RED)
    review.set_hidden("tiny", BLACK)
    with pytest.raises(ConfigError, match="last question"):
        review.set_hidden("tiny", SIZE)


def test_a_hidden_question_is_never_asked_by_a_session(stored):
    review.set_hidden("tiny", RED)
    review.reword_question("tiny", BLACK, "Is the bird black all over?")
    agents = TinyAgents(turns=3)
    agents.domain = stored.load_domain()
    config = SessionConfig(shortlist_size=2, ranking_budget=1)
    for query in ("bird", "red bird", "small red crest", "black crow"):
        session = Session.start(agents, query, config)
        asked = []
        while session.phase == "clarifying" and session.question is not None:
            view = session.question
            asked.append(agents.domain.questions[view.index].tag)
            session.answer(0)
        assert RED not in asked and asked
        answers = [p for kind, p in session.log.entries(session.id) if kind == "answer"]
        assert all(p["tag"] != RED for p in answers)
        assert any(p["text"] == "Is the bird black all over?" for p in answers) == (BLACK in asked)
    # a session logged before a rewording resumes on the question it answered (by its tag)
    review.reword_question("tiny", BLACK, "Is it mostly black?")
    agents.domain = stored.load_domain()
    resumed = Session.resume(agents, session.id)
    assert [p for kind, p in resumed.log.entries(session.id) if kind == "answer"]


def test_the_command_lists_hides_and_rewords(stored):
    runner = CliRunner()
    listed = runner.invoke(main, ["domain", "questions", "tiny"])
    assert listed.exit_code == 0, listed.output
    assert "3 questions (2 yes/no, 1 multiple-choice, 0 induced), 0 hidden, 0 reworded" in listed.output
    assert "options: small / medium / large" in listed.output
    changed = runner.invoke(
        main,
        ["domain", "questions", "tiny", "--hide", RED, "--reword", BLACK, "Is it black?!?", "--reword-option", SIZE,
         "large", "big"],
    )  # fmt: skip
    assert changed.exit_code == 0, changed.output
    assert f"hidden {RED}" in changed.output and "[small / medium / big]" in changed.output
    as_json = json.loads(runner.invoke(main, ["domain", "questions", "tiny", "--json"]).output)
    by_tag = {e["tag"]: e for e in as_json}
    assert by_tag[RED]["hidden"] and by_tag[BLACK]["text"] == "Is it black?!?" and by_tag[BLACK]["reworded"]
    assert by_tag[SIZE]["options"] == ["small", "medium", "big"] and by_tag[SIZE]["original_options"][-1] == "large"
    shown = runner.invoke(main, ["domain", "questions", "tiny", "--show", RED, "--reset", BLACK])
    assert shown.exit_code == 0
    bad = runner.invoke(main, ["domain", "questions", "tiny", "--hide", "has_colour::red"])
    assert bad.exit_code == 2 and bad.output.startswith("error: ") and "Traceback" not in bad.output
    assert len(bad.output.strip().splitlines()) == 1


def test_a_version_4_file_gets_the_review_table(tmp_path):
    from assistant.store.schema import MIGRATIONS

    path = tmp_path / "v4.db"
    import sqlite_utils

    db = sqlite_utils.Database(path)
    db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL, applied_at TEXT NOT NULL)")
    for version in range(1, 5):
        MIGRATIONS[version](db)
        db.execute("INSERT INTO schema_version VALUES (?, 'then')", [version])
    db.conn.commit()
    db.close()
    with KnowledgeBase(path) as kb:
        assert kb.schema_version == SCHEMA_VERSION and kb.question_reviews() == {}
    assert (tmp_path / "v4.db.bak-v4").exists()
