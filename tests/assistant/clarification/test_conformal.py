"""Split-conformal shortlists hold the right entry at the promised rate on exchangeable queries."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.clarification.conformal import ConformalShortlist, coverage_and_size
from assistant.errors import ConfigError


def beliefs(n: int, y: int = 30, seed: int = 0):
    rng = np.random.default_rng(seed)
    logits = rng.normal(0.0, 2.0, size=(n, y))
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    labels = np.array([rng.choice(y, p=p) for p in probs])
    return probs, labels


@pytest.mark.parametrize("promise", [0.8, 0.9, 0.95])
def test_coverage_on_test_is_within_two_points_of_the_promise(promise):
    dev_probs, dev_labels = beliefs(3000, seed=1)
    test_probs, test_labels = beliefs(4000, seed=2)
    shortlist = ConformalShortlist.fit(dev_probs, dev_labels, promise)
    measured = coverage_and_size(shortlist, test_probs, test_labels)
    assert abs(measured["coverage"] - promise) <= 0.02
    assert 1 <= measured["mean_size"] < 30


def test_sets_are_best_first_never_empty_and_grow_with_doubt():
    shortlist = ConformalShortlist(0.9, threshold=0.2)
    sure, unsure = np.array([0.97, 0.02, 0.01]), np.array([0.4, 0.35, 0.25])
    assert shortlist.sets(sure)[0].tolist() == [0]
    assert shortlist.sets(unsure)[0].tolist() == [0, 1, 2]
    assert shortlist.size(np.array([0.1, 0.1, 0.8])) == 1
    assert ConformalShortlist(0.9, threshold=0.99).size(unsure) == 1  # never empty
    assert ConformalShortlist.from_dict(shortlist.to_dict()).threshold == 0.2


def test_bad_promises_and_empty_dev_are_refused():
    with pytest.raises(ConfigError):
        ConformalShortlist.fit(np.ones((2, 2)) / 2, np.array([0, 1]), 1.0)
    with pytest.raises(ConfigError):
        ConformalShortlist.fit(np.zeros((0, 2)), np.zeros(0, dtype=int), 0.9)


def test_a_conversation_says_its_promised_shortlist_in_words():
    from types import SimpleNamespace

    from assistant.clarification.conformal import promised_shortlist

    prior = SimpleNamespace(shortlist=ConformalShortlist(0.9, threshold=0.2))
    probs = np.array([0.3, 0.45, 0.05, 0.2])
    first_query = dict(clarifier=SimpleNamespace(prior=prior), probs=probs, turn=0, dismissed=np.zeros(4, bool))
    conversation = SimpleNamespace(**first_query)
    assert promised_shortlist(conversation) == ([1, 0, 3], "very likely (90%) among the first 3")
    # fitted on first queries' beliefs: no promise after an answer or a dismissal
    assert promised_shortlist(SimpleNamespace(**{**first_query, "turn": 1})) is None
    assert promised_shortlist(SimpleNamespace(**{**first_query, "dismissed": np.array([0, 1, 0, 0], bool)})) is None
    assert promised_shortlist(SimpleNamespace(clarifier=SimpleNamespace(prior=object()), probs=None)) is None
