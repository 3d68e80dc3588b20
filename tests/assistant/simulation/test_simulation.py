"""Simulator protocol, check_simulator, REINFORCE policy training and the evaluation harness."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.stopping import LearnedPolicy
from assistant.errors import ConfigError
from assistant.evaluation.clarifier import SYSTEMS, EvaluationSetup, evaluate
from assistant.evaluation.plots import plot_accuracy_vs_turns, plot_frontier
from assistant.priors.base import restrict
from assistant.progress import collect, run_job
from assistant.simulation.episodes import EpisodeSpec, episodes_from_file, sample_episodes
from assistant.simulation.protocol import simulation_protocol
from assistant.simulation.user import SimulatedUser, check_simulator
from assistant.store import replace_counts
from assistant.training.policy import PolicyConfig, train_policy
from tests.support.tiny import KeywordPrior


def test_user_answers_follow_its_distribution(tiny_domain):
    answers = tiny_domain.p_hat(0.0)
    user = SimulatedUser(answers, tiny_domain.option_mask)
    counts = np.zeros(3)
    for seed in range(3000):
        user.start(EpisodeSpec(3, "q", seed))
        counts[user.answer(2)] += 1
    np.testing.assert_allclose(counts / counts.sum(), answers[2, :, 3], atol=0.03)


def test_same_episode_same_answers(tiny_domain):
    user = SimulatedUser(tiny_domain.p_hat(1.0), tiny_domain.option_mask)
    episode = EpisodeSpec(1, "black bird", 42)
    user.start(episode)
    first = [user.answer(q) for q in range(3)]
    user.start(episode)
    assert [user.answer(q) for q in (2, 0, 1)] == [first[2], first[0], first[1]]  # order does not matter


def test_check_simulator_rejects_broken_simulators(tiny_domain):
    episodes = sample_episodes(tiny_domain, 10, 0, "test")
    good = SimulatedUser(tiny_domain.p_hat(1.0), tiny_domain.option_mask)
    check_simulator(good, episodes, tiny_domain.num_labels)
    bad = tiny_domain.p_hat(1.0).copy()
    bad[0, 0, 0] += 0.2
    with pytest.raises(ConfigError, match="sum to"):
        check_simulator(SimulatedUser(bad, tiny_domain.option_mask), episodes, tiny_domain.num_labels)
    leaky = tiny_domain.p_hat(1.0).copy()
    leaky[0, 2, 0] = 0.1
    leaky[0, 0, 0] -= 0.1
    with pytest.raises(ConfigError, match="do not exist"):
        check_simulator(SimulatedUser(leaky, tiny_domain.option_mask), episodes, tiny_domain.num_labels)
    with pytest.raises(ConfigError, match="empty"):
        check_simulator(good, [EpisodeSpec(0, " ", 1)], tiny_domain.num_labels)


def test_birds_protocol_gives_the_agent_resampled_training_counts(tiny_domain):
    images = {lab.key: [10, 6] for lab in tiny_domain.labels}
    domain = replace_counts(tiny_domain, tiny_domain.counts)
    domain.meta["images_per_label"] = json.dumps(images)
    protocol = simulation_protocol(domain, seed=3)
    agent = protocol.agent_domain.counts
    # binary: yes + no = number of training images, yes ~ Binomial(6, pct)
    np.testing.assert_allclose(agent[0, 0] + agent[0, 1], 6)
    # the user answers from the full percentages (counts / images)
    np.testing.assert_allclose(protocol.user_answers[0, 0], tiny_domain.counts[0, 0] / 10, rtol=1e-6)
    np.testing.assert_allclose(protocol.user_answers.sum(axis=1), 1.0, rtol=1e-5)
    again = simulation_protocol(domain, seed=3).agent_domain.counts
    np.testing.assert_array_equal(agent, again)
    assert not np.array_equal(agent, simulation_protocol(domain, seed=4).agent_domain.counts)


def test_episodes_from_file_matches_labels_leniently(tiny_domain, tmp_path):
    path = tmp_path / "queries.tsv"
    path.write_text("label\tquery\n002.CARDINAL\tred crest\ncrow\tall black\n")
    episodes = episodes_from_file(tiny_domain, path, 3, seed=0)
    assert [(e.target, e.query) for e in episodes] == [(2, "red crest"), (1, "all black"), (2, "red crest")]
    path.write_text("label\tquery\nostrich\ttall\n")
    with pytest.raises(ConfigError, match=r"queries\.tsv:2"):
        episodes_from_file(tiny_domain, path, None, 0)


def _training_inputs(domain, n=200):
    episodes = sample_episodes(domain, n, 0, "train")
    prior = restrict(KeywordPrior(domain).scores([e.query for e in episodes]), None)
    targets = np.array([e.target for e in episodes])
    model = AnswerModel(domain.p_hat(1.0), domain.option_mask)
    return model, episodes, prior, targets


@pytest.mark.parametrize("estimator", ["expected", "reinforce"])
def test_policy_training_is_deterministic_and_learns(tiny_domain, estimator):
    model, episodes, prior, targets = _training_inputs(tiny_domain)
    config = PolicyConfig(
        iterations=120, batch_size=32, learning_rate=0.02, turn_reward=-0.5, max_turns=3, estimator=estimator
    )
    records, result = collect(train_policy(model, tiny_domain.p_hat(1.0), episodes, prior, targets, config, seed=1))
    assert len(records) == 120 and records[-1].step == 120
    again = run_job(train_policy(model, tiny_domain.p_hat(1.0), episodes, prior, targets, config, seed=1))
    assert [h["reward"] for h in again.history] == [h["reward"] for h in result.history]
    early = np.mean([h["reward"] for h in result.history[:20]])
    late = np.mean([h["reward"] for h in result.history[-20:]])
    assert late > early


def test_turn_budget_caps_the_greedy_policy(tiny_domain):
    model, episodes, prior, targets = _training_inputs(tiny_domain)
    prior = np.full_like(prior, -np.log(4))  # queries say nothing: only questions help
    free = PolicyConfig(iterations=150, batch_size=32, turn_reward=0.0, max_turns=3, turn_budget=None)
    capped = PolicyConfig(
        iterations=150, batch_size=32, turn_reward=0.0, max_turns=3, turn_budget=1.0, budget_every=5, budget_step=0.5
    )
    loose = run_job(train_policy(model, tiny_domain.p_hat(1.0), episodes, prior, targets, free, seed=2))
    tight = run_job(train_policy(model, tiny_domain.p_hat(1.0), episodes, prior, targets, capped, seed=2))
    assert loose.turn_reward == 0.0 and tight.turn_reward < 0.0  # questions got dearer under the cap
    assert np.mean([h["greedy_turns"] for h in tight.history[-20:]]) <= 1.3
    assert np.mean([h["greedy_turns"] for h in loose.history[-20:]]) > 2.0


def test_stop_distribution_sums_to_one():
    from assistant.training.rollouts import stop_distribution as _stop_distribution

    stop = torch.tensor([[0.2, 1.0], [0.5, 0.3]])
    dist = _stop_distribution(stop)
    np.testing.assert_allclose(dist.sum(dim=0).numpy(), 1.0, rtol=1e-6)
    np.testing.assert_allclose(dist[:, 0].numpy(), [0.2, 0.8 * 0.5, 0.8 * 0.5], rtol=1e-6)


def test_policy_training_fine_tunes_lambda(tiny_domain):
    model, episodes, prior, targets = _training_inputs(tiny_domain)
    scores = np.random.default_rng(0).normal(size=tiny_domain.counts.shape).astype(np.float32)
    model = AnswerModel(model.p_hat, model.option_mask, scores)
    config = PolicyConfig(iterations=30, batch_size=16, max_turns=3, initial_lambda=0.8)
    result = run_job(train_policy(model, tiny_domain.p_hat(1.0), episodes, prior, targets, config, seed=0))
    assert result.lam != pytest.approx(0.8, abs=1e-6)
    frozen = PolicyConfig(iterations=5, batch_size=16, max_turns=3, initial_lambda=0.8, learn_answer_model=False)
    assert run_job(train_policy(model, tiny_domain.p_hat(1.0), episodes, prior, targets, frozen)).lam == pytest.approx(
        0.8
    )


def test_evaluation_runs_every_system_and_is_reproducible(tiny_domain, tmp_path):
    model, episodes, prior, targets = _training_inputs(tiny_domain)
    config = PolicyConfig(iterations=20, batch_size=16, max_turns=3)
    policy = LearnedPolicy(run_job(train_policy(model, tiny_domain.p_hat(1.0), episodes, prior, targets, config)).net)
    setup = EvaluationSetup(
        domain=tiny_domain,
        candidates=np.arange(4),
        prior=KeywordPrior(tiny_domain),
        answer_model=model,
        policy=policy,
        user=SimulatedUser(tiny_domain.p_hat(0.5), tiny_domain.option_mask),
        bm25_prior=KeywordPrior(tiny_domain),
    )
    test = sample_episodes(tiny_domain, 60, 5, "test")
    dev = sample_episodes(tiny_domain, 30, 6, "train")
    report = run_job(evaluate(setup, test, dev, max_turns=3))
    systems = [row["system"] for row in report.rows]
    assert set(systems) == {*SYSTEMS, "threshold_matched"}  # matched on test: the best threshold at ours' effort
    assert systems.count("fixed_turns") == 3
    for row in report.rows:
        assert 0.0 <= row["acc1"] <= row["acc3"] <= 1.0
        assert row["episodes"] == 60
    assert report.row("fixed_turns", 2)["mean_turns"] == 2.0
    assert report.row("no_interaction_neural")["mean_turns"] == 0.0
    # fixed turns are prefixes of the same rollout: the curve agrees with the rows
    assert report.curves["ig"]["acc1"][2] == pytest.approx(report.row("fixed_turns", 2)["acc1"])
    # the threshold's frontier is read off the fixed-turn rollouts: 0 questions at the lowest thresholds, the
    # matched threshold never asks more than ours and is the most accurate of those that do not
    sweep = report.meta["threshold_sweep"]
    ours = report.row("ours")
    matched = report.row("threshold_matched")
    assert matched["mean_turns"] <= ours["mean_turns"] and "vs_ours" in matched
    allowed = [a for a, t in zip(sweep["acc1"], sweep["mean_turns"]) if t <= ours["mean_turns"]]
    assert matched["acc1"] == pytest.approx(max(allowed))
    assert sweep["mean_turns"][-1] >= sweep["mean_turns"][0]
    again = run_job(evaluate(setup, test, dev, max_turns=3))
    assert again.rows == report.rows
    path = plot_accuracy_vs_turns(report, tmp_path / "plot.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    frontier = plot_frontier(report, tmp_path / "frontier.png", "tiny")
    assert frontier.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads(report.to_json())["rows"][0]["system"] == "ours"
