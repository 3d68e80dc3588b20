"""The agent's conversation: asking, answer kinds, undo, stop rules, shortlist."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.clarifier import Clarifier, ClarifierConfig
from assistant.clarification.explanation import explain
from assistant.clarification.questions import RandomQuestions, information_gain
from assistant.clarification.stopping import FixedTurns, LearnedPolicy, ThresholdStop, policy_features
from assistant.errors import ConfigError, EmptyQueryError, SessionStateError
from models.policy_net import STOP, StopPolicyNet
from tests.support.tiny import KeywordPrior, make_tiny_domain


def make_clarifier(domain, stop=None, **kwargs):
    model = AnswerModel(domain.p_hat(1.0), domain.option_mask)
    return Clarifier(domain, KeywordPrior(domain), model, stop or FixedTurns(3), **kwargs)


def test_asks_the_most_informative_question_first(tiny_domain):
    clarifier = make_clarifier(tiny_domain)
    conversation = clarifier.start("a bird")
    question = conversation.next_question()
    ig = information_gain(clarifier.model, conversation.probs)
    assert question == int(np.argmax(ig))


def test_the_query_shapes_the_prior(tiny_domain):
    conversation = make_clarifier(tiny_domain).start("bright red crest")
    assert conversation.shortlist(1)[0].label.name == "Cardinal"


def test_answers_update_and_undo_restores_exactly(tiny_domain):
    conversation = make_clarifier(tiny_domain).start("small bird")
    start = conversation.probs.copy()
    q1 = conversation.next_question()
    conversation.answer(q1, 0)
    after_one = conversation.probs.copy()
    assert not np.allclose(after_one, start)
    q2 = conversation.next_question()
    assert q2 != q1
    conversation.answer(q2, kind="not_sure")
    np.testing.assert_array_equal(conversation.probs, after_one)  # "not sure" changes nothing
    conversation.undo()
    conversation.undo()
    np.testing.assert_array_equal(conversation.probs, start)
    assert conversation.turn == 0 and conversation.available.all()
    with pytest.raises(SessionStateError):
        conversation.undo()


def test_not_visible_retires_the_whole_group(tiny_domain):
    conversation = make_clarifier(tiny_domain).start("bird")
    before = conversation.probs.copy()
    conversation.answer(0, kind="not_visible")  # has_color group: questions 0 and 1
    np.testing.assert_array_equal(conversation.probs, before)
    assert conversation.available.tolist() == [False, False, True]
    assert conversation.next_question() == 2
    conversation.undo()
    assert conversation.available.all()


def test_not_visible_is_refused_where_the_domain_has_no_such_answer():
    domain = make_tiny_domain(supports_not_visible=False)
    conversation = make_clarifier(domain).start("bird")
    with pytest.raises(ConfigError):
        conversation.answer(0, kind="not_visible")


def test_probably_moves_less_than_a_sure_answer(tiny_domain):
    sure = make_clarifier(tiny_domain).start("bird")
    soft = make_clarifier(tiny_domain).start("bird")
    sure.answer(0, 0)
    soft.answer(0, 0, kind="probably")
    cardinal = 2
    assert sure.probs[cardinal] > soft.probs[cardinal] > make_clarifier(tiny_domain).start("bird").probs[cardinal]


def test_errors_for_bad_actions(tiny_domain):
    clarifier = make_clarifier(tiny_domain)
    with pytest.raises(EmptyQueryError):
        clarifier.start("   ")
    conversation = clarifier.start("bird")
    conversation.answer(0, 1)
    with pytest.raises(SessionStateError):
        conversation.answer(0, 0)
    with pytest.raises(ConfigError):
        conversation.answer(2, 5)
    with pytest.raises(ConfigError):
        conversation.answer(1, kind="maybe")


def test_stop_rules(tiny_domain):
    fixed = make_clarifier(tiny_domain, FixedTurns(2)).start("bird")
    asked = 0
    while (q := fixed.next_question()) is not None:
        fixed.answer(q, 0)
        asked += 1
    assert asked == 2
    assert make_clarifier(tiny_domain, ThresholdStop(0.2)).start("bird").next_question() is None
    capped = make_clarifier(tiny_domain, FixedTurns(10), config=ClarifierConfig(max_turns=1)).start("bird")
    capped.answer(capped.next_question(), 0)
    assert capped.next_question() is None  # max_turns reached


def test_candidates_restrict_the_shortlist(tiny_domain):
    clarifier = make_clarifier(tiny_domain, candidates=np.array([1, 3]))
    conversation = clarifier.start("bright red crest")
    names = [item.label.name for item in conversation.shortlist(4)]
    assert sorted(names) == ["Crow", "Gull"]
    assert sum(item.probability for item in conversation.shortlist(4)) == pytest.approx(1.0)


def test_random_strategy_is_reproducible(tiny_domain):
    def questions(seed):
        conversation = make_clarifier(tiny_domain, FixedTurns(3), strategy=RandomQuestions()).start(
            "bird", np.random.default_rng(seed)
        )
        out = []
        while (q := conversation.next_question()) is not None:
            conversation.answer(q, 0)
            out.append(q)
        return out

    assert questions(5) == questions(5)
    assert sorted(questions(5)) == [0, 1, 2]


def test_explain_reports_ig_and_outcomes(tiny_domain):
    conversation = make_clarifier(tiny_domain).start("bird")
    q = conversation.next_question()
    info = explain(conversation, q)
    assert info["rank"] == 1
    assert info["information_gain"] > 0
    assert [o["option"] for o in info["outcomes"]] == list(tiny_domain.questions[q].options)
    assert sum(o["probability"] for o in info["outcomes"]) == pytest.approx(1.0, abs=1e-5)


def test_policy_features_and_numpy_policy_match_torch():
    probs = np.array([0.1, 0.5, 0.05, 0.35])
    feats = policy_features(probs, 3, 10, top_k=6, best_gain=np.log(2.0) / 2)
    entropy = -(probs * np.log(probs)).sum() / np.log(4)
    np.testing.assert_allclose(feats, [0.5, 0.35, 0.1, 0.05, 0, 0, entropy, 0.5, 1.0, 0.3], rtol=1e-6)
    torch.manual_seed(0)
    net = StopPolicyNet(top_k=6, hidden=8)
    policy = LearnedPolicy(net)
    with torch.no_grad():
        expected = torch.softmax(net(torch.from_numpy(feats)), dim=-1)[STOP].item()
    assert policy.stop_probability(probs, 3, 10, np.log(2.0) / 2) == pytest.approx(expected, rel=1e-5)


def test_not_visible_only_for_questions_it_applies_to():
    domain = make_tiny_domain()
    domain.meta["always_visible_groups"] = json.dumps(["has_size"])
    assert domain.allows_not_visible(0) and not domain.allows_not_visible(2)
    conversation = make_clarifier(domain).start("small red bird")
    with pytest.raises(ConfigError, match="not visible"):
        conversation.answer(2, kind="not_visible")
    conversation.answer(2, kind="not_sure")


def test_one_what_do_you_want_to_do_per_conversation():
    """Issue 34: "What do you want to do in Gmail?" and then "What do you want to do?" in one session: asking
    one facet of a kind retires the others of that kind (and an undo brings them back)."""
    from types import SimpleNamespace

    from assistant.clarification.conversation import Conversation
    from assistant.store import Question

    def question(tag, kind="choice", induced=True):
        options = ("a", "b", "something else") if kind == "choice" else ("yes", "no")
        return Question(tag, f"{tag}?", kind, tag, options, induced)

    questions = [question("action"), question("action@Gmail"), question("object"), question("product::Gmail", "binary")]
    parts = SimpleNamespace(
        model=np.zeros((4, 3, 2)), group_index=np.arange(4), domain=SimpleNamespace(questions=questions)
    )
    conversation = Conversation(parts, np.zeros(2), "q", None)
    assert conversation.available.tolist() == [True, True, True, True]
    conversation.asked[1] = True  # "What do you want to do in Gmail?"
    assert conversation.available.tolist() == [False, False, True, True]
    conversation.asked[1] = False
    assert conversation.available.tolist() == [True, True, True, True]
