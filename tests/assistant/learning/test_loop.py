"""The models, the round loop and the protocol on tiny problems: learning happens, same seed same result."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.errors import ConfigError
from assistant.evaluation.learning.protocol import curve_means, fraction_needed
from assistant.learning.acquisition import make_acquisition
from assistant.learning.loop import LoopConfig, active_learning_run
from assistant.learning.models import DeepSelector, EncoderSelector, TrainConfig, target_pairs
from assistant.learning.pace import SelfPacedPace
from assistant.learning.problems import mrr, split_questions
from assistant.progress import collect, run_job
from tests.support.problems import make_problems

FAST = TrainConfig(epochs=6, patience=3, min_questions_per_epoch=32, hidden=32)


def test_target_pairs_order_every_pair_with_different_grades():
    assert sorted(map(tuple, target_pairs(np.array([2, 0, 1])))) == [(0, 1), (0, 2), (2, 1)]
    assert target_pairs(np.array([1, 1])).shape == (0, 2)


def test_mrr_counts_the_first_correct_answer_and_ties_against_the_model(problems):
    p = problems[0]
    best = int(np.argmax(p.grades))
    scores = np.zeros(len(p.texts))
    scores[best] = 1.0
    assert mrr([scores], [p]) == 1.0
    assert mrr([np.zeros(len(p.texts))], [p]) == pytest.approx(1 / len(p.texts))


def test_deep_selector_learns_and_is_reproducible(problems):
    train, test = problems[:40], problems[40:]
    flat = DeepSelector(FAST, seed=0, prior_weight=0.0)
    run_job(flat.fit([], []))  # untrained: random weights, no skip term
    before = mrr(flat.scores(test), test)
    model = DeepSelector(FAST, seed=0, prior_weight=0.0)
    run_job(model.fit(train, [p.grades for p in train], dev=problems[30:40]))
    after = mrr(model.scores(test), test)
    assert after > before + 0.1
    again = DeepSelector(FAST, seed=0, prior_weight=0.0)
    run_job(again.fit(train, [p.grades for p in train], dev=problems[30:40]))
    np.testing.assert_array_equal(np.concatenate(model.scores(test)), np.concatenate(again.scores(test)))
    draws = model.mc_samples(test[:3], samples=7, seed=1)
    assert [d.shape for d in draws] == [(7, len(p.texts)) for p in test[:3]]
    assert np.std(draws[0], axis=0).max() > 0  # dropout on: the samples differ
    np.testing.assert_array_equal(draws[0], model.mc_samples(test[:3], samples=7, seed=1)[0])


def test_encoder_selector_trains_a_cnn_over_word_vectors():
    class Vectors:  # a 50-word vocabulary with random vectors: the CNN path without loading MiniLM
        table = __import__("torch").randn(60, 16, generator=__import__("torch").Generator().manual_seed(0))

        def token_ids(self, texts, max_len):
            return [[1 + (sum(map(ord, w)) % 59) for w in t.split()][:max_len] or [0] for t in texts]

    probs = make_problems(12, seed=2, candidates=4)
    model = EncoderSelector(FAST, seed=0, vectors=Vectors())
    _, info = collect(model.fit(probs, [p.grades for p in probs], dev=probs[:4]))
    assert info["epochs"] >= 1
    assert [s.shape for s in model.scores(probs[:2])] == [(4,), (4,)]
    assert model.embed(probs[:3]).shape == (3, 100)
    assert model.mc_samples(probs[:2], samples=3)[0].shape == (3, 4)


def test_loop_rows_fractions_and_same_seed_same_result():
    probs = make_problems(50, seed=1)
    split = split_questions(len(probs), 0)
    pool, dev, test = ([probs[i] for i in split[k]] for k in ("train", "dev", "test"))
    config = LoopConfig(initial=4, per_round=4, rounds=2, samples=5)

    def make(seed):
        return DeepSelector(FAST, seed)

    dasl = make_acquisition("dasl", SelfPacedPace(start=0.5, growth=1.0, limit=0.5))
    records, rows = collect(active_learning_run(make, pool, dev, test, dasl, config, seed=0))
    assert [r["labelled"] for r in rows] == [4, 8, 12]
    assert rows[-1]["labelled_fraction"] == pytest.approx(12 / len(pool))
    assert rows[1]["pseudo_labelled"] > 0  # the pace admitted confident questions
    assert records and records[-1].step == records[-1].total == 3
    _, again = collect(active_learning_run(make, pool, dev, test, dasl, config, seed=0))
    assert [r["mrr"] for r in rows] == [r["mrr"] for r in again]
    with pytest.raises(ConfigError):
        run_job(active_learning_run(make, pool[:3], dev, test, dasl, config, seed=0))


def test_fraction_needed_is_the_first_fraction_reaching_the_full_data_mrr():
    def row(method, fraction, value, seed):
        return {
            "dataset": "d",
            "model": "deep",
            "method": method,
            "labelled_fraction": fraction,
            "mrr": value,
            "seed": seed,
        }

    rows = [row("full", 1.0, 0.6, 0), row("full", 1.0, 0.7, 1)]  # mean 0.65
    rows += [
        row("dasl", f, v, s)
        for s, vs in enumerate([[0.5, 0.66, 0.7], [0.5, 0.62, 0.7]])
        for f, v in zip([0.1, 0.2, 0.3], vs)
    ]
    rows += [row("random", f, 0.5, s) for s in (0, 1) for f in (0.1, 0.2, 0.3)]
    needed = {n["method"]: n["fraction"] for n in fraction_needed(rows)}
    assert needed == {"dasl": 0.3, "random": None, "full": 1.0}  # 0.2 averages 0.64 < 0.65
    assert {n["method"]: n["fraction"] for n in fraction_needed(rows, tolerance=0.02)}["dasl"] == 0.2


def test_curve_means_average_the_early_part_of_each_curve():
    rows = [
        {"dataset": "d", "model": "deep", "method": "dasl", "labelled_fraction": f, "mrr": v, "seed": s}
        for s in (0, 1)
        for f, v in ((0.1, 0.5 + 0.1 * s), (0.3, 0.7), (0.6, 0.0))
    ]
    [entry] = curve_means(rows, up_to=0.5)
    assert entry["method"] == "dasl" and entry["mean_mrr"] == pytest.approx((0.55 + 0.7) / 2)
