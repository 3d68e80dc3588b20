"""Properties of the comparison phase over random sessions: what the person said holds, no pair comes back,
"neither" rules candidates out, and a consistent winner is found within the budget."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.app.session.comparison import RANKER_OPTIONS
from assistant.ranking import Candidate, RankingSession, RankingStopReason
from assistant.ranking.constraints import project_order, standing_preferences

ANSWER = st.sampled_from(["left", "right", "left", "right", "tie", "neither"])
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MODELS = [("gppl", {}), ("gppl", RANKER_OPTIONS), ("bt", {})]


def random_candidates(seed: int, n: int, prior_spread: float) -> list[Candidate]:
    """``n`` candidates in a few tight clusters (the kernel then thinks them alike) with a prior that may be
    strong enough to outweigh a single comparison."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(3, 8))
    return [
        Candidate(f"c{i}", f"title {i % 3}", f"text {i}", centres[i % 3] + 0.1 * rng.normal(size=8), prior)
        for i, prior in enumerate(prior_spread * rng.normal(size=n))
    ]


def contradicted(history, i: int) -> bool:
    """Whether answers after the i-th order its loser above its winner (directly or through a chain), or
    rule its winner out ("neither")."""
    record = history[i]
    winner, loser = (record.left, record.right) if record.preferred == "left" else (record.right, record.left)
    later = history[i + 1 :]
    if any(r.preferred == "neither" and winner in (r.left, r.right) for r in later):
        return True
    edges: dict[int, set[int]] = {}
    for r in later:
        if r.preferred in ("left", "right"):
            w, lo = (r.left, r.right) if r.preferred == "left" else (r.right, r.left)
            edges.setdefault(w, set()).add(lo)
    todo, seen = [loser], {loser}
    while todo:
        node = todo.pop()
        if node == winner:
            return True
        for nxt in edges.get(node, set()) - seen:
            seen.add(nxt)
            todo.append(nxt)
    return False


@pytest.mark.parametrize(("model", "options"), MODELS, ids=["gppl", "gppl-person", "bt"])
@SETTINGS
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(3, 9),
    spread=st.sampled_from([0.0, 1.0, 5.0]),
    answers=st.lists(ANSWER, min_size=1, max_size=10),
)
def test_every_stated_preference_holds_unless_later_answers_contradict_it(model, options, seed, n, spread, answers):
    acquisition = "unc" if model == "bt" else "imp"
    session = RankingSession(
        random_candidates(seed, n, spread),
        model=model,
        acquisition=acquisition,
        seed=seed,
        budget=20,
        threshold=1.0,
        model_options=options,
    )
    for answer in answers:
        if session.next_pair() is None:
            break
        session.answer(answer)
        history = session.history
        position = {c: k for k, c in enumerate(session.ranking())}
        for i, record in enumerate(history):
            if record.preferred in ("left", "right") and not contradicted(history, i):
                winner, loser = (
                    (record.left, record.right) if record.preferred == "left" else (record.right, record.left)
                )
                assert position[winner] < position[loser], (i, record, session.ranking())
                assert session.chances()[loser] <= session.chances()[winner] + 1e-12
        assert session.best_index == session.ranking()[0]
        assert np.isclose(session.chances().sum(), 1.0) or session.ruled_out.all()


@SETTINGS
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(2, 8),
    steps=st.lists(st.sampled_from([*ANSWER.elements, "undo"]), max_size=25),
)
def test_no_pair_is_ever_shown_twice_and_ruled_out_candidates_never_again(seed, n, steps):
    session = RankingSession(random_candidates(seed, n, 1.0), seed=seed, budget=30, threshold=1.0)
    for step in steps:
        if step == "undo":
            session.undo()
            continue
        pair = session.next_pair()
        shown = {frozenset((r.left, r.right)) for r in session.history}
        if pair is None:
            assert session.stopped
            continue
        assert pair[0] != pair[1] and frozenset(pair) not in shown
        assert not session.ruled_out[list(pair)].any()
        session.answer(step)
    if session.ruled_out.all():
        assert session.stop_reason == RankingStopReason.ALL_RULED_OUT and session.next_pair() is None


