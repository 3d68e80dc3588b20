"""Scripted conversations that log every kind of session entry (for the tests that replay stored logs), and
what a replayed session's state is, in plain JSON.

``python -m tests.support.session_scripts OUT.json`` writes the log rows these scripts leave (kind and payload
text exactly as stored) with the state each session reached: tests/data/session_log/rows.json was written so
by the code before the typed events (issue 38), and the tests replay it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

from assistant.app.session.session import Session, SessionConfig
from assistant.store import KnowledgeBase
from tests.support.desk import DeskAgents
from tests.support.tiny import TinyAgents

CONFIG = SessionConfig(shortlist_size=3, ranking_budget=2, ranking_threshold=0.999)
WIDE = SessionConfig(shortlist_size=4, ranking_budget=5, ranking_threshold=0.999)


def answered_then_accepted(agents: TinyAgents) -> Session:
    """query, answer (an option, "probably", "not sure"), words, undo, stop, compare, decided, accept."""
    session = Session.start(agents, "red breast", CONFIG)
    session.answer(0)
    session.add_words("small")
    session.undo()
    session.answer(1, kind="probably")
    while session.phase == "clarifying":
        session.answer(kind="not_sure")
    while session.phase == "comparing":
        session.prefer("left")
    session.accept()
    return session


def skipped_rejected_chosen(agents: TinyAgents) -> Session:
    """skip, stop, more, done, reject, choose, give_up after an undo."""
    session = Session.start(agents, "bird", CONFIG)
    session.skip_to_shortlist()
    session.ask_more()
    session.answer(kind="not_sure")
    if session.phase == "clarifying":
        session.answer(kind="not_sure")
    session.prefer("tie")
    session.done()
    session.reject("not about crows")
    session.choose(session.alternatives[-1].id)
    session.undo()
    session.give_up()
    return session


def ruled_out_and_back(agents: TinyAgents) -> Session:
    """ "neither is relevant" until every candidate is ruled out (back), then a rejection and more questions
    without the rejected label."""
    session = Session.start(agents, "bird", WIDE)
    session.answer(kind="not_sure")
    session.answer(kind="not_sure")
    while session.phase == "comparing" and session.pair is not None:
        session.prefer("neither")
    while session.phase == "clarifying":
        session.answer(kind="not_sure")
    if session.phase == "comparing":
        session.done()
    if session.phase == "decided":
        session.reject()
    if session.can_ask_more:
        session.ask_more()
    return session


def rejected_then_more(agents: TinyAgents) -> Session:
    """A rejection after comparing, then more questions without the rejected label (more with exclude)."""
    session = Session.start(agents, "bird", CONFIG)
    session.answer(kind="not_sure")
    session.answer(kind="not_visible")
    session.prefer("right")
    session.done()
    session.reject("wrong colour")
    session.ask_more()
    return session


def nothing_fits(agents: DeskAgents) -> Session:
    """out_of_scope, show_closest, undo, words, and out_of_scope again: hand_off."""
    session = Session.start(agents, "what is the weather like", CONFIG)
    _unanswerable(session)
    session.show_closest()
    session.undo()
    session.add_words("tomorrow")
    _unanswerable(session)
    if session.phase == "out_of_scope":
        session.hand_off("please call me")
    return session


def _unanswerable(session: Session) -> None:
    while session.phase == "clarifying":
        view = session.question
        assert view is not None
        if "something else" in view.options:
            session.answer(view.options.index("something else"))
        else:
            session.answer(kind="not_sure")


SCRIPTS: dict[str, tuple[Callable[[], TinyAgents], Callable[..., Session]]] = {
    "answered_then_accepted": (TinyAgents, answered_then_accepted),
    "skipped_rejected_chosen": (TinyAgents, skipped_rejected_chosen),
    "ruled_out_and_back": (TinyAgents, ruled_out_and_back),
    "rejected_then_more": (TinyAgents, rejected_then_more),
    "nothing_fits": (DeskAgents, nothing_fits),
}


def state_of(session: Session) -> dict:
    """What a replay must rebuild, as JSON: the phase, the belief (6 digits), the answers and comparisons."""
    proposed = session.proposed
    return {
        "phase": str(session.phase),
        "status": str(session.status),
        "query": session.query,
        "turn": int(session.conversation.turn),
        "probs": [round(float(p), 6) for p in session.conversation.probs],
        "question": None if session.question is None else session.question.index,
        "comparisons": session.comparisons,
        "proposed": None if proposed is None else proposed.candidate_id,
        "final": None if session.final is None else session.final.candidate_id,
        "rejected": None if session.rejected is None else session.rejected.candidate_id,
        "rejection_reason": session.rejection_reason,
        "alternatives": [c.id for c in session.alternatives],
        "handed_off": session.handed_off,
        "can_undo": session.can_undo,
    }


def stored_rows(session: Session) -> list[list[str]]:
    """[kind, payload text] of every entry of ``session``'s log, as stored."""
    rows = session.kb.db.execute(
        "SELECT kind, payload FROM turns WHERE session_id = ? ORDER BY position", [session.id]
    ).fetchall()
    return [[str(kind), str(payload)] for kind, payload in rows]


def record(name: str) -> dict:
    """Run script ``name`` in the current CLARIFY_HOME: its domain, query, settings, rows and final state."""
    make_agents, script = SCRIPTS[name]
    agents = make_agents()
    session = script(agents)
    with KnowledgeBase.open(agents.name) as kb:
        config = json.loads(kb.db.execute("SELECT config FROM sessions WHERE id = ?", [session.id]).fetchone()[0])
    return {
        "domain": agents.name,
        "query": session.log.record(session.id).query,
        "config": config,
        "rows": stored_rows(session),
        "state": state_of(Session.resume(agents, session.id)),
    }


if __name__ == "__main__":  # run with an empty CLARIFY_HOME
    out = {name: record(name) for name in SCRIPTS}
    with open(sys.argv[1], "w", encoding="utf-8") as file:
        json.dump(out, file, indent=1, ensure_ascii=False)
        file.write("\n")
    print(f"{sum(len(v['rows']) for v in out.values())} rows of {len(out)} sessions -> {sys.argv[1]}")
