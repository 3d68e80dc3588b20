"""Sessions and their log (assistant.app.session.session, assistant.store.session_log): one writer per session, and a failed write that changes nothing.

Two programs on one saved session used to append contradictory entries ("question 395 was already
answered" on the next resume); a refused write used to leave the action applied in memory (answering again
said "already answered", undo took back the previous saved answer, the comparison phase crashed).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from assistant import paths
from assistant.app.session.session import Phase, Session, SessionConfig
from assistant.errors import SessionChangedError, StoreBusyError
from assistant.store import KnowledgeBase, SessionLog, connection
from benchmarks.reliability.environment import write_lock_held
from tests.support import REPO
from tests.support.tiny import TinyAgents

pytestmark = pytest.mark.reliability

CONFIG = SessionConfig(shortlist_size=3, ranking_budget=2, ranking_threshold=0.999)


@pytest.fixture
def agents():
    return TinyAgents(turns=3)


def kinds(session: Session) -> list[str]:
    return [entry.kind for entry in session.transcript()]


def test_a_second_program_on_the_same_session_is_told_and_reloads(agents):
    first = Session.start(agents, "red breast", CONFIG)
    with KnowledgeBase.open("tiny") as kb:
        second = Session.resume(agents, first.id, kb)
        first.answer(0)
        pending = second.question.index
        with pytest.raises(SessionChangedError, match="changed in another window or terminal"):
            second.answer(1)  # the same question, another answer: nothing is written
        assert second.question.index != pending  # reloaded: it now stands where the first one left it
        np.testing.assert_array_equal(second.conversation.probs, first.conversation.probs)
        second.answer(0)  # and it can go on from there
    assert kinds(Session.resume(agents, first.id)) == ["query", "answer", "answer"]
    assert Session.resume(agents, first.id).repaired == []


@pytest.mark.slow
def test_a_refused_answer_leaves_the_session_exactly_as_before(agents, monkeypatch):
    monkeypatch.setattr(connection, "WRITE_WAIT_SECONDS", 0.3)
    session = Session.start(agents, "red breast", CONFIG)
    session.answer(0)
    question, probs = session.question.index, session.conversation.probs.copy()
    with write_lock_held(paths.domain_db_path("tiny"), seconds=2.0), pytest.raises(StoreBusyError):
        session.answer(1)
    assert session.question.index == question and session.conversation.turn == 1
    np.testing.assert_array_equal(session.conversation.probs, probs)
    with write_lock_held(paths.domain_db_path("tiny"), seconds=2.0), pytest.raises(StoreBusyError):
        session.undo()  # a refused undo takes back nothing either
    assert session.conversation.turn == 1
    session.answer(1)  # before: "question ... was already answered; undo it first"
    session.undo()  # takes back this answer, not the one before it
    assert session.conversation.turn == 1 and session.question.index == question
    assert kinds(Session.resume(agents, session.id)) == ["query", "answer", "answer", "undo"]


def test_a_refused_comparison_keeps_the_pair_pending(agents, monkeypatch):
    monkeypatch.setattr(connection, "WRITE_WAIT_SECONDS", 0.3)
    session = Session.start(agents, "bird", CONFIG)
    while session.phase == Phase.CLARIFYING:
        session.answer(kind="not_sure")
    pair = [c.id for c in session.pair]
    with write_lock_held(paths.domain_db_path("tiny"), seconds=2.0), pytest.raises(StoreBusyError):
        session.prefer("left")
    assert session.phase == Phase.COMPARING and [c.id for c in session.pair] == pair  # before: pair was None
    assert session.comparisons == 0
    session.prefer("left")
    assert session.comparisons == 1


def test_a_refused_first_write_leaves_no_empty_session(agents, monkeypatch):
    monkeypatch.setattr(connection, "WRITE_WAIT_SECONDS", 0.3)
    with write_lock_held(paths.domain_db_path("tiny"), seconds=2.0), pytest.raises(StoreBusyError):
        Session.start(agents, "red breast", CONFIG)
    with KnowledgeBase.open("tiny") as kb:
        assert SessionLog(kb).list() == []


def test_resume_leaves_out_what_two_programs_wrote_against_each_other(agents):
    session = Session.start(agents, "red breast", CONFIG)
    question = session.question
    session.answer(0)
    with KnowledgeBase.open("tiny") as kb:  # what an older Clarify let a second program append
        entry = {"question": question.index, "text": question.text, "option": 1, "answer": "option"}
        SessionLog(kb).append(session.id, "answer", entry, "active", None)
    resumed = Session.resume(agents, session.id)
    assert len(resumed.repaired) == 1 and "was already answered" in resumed.repaired[0]
    assert resumed.conversation.turn == 1 and resumed.question is not None
    np.testing.assert_array_equal(resumed.conversation.probs, session.conversation.probs)


WRITER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from assistant.app.session.session import Session
    from assistant.errors import SessionChangedError
    from tests.support.tiny import TinyAgents

    session = Session.resume(TinyAgents(turns=3), int(sys.argv[1]))
    go = Path(sys.argv[2])
    Path(f"{go}-ready-{sys.argv[3]}").touch()  # replayed: waiting for the signal
    while not go.exists():
        time.sleep(0.01)
    try:
        session.answer(int(sys.argv[3]))
        print(json.dumps({"answered": True}))
    except SessionChangedError:
        print(json.dumps({"answered": False, "reloaded_at": session.conversation.turn}))
    """
)


@pytest.mark.slow
def test_two_processes_answering_one_session_never_contradict_each_other(agents, tmp_path):
    session = Session.start(agents, "red breast", CONFIG)
    go = tmp_path / "go"
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    env = {"CLARIFY_HOME": str(paths.home()), "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    writers = [
        subprocess.Popen(
            [sys.executable, str(script), str(session.id), str(go), str(option)],
            cwd=REPO,
            env={**env, "PATH": str(Path(sys.executable).parent)},
            stdout=subprocess.PIPE,
            text=True,
        )
        for option in (0, 1)
    ]
    deadline = time.monotonic() + 120
    while not all(Path(f"{go}-ready-{option}").exists() for option in (0, 1)):  # both have replayed the log
        assert time.monotonic() < deadline and all(w.poll() is None for w in writers)
        time.sleep(0.05)
    go.touch()
    results = [json.loads(w.communicate(timeout=120)[0].strip().splitlines()[-1]) for w in writers]
    assert sorted(r["answered"] for r in results) == [False, True]  # one wrote, the other was told
    resumed = Session.resume(agents, session.id)
    assert resumed.repaired == [] and kinds(resumed) == ["query", "answer"]
