"""RankingSession: the state machine, undo, ties, stopping, determinism and save/resume."""

from __future__ import annotations

import json

import numpy as np
import pytest

from assistant.errors import ConfigError, SessionStateError
from assistant.ranking import Candidate, RankingSession, RankingStopReason, candidates_from_labels
from assistant.ranking.oracle import NoisyOracle
from assistant.ranking.ranking_session import MIN_CHANCE
from assistant.store import Label


def _candidates(n=12, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 5))
    return [Candidate(f"c{i}", f"title {i}", f"text {i}", x[i], prior=float(rng.normal())) for i in range(n)]


def _snapshot(session):
    return (session.next_pair(), session.scores().tolist(), session.confidence, session.best_index, session.stop_reason)


def _drive(session, utilities, seed=0, steps=100, t=0.3):
    oracle = NoisyOracle(utilities, t=t, rng=np.random.default_rng(seed))
    for _ in range(steps):
        pair = session.next_pair()
        if pair is None:
            break
        session.answer(oracle.answer(*pair))
    return session


def test_same_seed_same_dialogue_and_different_seeds_can_differ():
    utilities = np.linspace(0, 1, 12)
    runs = [
        _drive(RankingSession(_candidates(), acquisition="tp", seed=s, threshold=1.0, budget=8), utilities)
        for s in (3, 3, 4)
    ]
    assert runs[0].history == runs[1].history
    assert runs[0].to_dict() == runs[1].to_dict()
    assert len(runs[0].history) == 8 and runs[0].stop_reason == "budget"
    assert runs[2].history != runs[0].history  # Thompson sampling draws from the seed


def test_undo_restores_the_exact_previous_state():
    session = RankingSession(_candidates(), seed=1, threshold=1.0, budget=6)
    _drive(session, np.linspace(0, 1, 12), steps=3)
    before = _snapshot(session)
    session.answer("left")
    assert _snapshot(session) != before
    assert session.undo() is True
    assert _snapshot(session) == before
    while session.undo():
        pass
    assert _snapshot(session) == _snapshot(RankingSession(_candidates(), seed=1, threshold=1.0, budget=6))
    assert session.undo() is False


def test_ties_are_valid_answers_and_recorded():
    session = RankingSession(_candidates(), seed=0, threshold=1.0, budget=3)
    left, right = session.next_pair()
    session.answer("tie")
    assert session.history[0].preferred == "tie" and (session.history[0].left, session.history[0].right) == (
        left,
        right,
    )
    assert session.next_pair() not in {(left, right), (right, left)}


def test_pairs_never_repeat_over_a_whole_session():
    """Asked until nothing is left: no pair twice, and no pair with a candidate that has almost no chance of
    being the best left (the person's time goes to those still in question)."""
    session = RankingSession(_candidates(6), acquisition="unpa", seed=0, threshold=1.0, budget=15)
    seen_unlikely = []
    while (pair := session.next_pair()) is not None:
        chances = session.chances()
        seen_unlikely += [i for i in pair if chances[i] < MIN_CHANCE]
        utilities = np.linspace(0, 1, 6)
        session.answer("left" if utilities[pair[0]] > utilities[pair[1]] else "right")
    keys = [tuple(sorted((r.left, r.right))) for r in session.history]
    assert len(keys) == len(set(keys)) >= 5 and seen_unlikely == []
    assert session.stop_reason == RankingStopReason.NO_PAIR_LEFT


def test_first_pair_is_bo_heuristic():
    cands = _candidates()
    session = RankingSession(cands, seed=0)
    best_prior = int(np.argmax([c.prior for c in cands]))
    assert session.next_pair()[0] == best_prior


def test_stops_when_confident_and_refuses_more_answers():
    cands = [Candidate(str(i), str(i), "", np.eye(3)[i], prior=p) for i, p in enumerate([5.0, 0.0, 0.1])]
    session = RankingSession(cands, seed=0, threshold=0.6, budget=10, model_options={"output_scale": 0.05})
    assert session.stopped and session.stop_reason == "confident" and session.confidence > 0.6
    assert session.next_pair() is None
    with pytest.raises(SessionStateError):
        session.answer("left")


