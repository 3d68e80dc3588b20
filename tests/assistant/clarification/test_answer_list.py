"""The answer-list question ("Which of these is it? A / B / C / none of these", assistant.clarification.answer_list): its exact answer model,
its information gain against brute force, when a conversation asks it, and how a session logs and replays it."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.app.session.session import Phase, Session, SessionConfig
from assistant.clarification.answer_list import (
    ANSWER_LIST,
    LIST_ERROR,
    NONE_OF_THESE,
    AnswerList,
    answer_list_gain,
    best_answer_list,
)
from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.clarifier import Clarifier, ClarifierConfig
from assistant.clarification.stopping import FixedTurns, ThresholdStop
from assistant.simulation.episodes import EpisodeSpec
from assistant.simulation.rollout import run_episode
from assistant.simulation.user import SimulatedUser
from tests.support.tiny import KeywordPrior, TinyAgents, make_tiny_domain


def brute_force_gain(probs: np.ndarray, listed: AnswerList) -> float:
    """H(y) - E_r[H(y | r)] from the likelihood table, the long way."""
    table = np.array([listed.likelihood(r, len(probs)) for r in range(listed.num_options)])  # [R, Y]
    joint = table * probs[None, :]
    answer = joint.sum(axis=1)

    def entropy(p):
        p = p[p > 0]
        return float(-(p * np.log(p)).sum())

    return entropy(probs) - sum(a * entropy(row / a) for a, row in zip(answer, joint) if a > 0)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(3, 12), st.integers(2, 4))
def test_the_gain_is_the_expected_drop_in_entropy(seed, labels, size):
    rng = np.random.default_rng(seed)
    probs = rng.dirichlet(np.full(labels, 0.5))
    listed = AnswerList(tuple(int(i) for i in rng.permutation(labels)[: min(size, labels - 1)]))
    assert answer_list_gain(probs, listed) == pytest.approx(brute_force_gain(probs, listed), abs=1e-9)


def test_the_answer_model_is_exact_up_to_a_small_slip():
    listed = AnswerList((2, 0))
    slip = LIST_ERROR / 2  # spread over the two options a person did not mean
    picked = listed.likelihood(0, 4)  # "the first listed one"
    assert picked[2] == pytest.approx(1 - LIST_ERROR) and picked[[0, 1, 3]] == pytest.approx([slip] * 3)
    none = listed.likelihood(listed.none_option, 4)
    assert none[[1, 3]] == pytest.approx([1 - LIST_ERROR] * 2) and none[[0, 2]] == pytest.approx([slip] * 2)
    for y in range(4):  # every label's options sum to one
        assert sum(listed.likelihood(r, 4)[y] for r in range(3)) == pytest.approx(1.0)


def test_the_best_list_names_the_likeliest_labels_not_listed_together_before():
    probs = np.array([0.45, 0.05, 0.4, 0.1])
    eligible = np.ones(4, dtype=bool)
    listed, gain = best_answer_list(probs, eligible, set())
    assert listed.positions[:2] == (0, 2) and gain > 0
    eligible[0] = False  # ruled out by an answer
    listed, _ = best_answer_list(probs, eligible, set())
    assert 0 not in listed.positions
    again, _ = best_answer_list(
        probs, np.ones(4, dtype=bool), {tuple(sorted(p)) for p in [(0, 2), (0, 2, 3), (0, 1, 2, 3)]}
    )
    assert again is None


def tiny_clarifier(stop, answer_lists=True, shortlist_size=4) -> Clarifier:
    domain = make_tiny_domain()
    model = AnswerModel(domain.p_hat(1.0), domain.option_mask)
    config = ClarifierConfig(max_turns=10, shortlist_size=shortlist_size, answer_lists=answer_lists)
    return Clarifier(domain, KeywordPrior(domain), model, stop, config=config)


def test_a_list_is_asked_instead_of_stopping_while_labels_are_still_in_question():
    clarifier = tiny_clarifier(FixedTurns(0))
    conversation = clarifier.start("bird")  # no label dominates
    before = conversation.probs.copy()
    assert conversation.next_question() == ANSWER_LIST
    question = conversation.question(ANSWER_LIST)
    assert question.options[-1] == NONE_OF_THESE and 3 <= len(question.options) <= 5
    names = question.options[:-1]
    target = clarifier.domain.labels.index(next(lab for lab in clarifier.domain.labels if lab.name == names[1]))
    conversation.answer(ANSWER_LIST, 1)
    assert int(conversation.ranking(1)[0]) == target and conversation.probs.max() > 0.8
    assert conversation.next_question() is None  # one label dominates now: stop
    conversation.undo()
    np.testing.assert_allclose(conversation.probs, before)


def test_none_of_these_rules_the_listed_labels_out_and_lists_are_not_repeated():
    conversation = tiny_clarifier(FixedTurns(0)).start("bird")
    assert conversation.next_question() == ANSWER_LIST
    listed = conversation.pending_list.positions
    conversation.answer(ANSWER_LIST, len(listed))  # none of these
    consistent = conversation.consistent_labels()
    assert not consistent[list(listed)].any() and consistent.sum() == 4 - len(listed)
    follow = conversation.next_question()
    assert follow != ANSWER_LIST or conversation.pending_list.positions != listed


def test_without_answer_lists_nothing_changes():
    conversation = tiny_clarifier(FixedTurns(0), answer_lists=False).start("bird")
    assert conversation.next_question() is None


def test_a_simulated_person_answers_lists_exactly_and_the_episode_counts_it_as_a_question():
    clarifier = tiny_clarifier(ThresholdStop(0.9))
    domain = clarifier.domain
    user = SimulatedUser(domain.p_hat(1.0), domain.option_mask, list_error=0.0)
    for target in range(4):
        episode = run_episode(clarifier, user, EpisodeSpec(target, "bird", seed=target))
        assert episode.correct_at_1 and ANSWER_LIST in episode.questions


@pytest.fixture
def listing_agents(monkeypatch):
    agents = TinyAgents(turns=0)
    original = agents.clarifier

    def clarifier(*args, **kwargs):
        made = original(*args, **kwargs)
        made.config = replace(made.config, answer_lists=True)
        return made

    monkeypatch.setattr(agents, "clarifier", clarifier)
    return agents


def test_a_session_asks_the_list_logs_the_labels_it_named_and_replays_them(listing_agents):
    session = Session.start(listing_agents, "bird", SessionConfig(shortlist_size=4))
    view = session.question
    assert view.index == ANSWER_LIST and view.options[-1] == NONE_OF_THESE
    session.answer(0)
    [entry] = [e.event for e in session.transcript() if e.kind == "answer"]
    assert len(entry.listed) == len(view.options) - 1 and entry.option_text == view.options[0]
    assert len(entry.to_json()["list"]) == len(entry.listed)  # logged under its name of old
    resumed = Session.resume(listing_agents, session.id)
    assert resumed.phase == session.phase and resumed.repaired == []
    np.testing.assert_array_equal(resumed.conversation.probs, session.conversation.probs)
    assert session.phase in (Phase.COMPARING, Phase.DECIDED)
    assert session.proposed.label_name == view.options[0]  # the one the person picked is proposed


def test_every_combination_of_list_sizes_keeps_probabilities_normalised():
    for size, option in itertools.product((2, 3, 4), range(5)):
        listed = AnswerList(tuple(range(size)))
        if option > listed.none_option:
            continue
        assert listed.likelihood(option, 6).min() > 0
