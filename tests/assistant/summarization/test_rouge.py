"""ROUGE wiring: the vectorised scorer equals rouge-score / rouge-metric, and ROUGE-SU4 a hand count."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.summarization.documents import load_multiling
from assistant.summarization.rouge import CandidateRouge, RougeScorer, gold_utility, normalise
from assistant.summarization.text import SentenceTable


def test_rouge_su4_matches_a_hand_computed_value():
    # hyp tokens: a b c; ref tokens: a c d.
    # skip-bigrams (gap <= 4) of hyp: ab ac bc; of ref: ac ad cd; unigrams of all but the last token:
    # hyp a b, ref a c.  Matches: ac + a = 2; hyp total 5, ref total 5 -> P = R = F = 0.4.
    scores = RougeScorer().score_one(["a b c"], ["a c d"])
    assert scores["rougesu4"]["r"] == pytest.approx(0.4)
    assert scores["rougesu4"]["p"] == pytest.approx(0.4)
    vec = CandidateRouge([["a", "b", "c"]]).scores([(0,)], ["a c d"])
    assert vec["rougesu4"]["r"][0] == pytest.approx(0.4)


def test_vectorised_rouge_equals_the_libraries_on_real_candidates():
    topic = load_multiling("M001")
    table = SentenceTable.from_documents(topic.documents)
    rng = np.random.default_rng(3)
    summaries = [tuple(sorted(rng.choice(len(table), size=int(rng.integers(1, 5)), replace=False))) for _ in range(12)]
    vec = CandidateRouge(table.tokens).scores(summaries, topic.references[0])
    scorer = RougeScorer()
    for i, summary in enumerate(summaries):
        lib = scorer.score_one([table.texts[j] for j in summary], topic.references[0])
        for kind in ("rouge1", "rouge2", "rougesu4"):
            assert vec[kind]["r"][i] == pytest.approx(lib[kind]["r"], abs=1e-12)
            assert vec[kind]["f"][i] == pytest.approx(lib[kind]["f"], abs=1e-12)


def test_gold_is_bo_eq8_normalised_to_zero_ten():
    raw = gold_utility(np.array([0.47, 0.0]), np.array([0.22, 0.0]), np.array([0.18, 0.0]))
    assert raw.tolist() == pytest.approx([3.0, 0.0])
    assert normalise(np.array([1.0, 2.0, 3.0])).tolist() == [0.0, 5.0, 10.0]
