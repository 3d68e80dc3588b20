"""Properties of whole sessions over random conversations on the tiny domain: a label the person's answers
rule out is never proposed while a shortlisted label is consistent with them, and undo always gives back
exactly the state before the action."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from assistant.app.session.session import Session, SessionConfig
from tests.support.tiny import TinyAgents

ANSWERS = st.sampled_from([("option", 0), ("option", 1), ("probably", 0), ("probably", 1), ("not_sure", None)])
COMPARISONS = st.sampled_from(["left", "right", "tie", "neither", "done"])
SETTINGS = settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


def consistent_keys(session: Session, shortlist_size: int) -> tuple[set[str], set[str]]:
    """(keys of shortlisted labels, keys of those consistent with every answer so far)."""
    conversation = session.conversation
    consistent = conversation.consistent_labels()
    position = {int(c): i for i, c in enumerate(conversation.clarifier.candidates)}
    items = conversation.shortlist(shortlist_size)
    return {it.label.key for it in items}, {it.label.key for it in items if consistent[position[it.label_index]]}


@SETTINGS
@given(
    query=st.sampled_from(["bird", "red breast", "black bird", "white seabird", "small"]),
    answers=st.lists(ANSWERS, min_size=1, max_size=3),
    comparisons=st.lists(COMPARISONS, max_size=4),
    shortlist=st.integers(2, 4),
)
# "neither" on the only pair: both are ruled out, the session asks again and compares a new shortlist
@example(
    query="red breast", answers=[("option", 0), ("option", 0), ("option", 1)], comparisons=["neither"], shortlist=2
)
def test_a_label_the_answers_rule_out_is_not_proposed_while_a_shortlisted_one_fits(
    query, answers, comparisons, shortlist
):
    agents = TinyAgents(turns=3)
    session = Session.start(agents, query, SessionConfig(shortlist_size=shortlist, ranking_budget=4))
    for kind, option in answers:
        if session.phase != "clarifying":
            break
        options = len(session.question.options)
        session.answer(None if option is None else option % options, kind)
    if session.phase == "clarifying":
        session.skip_to_shortlist()
    for step in [*comparisons, "end"]:
        # recomputed at every step: "neither is relevant" on every candidate rules them out too, and the
        # session goes back to asking without them (then a new shortlist is compared)
        shortlisted, fitting = consistent_keys(session, shortlist)
        proposed = session.proposed
        if proposed is not None and fitting and session.phase in ("comparing", "decided"):
            assert proposed.label_key in fitting, (proposed.label_key, shortlisted, fitting)
            assert set(session.ruled_out_labels).isdisjoint(fitting)
            assert {c.id.split("#")[0] for c in session.ranking.candidates} <= fitting
        if session.phase != "comparing" or step == "end":
            break
        session.done() if step == "done" else session.prefer(step)


@SETTINGS
@given(
    steps=st.lists(
        st.sampled_from(
            [
                "answer",
                "not_sure",
                "skip",
                "left",
                "right",
                "neither",
                "done",
                "accept",
                "reject",
                "more",
                "choose",
                "give_up",
            ]
        ),
        min_size=1,
        max_size=10,
    )
)
def test_undo_gives_back_exactly_the_state_before_every_action(steps):
    agents = TinyAgents(turns=3)
    session = Session.start(agents, "bird", SessionConfig(shortlist_size=4, ranking_budget=3, ranking_threshold=0.999))
    for step in steps:
        before = (
            session.phase,
            session.conversation.probs.copy(),
            session.pair and [c.id for c in session.pair],
            session.proposed,
        )
        try:
            act(session, step)
        except Exception as exc:  # an action that does not fit the phase is refused and changes nothing
            assert type(exc).__name__ in ("SessionStateError", "ConfigError"), exc
            continue
        session.undo()
        assert session.phase == before[0]
        np.testing.assert_allclose(session.conversation.probs, before[1])
        assert (session.pair and [c.id for c in session.pair]) == before[2]
        assert session.proposed == before[3]
        act(session, step)  # and go on


def act(session: Session, step: str) -> None:
    if step == "answer":
        session.answer(0)
    elif step == "not_sure":
        session.answer(kind="not_sure")
    elif step == "skip":
        session.skip_to_shortlist()
    elif step in ("left", "right", "neither"):
        session.prefer(step)
    elif step == "done":
        session.done()
    elif step == "accept":
        session.accept()
    elif step == "reject":
        session.reject("no")
    elif step == "more":
        session.ask_more()
    elif step == "choose":
        alternatives = session.alternatives
        session.choose(alternatives[0].id if alternatives else "none")
    else:
        session.give_up()
