"""The out-of-scope evaluation on the tiny desk: the dev replay stops where real conversations stop."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.out_of_scope import OutOfScopeModel
from assistant.clarification.stopping import ThresholdStop
from assistant.errors import ConfigError
from assistant.evaluation.out_of_scope import (
    OutOfScopeSetup,
    _replay,
    _traces,
    metrics,
    rollout,
    split_episodes,
    tune_out_of_scope,
)
from assistant.simulation.out_of_scope import with_out_of_scope_person
from tests.engine.conftest import KeywordPrior
from tests.engine.test_out_of_scope import tiny_desk


def desk_setup() -> OutOfScopeSetup:
    domain = dataclasses.replace(
        tiny_desk(),
        out_of_scope_texts=["weather tomorrow", "play some jazz", "tell me a joke"],
        out_of_scope_splits=np.array(["dev", "dev", "dev"]),
    )
    return OutOfScopeSetup(
        domain=domain,
        prior=KeywordPrior(domain),
        answer_model=AnswerModel(domain.p_hat(1.0), domain.option_mask),
        policy=ThresholdStop(0.7),
        user_answers=domain.p_hat(0.5),
        max_turns=2,
    )


def test_the_out_of_scope_person_is_one_more_label():
    domain = tiny_desk()
    answers = with_out_of_scope_person(domain.p_hat(0.5), domain.questions, 0.2)
    assert answers.shape == (2, 3, 4)
    np.testing.assert_allclose(answers[:, :, 3], [[0.1, 0.1, 0.8], [0.2, 0.8, 0.0]])


@pytest.mark.parametrize("threshold,doubt", [(0.5, 0.2), (0.9, 0.9), (0.6, 0.0)])
def test_the_dev_replay_matches_real_conversations(threshold, doubt):
    setup = desk_setup()
    episodes = split_episodes(setup.domain, "dev", seed=3)
    assert sum(e.kind == "out_of_scope" for e in episodes) == 3 and len(episodes) == 6
    model = OutOfScopeModel((-3.0, 2.0, 0.0), 0.5, 0.8, threshold, doubt)
    scores = np.asarray(setup.prior.scores([e.query for e in episodes]))
    replayed = _replay(_traces(setup, episodes, scores), model, setup.domain.num_labels)
    clarifier, user = setup.clarifier(setup.policy, model), setup.user()
    real = [rollout(clarifier, user, spec, s) for spec, s in zip(episodes, scores)]
    assert replayed == ([p for p, _ in real], [t for _, t in real])


def test_metrics_and_tuning_on_dev():
    setup = desk_setup()
    episodes = split_episodes(setup.domain, "dev", seed=0)
    found = metrics(episodes, [0, 3, 3, 3, 3, 1], [1, 2, 0, 0, 1, 1])
    assert found["in_scope_accuracy"] == pytest.approx(1 / 3)
    assert found["oos_recall"] == pytest.approx(2 / 3) and found["oos_precision"] == pytest.approx(2 / 4)
    gen = tune_out_of_scope(setup, episodes, question_budget=2.0)
    try:
        while True:
            next(gen)
    except StopIteration as stop:
        model, details = stop.value
    assert details["dev"]["mean_turns"] <= 2.0 and details["dev_out_of_scope"] == 3
    assert model.doubt <= model.threshold and OutOfScopeModel.from_dict(model.to_dict()) == model
    assert details["dev"]["oos_recall"] + details["dev"]["in_scope_accuracy"] >= 1.0
    with pytest.raises(ConfigError):
        split_episodes(setup.domain, "test", seed=0)  # no out-of-scope test queries
