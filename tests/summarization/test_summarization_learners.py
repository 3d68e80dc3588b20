"""The RL summarizer, the RLQA learner and the summary session on tiny, checkable cases."""

from __future__ import annotations

import numpy as np

from assistant.progress import run_job
from assistant.summarization.prepare import prepare_topic
from assistant.summarization.rl import GoldReward, RLSettings, RLSummarizer
from assistant.summarization.rlqa import RLQALearner, RLQASession, RLQASettings, RLQATopic
from assistant.summarization.session import SummarySession, SummarySettings
from assistant.summarization.text import SentenceTable


def test_rl_learns_to_include_the_rewarded_sentence(tiny_topic):
    prepared = run_job(
        prepare_topic(tiny_topic, n_random=20, strong=False, minilm_features=False, priors=("reaper",), max_words=14)
    )

    def reward(summaries):  # 1 for a summary holding sentence 4 ("Power returned on Friday."), else 0
        return np.array([float(4 in s) for s in summaries])

    untrained = RLSummarizer(prepared, reward, RLSettings(episodes=1), seed=0)
    agent = RLSummarizer(prepared, reward, RLSettings(episodes=400), seed=0)
    summary = run_job(agent.train())
    assert 4 in summary
    assert agent.w.any() and not np.allclose(agent.w, untrained.w)


def test_rl_on_gold_beats_the_average_candidate(tiny_topic):
    prepared = run_job(
        prepare_topic(tiny_topic, n_random=30, strong=False, minilm_features=False, priors=("reaper",), max_words=14)
    )
    gold = GoldReward(prepared.table, tiny_topic.references)
    summary = run_job(RLSummarizer(prepared, gold, RLSettings(episodes=300), seed=1).train())
    assert gold([summary])[0] >= gold(prepared.candidates.summaries).mean()


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


def test_rlqa_session_choice_moves_the_weights_and_undo_restores(tiny_topic):
    table = SentenceTable.from_documents(tiny_topic.documents)
    session = RLQASession(RLQATopic.build(table, "power", [], max_words=30))
    options = session.options()
    assert 1 <= len(options) <= 5
    weights = session.learner.weights.copy()
    session.choose(options[-1])
    assert options[-1] in session.draft.chosen
    assert session.undo() and session.draft.chosen == [] and np.allclose(session.learner.weights, weights)


def test_summary_session_round_trips_through_json(tiny_topic):
    settings = SummarySettings(candidates=15, budget=3, max_words=14, threshold=0.999)
    session = run_job(SummarySession.create(tiny_topic, settings))
    for answer in ("left", "right"):
        assert session.next_pair() is not None
        session.answer(answer)
    again = run_job(SummarySession.from_dict(session.to_dict()))
    assert again.comparisons == 2 and again.best_index() == session.best_index()
    assert again.next_pair() == session.next_pair()
    text = run_job(again.write_better(episodes=50))
    assert text and again.rl_score() is not None
