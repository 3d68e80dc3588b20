"""The RL summarizer, the RLQA learner and the summary session on tiny, checkable cases."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.errors import ConfigError
from assistant.progress import run_job
from assistant.ranking.base import Comparisons
from assistant.ranking.gppl import GPPL
from assistant.summarization.prepare import prepare_topic
from assistant.summarization.rewards import GoldReward, LearnedReward, RewardScale
from assistant.summarization.rl import LinearValue, RLSettings, RLSummarizer, SummaryEnv, check_env
from assistant.summarization.rlqa import RLQALearner, RLQASession, RLQASettings, RLQATopic
from assistant.summarization.session import SummarySession, SummarySettings
from assistant.summarization.text import SentenceTable


def _prepared(topic, n=30, max_words=14):
    return run_job(
        prepare_topic(topic, n_random=n, strong=False, minilm_features=False, priors=("reaper",), max_words=max_words)
    )


def test_env_keeps_the_limit_and_successor_values_equal_the_features_of_each_successor(tiny_topic):
    prepared = _prepared(tiny_topic)
    env = SummaryEnv(prepared)
    check_env(env)
    value = LinearValue(env)
    value.w = np.random.default_rng(0).normal(size=value.w.shape)
    env.step(0)
    actions = env.actions()
    assert 0 not in actions and all(env.words + prepared.table.words[j] <= 14 for j in actions)
    by_features = [value.prefix_features([*env.order, int(j)])[-1] @ value.w for j in actions]
    assert value.successor_values(actions) == pytest.approx(by_features)
    with pytest.raises(ConfigError):
        env.step(0)


def test_rl_learns_to_write_the_rewarded_sentence(tiny_topic):
    prepared = _prepared(tiny_topic, n=20)

    def reward(summaries):  # 1 for a summary holding sentence 4 ("Power returned on Friday."), else 0
        return np.array([float(4 in s) for s in summaries])

    agent = RLSummarizer(prepared, reward, RLSettings(replay_episodes=200, policy_episodes=100), seed=0)
    summary = run_job(agent.train())
    assert 4 in summary
    actions = agent.env.actions()  # from the empty draft: adding sentence 4 is worth the most
    assert actions[np.argmax(agent.value.successor_values(actions))] == 4


def test_rl_writes_at_least_as_long_as_the_shortest_candidate_even_when_shorter_wins(tiny_topic):
    prepared = _prepared(tiny_topic)

    def reward(summaries):  # the fewer sentences the better: stopping after one sentence would win
        return np.array([-float(len(s)) for s in summaries])

    agent = RLSummarizer(prepared, reward, RLSettings(replay_episodes=100), seed=0)
    summary = run_job(agent.train())
    words = int(prepared.table.words[list(summary)].sum())
    shortest = min(int(prepared.table.words[list(s)].sum()) for s in prepared.candidates.summaries)
    assert 0 < agent.min_stop_words == shortest <= words


def test_rl_on_gold_matches_the_best_candidate(tiny_topic):
    prepared = _prepared(tiny_topic)
    gold = GoldReward(prepared.table, tiny_topic.references)
    summary = run_job(RLSummarizer(prepared, gold, RLSettings(replay_episodes=300, policy_episodes=100)).train())
    assert gold([summary])[0] >= gold(prepared.candidates.summaries).max() - 1e-9


def test_learned_reward_is_the_posterior_mean_on_the_candidates(tiny_topic):
    prepared = _prepared(tiny_topic)
    x, p = prepared.features["bigram"], prepared.priors["reaper"]
    model = GPPL(output_scale=4.0)
    posterior = model.fit(x, p, Comparisons.from_winners([(3, 0), (5, 1)])).posterior()
    reward = LearnedReward(prepared, model)
    # equal up to the kernel's jitter on the compared items
    assert reward(prepared.candidates.summaries) == pytest.approx(posterior.mean, abs=1e-5)
    assert RewardScale.of(np.array([2.0, 4.0]))(np.array([3.0, 5.0])).tolist() == [5.0, 15.0]


def test_rlqa_learns_weights_and_the_simulated_user_picks_the_best_gain(tiny_topic):
    table = SentenceTable.from_documents(tiny_topic.documents)
    topic = RLQATopic.build(table, "storm damage", tiny_topic.references, max_words=16)
    learner = RLQALearner(RLQASettings(epochs=5), seed=0)
    before = learner.weights.copy()
    weights = run_job(learner.train([topic], simulated_user=True))
    assert not np.allclose(before, weights)
    summary = learner.summarize(topic)
    assert int(table.words[list(summary)].sum()) <= 16
    assert topic.relevance([summary])[0] > 0


def test_rlqa_session_records_replays_and_undoes(tiny_topic):
    table = SentenceTable.from_documents(tiny_topic.documents)
    log = []
    session = RLQASession(RLQATopic.build(table, "power", [], max_words=30))
    session.recorder = lambda kind, payload: log.append((kind, payload))
    options = session.options()
    assert 1 <= len(options) <= 5
    weights = session.learner.weights.copy()
    session.choose(options[-1])
    session.choose(None)
    assert options[-1] in session.draft.chosen and [k for k, _ in log] == ["choose", "choose"]
    again = RLQASession(RLQATopic.build(table, "power", [], max_words=30))
    again.replay(log)
    assert again.draft.chosen == session.draft.chosen and np.allclose(again.learner.weights, session.learner.weights)
    assert session.undo() and session.undo() and session.draft.chosen == []
    assert np.allclose(session.learner.weights, weights) and log[-1] == ("undo", {})


def test_summary_session_replays_its_log(tiny_topic):
    settings = SummarySettings(candidates=15, budget=4, max_words=14, threshold=0.999)
    session = run_job(SummarySession.create(tiny_topic, settings))
    log = []
    session.recorder = lambda kind, payload: log.append((kind, payload))
    for answer in ("left", "right", "tie"):
        session.answer(answer)
    assert session.undo()
    text = run_job(session.write_better(RLSettings(replay_episodes=40, policy_episodes=10)))
    assert text and session.rl_score() is not None
    assert [k for k, _ in log] == ["compare", "compare", "compare", "undo", "better"]
    again = run_job(SummarySession.from_config(session.config()))
    again.replay(log)
    assert again.comparisons == 2 and again.best_index() == session.best_index()
    assert again.next_pair() == session.next_pair() and again.rl_summary == session.rl_summary
    assert session.accept("rl") == session.rl_text and session.next_pair() is None and log[-1][0] == "accept"


def test_rlqa_cross_validation_scores_every_setting_on_held_out_folds(tiny_topic, fast_encoder, monkeypatch):
    import dataclasses

    import assistant.evaluation.summaries.rl as rl_eval

    topics = [dataclasses.replace(tiny_topic, id=f"tiny{i}") for i in range(4)]
    monkeypatch.setattr(rl_eval, "load_duc", lambda dataset, data_dir=None: topics)
    grid = {"learning_rate": (0.002, 0.05), "trace_decay": (0.0,), "epochs": (2,)}
    result = run_job(rl_eval.cross_validate_rlqa("duc2001", folds=2, grid=grid, encoder=fast_encoder))
    systems = [r.get("system") for r in result["rows"][:2]]
    assert systems == ["lead", "untrained"] and len(result["rows"]) == 4
    tuned = result["rows"][2:]
    assert {r["learning_rate"] for r in tuned} == {0.002, 0.05}
    assert all(0.0 <= r[k] <= 1.0 for r in result["rows"] for k in ("rouge2",))
    sums = [r["rouge2"] + r["rouge2_user"] for r in tuned]
    assert sums == sorted(sums, reverse=True)  # best first
    with pytest.raises(ConfigError, match="folds"):
        run_job(rl_eval.cross_validate_rlqa("duc2001", folds=5, grid=grid, encoder=fast_encoder))