def take_in_turn(candidates: list, limit: int) -> list:
    """At most ``limit`` candidates: each label's best (by prior) in turn, likeliest label first."""
    by_label: dict[str, list] = {}
    for c in candidates:
        by_label.setdefault(c.label_key, []).append(c)
    queues = sorted(
        (sorted(group, key=lambda c: -c.prior) for group in by_label.values()), key=lambda group: -group[0].prior
    )
    picked: list = []
    depth = 0
    while len(picked) < min(limit, len(candidates)):
        picked += [group[depth] for group in queues if depth < len(group)][: limit - len(picked)]
        depth += 1
    return picked


@SETTINGS
@given(
    seed=st.integers(0, 10_000),
    answers=st.lists(st.integers(2, 9), min_size=1, max_size=3),
    winner=st.integers(0, 100),
    coin=st.randoms(use_true_random=False),
)
def test_a_consistent_winner_is_proposed_and_gains_confidence_with_every_win(seed, answers, winner, coin):
    """The person's settings: at most budget + 1 candidates, taken in turn from the likeliest labels' answers,
    with the clarifier's belief as the prior. One candidate wins every comparison it is in (the others are
    decided at random): once shown it is the ranker's best, every win keeps it the best without lowering its
    chance of being the best, and no answer makes the ranker certain of it."""
    rng = np.random.default_rng(seed)
    belief = np.sort(rng.dirichlet(np.ones(len(answers))))[::-1]
    candidates = []
    for label, (count, p) in enumerate(zip(answers, belief)):
        centre = rng.normal(size=16)
        for k in range(count):
            x = centre + 0.7 * rng.normal(size=16)
            prior = np.log(p) + 0.2 * rng.random()
            candidates.append(Candidate(f"L{label}#{k + 1}", f"L{label}", "t", x, prior, label_key=f"L{label}"))
    budget = 8
    candidates = take_in_turn(candidates, budget + 1)
    w = winner % len(candidates)
    session = RankingSession(candidates, seed=seed, budget=budget, threshold=0.9, model_options=RANKER_OPTIONS)
    while (pair := session.next_pair()) is not None:
        before = session.confidence if session.best_index == w else None
        if w in pair:
            session.answer("left" if pair[0] == w else "right")
            if before is not None:  # it won again: its chance of being the best did not fall
                assert session.best_index == w and session.confidence >= before - 1e-12
        else:
            session.answer(coin.choice(["left", "right"]))
        assert session.confidence < 0.999
    shown = any(w in (r.left, r.right) for r in session.history)
    if shown:
        assert session.best_index == w  # it beat everything it met: nothing it beat is proposed


def test_two_comparisons_of_three_answers_make_nobody_certain():
    rng = np.random.default_rng(0)
    candidates = [Candidate(f"a{i}", "A", "t", rng.normal(size=8), 0.0, label_key="A") for i in range(3)]
    session = RankingSession(candidates, seed=0, budget=8, threshold=0.99, model_options=RANKER_OPTIONS)
    for _ in range(2):
        left, _ = session.next_pair()
        session.answer("left" if session.best_index == left else "right")
    assert 0.5 < session.confidence < 0.95  # before: "100% sure it is the best one" after two comparisons


def test_projection_moves_the_least_and_keeps_what_already_holds():
    values = np.array([0.0, 1.0, 2.0, -1.0])
    assert np.array_equal(project_order(values, [(2, 1), (1, 0)]), values)  # already in order
    moved = project_order(values, [(0, 2)])  # 0 must beat 2: both meet in the middle
    assert moved[0] >= moved[2] and np.isclose(moved[0], 1.0, atol=1e-5) and np.isclose(moved[2], 1.0, atol=1e-5)
    assert moved[1] == 1.0 and moved[3] == -1.0


def test_a_newer_answer_wins_over_an_older_one_it_contradicts():
    # 0 > 1, then 1 > 2, then 2 > 0 closes a cycle with both: the oldest pair (0 > 1) is dropped
    assert standing_preferences([(0, 1), (1, 2), (2, 0)]) == [(1, 2), (2, 0)]
    assert standing_preferences([(0, 1), (1, 0)]) == [(1, 0)]
