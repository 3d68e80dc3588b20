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
    vague_split_episodes,
)
from assistant.simulation.episodes import episodes_from_file
from assistant.simulation.out_of_scope_person import with_out_of_scope_person
from assistant.simulation.queries import VagueQueryMix
from tests.support.desk import tiny_desk
from tests.support.tiny import KeywordPrior


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
    found = metrics(episodes, [0, 3, 3, 3, 3, 1], [1, 2, 0, 0, 1, 1], setup.domain.num_labels)
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


def test_a_queries_file_marks_out_of_scope_rows_and_metrics_leave_out_what_it_lacks(tmp_path):
    setup = desk_setup()
    path = tmp_path / "desk.tsv"
    path.write_text("label\tquery\npin\tmy pin\nout_of_scope\tcan't log in\n", encoding="utf-8")
    episodes = episodes_from_file(setup.domain, path, 4, seed=0, out_of_scope=True)
    assert [(e.target, e.kind) for e in episodes] == [(0, "in_scope"), (3, "out_of_scope")] * 2
    with pytest.raises(ConfigError, match=r"desk\.tsv:3"):
        episodes_from_file(setup.domain, path, None, seed=0)  # without out_of_scope the label is unknown
    only_oos = metrics(episodes[1::2], [3, 0], [1, 2], setup.domain.num_labels)
    assert only_oos["in_scope_accuracy"] is None and only_oos["oos_recall"] == 0.5
    assert only_oos["oos_precision"] == 1.0


def test_tuning_episodes_are_vague_in_scope_and_out_of_scope_alike():
    setup = desk_setup()
    crowd = split_episodes(setup.domain, "dev", seed=3)
    mix = VagueQueryMix({"crowd": 0.5, "window": 0.5, "tags": 1.0})
    vague = vague_split_episodes(setup.domain, "dev", seed=3, mix=mix)
    assert [(e.target, e.seed, e.kind) for e in vague] == [(e.target, e.seed, e.kind) for e in crowd]
    for made, source in zip(vague, crowd):
        if made.kind == "out_of_scope":  # crowd or a window of it: no label's tags describe it
            assert made.query == source.query or made.query in source.query
    assert vague == vague_split_episodes(setup.domain, "dev", seed=3, mix=mix)
    with pytest.raises(ConfigError, match="no kind that an out-of-scope query can take"):
        vague_split_episodes(setup.domain, "dev", seed=3, mix=VagueQueryMix({"tags": 1.0}))
