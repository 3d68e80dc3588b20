"""Candidate sampling, bigram+ features and the priors on hand-checkable cases."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.summarization.candidates import CandidateSet, build_candidates, greedy_mmr, sample_random
from assistant.summarization.features import BigramSpace, bigram_plus, pooled_embeddings
from assistant.summarization.priors import ReaperStats, minilm_prior, reaper_prior
from assistant.summarization.text import SentenceTable


def test_random_summaries_respect_the_limit_are_full_distinct_and_seeded(tiny_topic):
    table = SentenceTable.from_documents(tiny_topic.documents)
    summaries = sample_random(table, 30, np.random.default_rng(0), max_words=12)
    assert len(set(summaries)) == len(summaries) > 3
    for s in summaries:
        words = int(table.words[list(s)].sum())
        assert words <= 12
        rest = [j for j in range(len(table)) if j not in s]
        assert all(words + table.words[j] > 12 for j in rest)  # nothing else fits: BO draws until full
    assert summaries == sample_random(table, 30, np.random.default_rng(0), max_words=12)


def test_mmr_avoids_a_redundant_sentence():
    relevance = np.array([1.0, 0.95, 0.5])
    similarity = np.array([[1.0, 0.99, 0.0], [0.99, 1.0, 0.0], [0.0, 0.0, 1.0]])
    words = np.array([5, 5, 5])
    assert greedy_mmr(relevance, similarity, words, max_words=10, lam=0.5) == (0, 2)


def test_bigram_plus_counts_presence_coverage_redundancy_length_and_position(tiny_topic):
    table = SentenceTable.from_documents(tiny_topic.documents)
    space = BigramSpace.from_table(table, top=60)
    b = len(space.bigrams)  # fewer than 60 in this tiny topic: every bigram, each once
    assert ("storm", "hit") in space.bigrams and ("the", "storm") in space.bigrams  # stopwords kept, as BO's
    assert ("on", "the") not in space.bigrams  # but not a bigram of two stopwords
    cands = CandidateSet([(0, 3), (1,)], ["random", "random"], len(table))
    x = bigram_plus(table, cands, space, max_words=100)[:, list(range(b)) + list(range(60, 65))]
    storm = space.bigrams.index(("storm", "hit"))
    assert x[0, storm] == 1.0 and x[1, storm] == 0.0
    assert x[0, b] == pytest.approx(x[0, :b].sum() / 60)  # coverage of the top bigrams
    assert x[0, b + 1] == pytest.approx(1 / 60)  # "the storm" is in both sentences: one bigram twice
    assert x[0, b + 2] == pytest.approx((table.words[0] + table.words[3]) / 100)  # length ratio
    assert x[0, b + 3] == pytest.approx(1 / 1 + 1 / 1)  # both sentences open their document
    assert x[1, b + 3] == pytest.approx(1 / 2)


def _two_text_cosine(a: list[str], b: list[str]) -> float:
    """sklearn's TfidfVectorizer (smooth idf, l2) fitted on the two texts, then their cosine, by hand."""
    vocab = sorted(set(a) | set(b))
    idf = {w: np.log(3 / (1 + (w in a) + (w in b))) + 1 for w in vocab}
    va = np.array([a.count(w) * idf[w] for w in vocab])
    vb = np.array([b.count(w) * idf[w] for w in vocab])
    return float(va @ vb / np.linalg.norm(va) / np.linalg.norm(vb))


def test_reaper_prior_is_bo_relatedness_minus_redundancy(tiny_topic):
    table = SentenceTable.from_documents(tiny_topic.documents)
    stats = ReaperStats.from_table(table)
    words = [[w for w in c if len(w) > 1] for c in table.content]
    everything = [w for ws in words for w in ws]
    assert stats.doc_cosine[0] == pytest.approx(_two_text_cosine(words[0], everything))
    assert stats.similarity[0, 3] == pytest.approx(_two_text_cosine(words[0], words[3])) and stats.similarity[0, 3] > 0
    assert stats.similarity[1, 1] == 0.0
    cands = CandidateSet([(0,), (0, 3)], ["random"] * 2, len(table))
    prior = reaper_prior(table, stats, cands)
    rel = stats.doc_cosine + 1.0 / table.position
    assert prior[0] == pytest.approx(0.9 * rel[0])
    assert prior[1] == pytest.approx(0.9 * (rel[0] + rel[3]) - 0.1 * stats.similarity[0, 3])


def test_minilm_prior_prefers_the_pseudo_reference(tiny_topic):
    table = SentenceTable.from_documents(tiny_topic.documents)
    e = np.eye(len(table))  # orthogonal sentence vectors: only a sentence itself is similar to it
    cands = CandidateSet([(0, 3), (2, 5)], ["random"] * 2, len(table))
    prior = minilm_prior(table, cands, e, lead=1)  # pseudo-reference = sentences 0 and 3
    assert prior[0] == pytest.approx(1.0) and prior[1] == pytest.approx(0.0)
    pooled = pooled_embeddings(cands, e)
    assert np.allclose(np.linalg.norm(pooled, axis=1), 1.0)


def test_strong_candidates_come_first(tiny_topic):
    table = SentenceTable.from_documents(tiny_topic.documents)
    cands = build_candidates(table, 5, np.random.default_rng(1), [((0, 1), "lead")], max_words=20)
    assert cands.kinds[0] == "lead" and cands.summaries[0] == (0, 1)
    assert cands.incidence.shape == (len(cands), len(table))