def test_finds_the_best_with_a_consistent_user():
    utilities = np.linspace(0, 1, 12)[::-1]  # candidate 0 is the best
    # One-hot features: utilities are unrelated to features here, so no smoothness should be assumed.
    cands = [Candidate(c.id, c.title, c.text, np.eye(12)[i], c.prior) for i, c in enumerate(_candidates())]
    # (the median heuristic would make a near-constant kernel for one-hot vectors: fix the length scale)
    session = RankingSession(cands, seed=2, threshold=0.95, budget=20, model_options={"lengthscale": 0.5})
    session = _drive(session, utilities, t=0.001)
    assert session.best().id == "c0", session.history
    # sure of it, out of comparisons, or every other candidate has almost no chance left
    assert session.stop_reason in (
        RankingStopReason.CONFIDENT,
        RankingStopReason.BUDGET,
        RankingStopReason.NO_PAIR_LEFT,
    )


def test_round_trip_through_json_continues_identically():
    utilities = np.random.default_rng(1).random(12)
    a = RankingSession(_candidates(), acquisition="tp", seed=7, threshold=1.0, budget=9)
    _drive(a, utilities, steps=4)
    b = RankingSession.from_dict(json.loads(json.dumps(a.to_dict())))
    assert _snapshot(a) == _snapshot(b)
    assert [c.id for c in b.candidates] == [c.id for c in a.candidates]
    _drive(a, utilities, seed=5)
    _drive(b, utilities, seed=5)
    assert a.history == b.history and a.best_index == b.best_index


def test_from_dict_rejects_malformed_data():
    good = RankingSession(_candidates(4), seed=0).to_dict()
    with pytest.raises(ConfigError):
        RankingSession.from_dict({"format": 99})
    broken = dict(good, history=[{"left": 0, "right": 9, "preferred": "left"}])
    with pytest.raises(ConfigError, match="invalid comparison"):
        RankingSession.from_dict(broken)
    with pytest.raises(ConfigError, match="malformed"):
        RankingSession.from_dict({k: v for k, v in good.items() if k != "seed"})


def test_invalid_answers_and_settings_are_clear_errors():
    session = RankingSession(_candidates(4), seed=0)
    with pytest.raises(ConfigError, match="left, right, tie"):
        session.answer("1")
    with pytest.raises(ConfigError, match="unknown ranking model"):
        RankingSession(_candidates(4), model="svm")
    with pytest.raises(ConfigError, match="at least one candidate"):
        RankingSession([])


def test_bradley_terry_session_with_unc():
    session = _drive(
        RankingSession(_candidates(), model="bt", acquisition="unc", seed=0, budget=5), np.linspace(0, 1, 12)
    )
    assert 1 <= len(session.history) <= 5
    # a budget of 5 and utilities 12 steps apart: UNC keeps comparing until the budget is spent
    assert len(session.history) == 5 and session.stop_reason == "budget"
    with pytest.raises(ConfigError, match="does not suit the 'bt' ranker: use one of unc, random"):
        RankingSession(_candidates(), model="bt", acquisition="imp")
    with pytest.raises(ConfigError, match="does not suit the 'gppl' ranker"):
        RankingSession(_candidates(), model="gppl", acquisition="unc")


def test_single_candidate_stops_at_once():
    session = RankingSession(_candidates(1), seed=0)
    assert session.next_pair() is None and session.best().id == "c0" and session.confidence == 1.0


def test_candidates_from_labels(hashing_encoder):
    labels = [
        Label("card_lost", "Lost card", "I lost my card", ("Call us to block it.", "Block it in the app.")),
        Label("pin", "Change PIN", "How do I change my PIN?"),
    ]
    cands = candidates_from_labels(labels, [0.7, 0.3], "lost my card", encoder=hashing_encoder)
    assert [c.id for c in cands] == ["card_lost#1", "card_lost#2", "pin"]
    assert cands[2].text == "How do I change my PIN?" and cands[0].title == "Lost card"
    assert all(c.features.shape == (64,) for c in cands)
    assert cands[0].prior > cands[2].prior
    session = RankingSession(cands, seed=0)
    assert session.next_pair() is not None
    with pytest.raises(ConfigError):
        candidates_from_labels(labels, [0.5], "q", encoder=hashing_encoder)
