"""The one view of a session after a rejection (issue 32): the belief sums to one over the rest, no live entry
reads 0%, the rejected one is not proposed again, and the terminal's events carry the view's numbers."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.app.session.numbers import percent
from assistant.app.session.session import Session, SessionConfig
from assistant.app.session.view import session_view
from assistant.clarification.belief import DISMISS_ERROR
from tests.support.tiny import TinyAgents

CONFIG = SessionConfig(shortlist_size=3, ranking_budget=2, ranking_threshold=0.999)


def test_after_a_rejection_the_view_reads_the_belief_over_the_rest():
    session = Session.start(TinyAgents(), "bird", CONFIG)
    session.answer(kind="not_sure")
    session.answer(kind="not_sure")
    rejected = session.done()
    session.reject("not this one")
    before_more = session_view(session)  # the way-out page: the rejected entry already reads as dismissed
    assert before_more.stop_explanation is None
    assert all(a.chance <= DISMISS_ERROR + 1e-9 for a in before_more.answers if a.label_key == rejected.label_key)
    session.ask_more()
    probs = session.conversation.probs
    position = int(session.conversation.positions([session.domain.label_index(rejected.label_key)])[0])
    assert probs.sum() == pytest.approx(1.0) and (probs > 0).all()
    assert probs[position] <= DISMISS_ERROR + 1e-9
    view = session_view(session)
    assert rejected.label_key not in [e.key for e in view.entries]
    assert all(e.percent not in ("0%", "100%") for e in view.entries)
    assert sum(e.probability for e in view.entries) == pytest.approx(1 - probs[position], abs=1e-9)
    # the explanation of the next question reads the updated belief: it still tells something
    explanation = session.explain()
    assert explanation is not None and explanation["information_gain"] > 0.01
    # the terminal's events carry exactly the view's numbers
    shortlist = view.shortlist_dict()
    assert [percent(it["probability"]) for it in shortlist["items"]] == [e.percent for e in view.entries]
    assert view.to_dict()["type"] == "question"
    while session.phase == "clarifying":
        session.answer(kind="not_sure")
    assert session.proposed is None or session.proposed.label_key != rejected.label_key


def test_neither_is_relevant_lowers_both_entries_in_the_one_belief():
    session = Session.start(TinyAgents(), "bird", CONFIG)
    session.answer(kind="not_sure")
    session.answer(kind="not_sure")
    left, right = session.pair
    session.prefer("neither")
    positions = session.conversation.positions([session.domain.label_index(c.label_key) for c in (left, right)])
    assert session.conversation.probs[positions].sum() <= DISMISS_ERROR + 1e-9
    assert session.conversation.probs.sum() == pytest.approx(1.0)
    session.undo()  # taken back exactly
    assert session.conversation.probs[positions].sum() > DISMISS_ERROR


def test_the_view_says_the_conformal_shortlist_in_words_when_it_fits_the_rows():
    """Issue 32: "very likely (90%) among the first N" where the prior carries a fitted conformal shortlist, N the
    entries whose chance reaches its threshold, and said only when those entries are among the rows shown."""
    from assistant.clarification.conformal import ConformalShortlist

    session = Session.start(TinyAgents(), "bird", CONFIG)
    assert session_view(session).promise is None  # no fitted shortlist: no promise
    prior = session.conversation.clarifier.prior
    prior.shortlist = ConformalShortlist(0.9, threshold=0.0)  # every entry: more than the rows shown
    assert session_view(session, rows=2).promise is None
    view = session_view(session)  # every entry, all shown: the rows add up to the promise
    assert view.promise == "very likely (90%) among the first 4"
    assert view.shortlist_dict()["promise"] == view.promise
    # issue 39: no promise beside rows that add up to far less than it ("among the first 8" over 42%)
    probs = session.conversation.probs
    prior.shortlist = ConformalShortlist(0.9, threshold=float(probs.max()))  # the likeliest alone
    assert probs.max() < 0.8 and session_view(session).promise is None
    prior.shortlist = ConformalShortlist(0.2, threshold=float(probs.max()))  # a promise the first row keeps
    n = int((probs >= probs.max()).sum())
    assert session_view(session).promise == (
        "very likely (20%) the first one" if n == 1 else f"very likely (20%) among the first {n}"
    )


def test_a_rejection_is_folded_into_the_sessions_belief_and_replays_on_undo_and_resume():
    """Issue 32: the person's "no" is evidence in the session's one belief the moment it is said (not a patch
    of the view): it sums to one over the rest, no entry at 0, the rejected one at most DISMISS_ERROR; asking
    for more questions without it does not dismiss it twice; undo restores the belief exactly and a resumed
    session replays to the same belief."""
    agents = TinyAgents()
    session = Session.start(agents, "bird", CONFIG)
    session.answer(kind="not_sure")
    session.answer(kind="not_sure")
    rejected = session.done()
    before = session.conversation.probs.copy()
    position = int(session.conversation.positions([session.domain.label_index(rejected.label_key)])[0])
    assert before[position] > DISMISS_ERROR  # it was proposed: the cap lowers it
    session.reject("not this one")
    probs = session.conversation.probs.copy()
    assert probs.sum() == pytest.approx(1.0) and (probs > 0).all()
    assert probs[position] <= DISMISS_ERROR + 1e-9
    assert np.delete(probs, position).sum() >= 1 - DISMISS_ERROR - 1e-9
    view = session_view(session)  # the way-out page reads that belief, the ★ on no rejected answer
    rejected_rows = [a for a in view.answers if a.label_key == rejected.label_key]
    assert rejected_rows and sum(a.chance for a in rejected_rows) == pytest.approx(view.in_scope * probs[position])
    assert not any(a.best for a in rejected_rows)
    assert [a.id for a in view.answers if a.best] == [session.alternatives[0].id]
    resumed = Session.resume(agents, session.id)
    assert resumed.phase == "rejected"
    np.testing.assert_array_equal(resumed.conversation.probs, probs)
    session.ask_more()  # only takes it off the shortlist: the same belief
    np.testing.assert_allclose(session.conversation.probs, probs, rtol=0, atol=1e-12)
    assert rejected.label_key not in [e.key for e in session_view(session).entries]
    np.testing.assert_array_equal(Session.resume(agents, session.id).conversation.probs, session.conversation.probs)
    session.undo()
    assert session.phase == "rejected"
    np.testing.assert_array_equal(session.conversation.probs, probs)
    session.undo()  # the rejection taken back: the belief as it was, exactly
    assert session.phase == "decided"
    np.testing.assert_array_equal(session.conversation.probs, before)
