"""The MC-dropout deep ranker: loss, pre-training, fine-tuning, posterior samples and determinism."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from assistant.errors import ConfigError
from assistant.progress import collect
from assistant.ranking.base import Comparisons, PointPosterior, SamplePosterior
from assistant.ranking.deep import DeepRanker, MCDropoutRanker, RankingExample, pretrain_deep_ranker
from models.deep_ranker import SiameseRanker, load_ranker, margin_ranking_loss, pair_features, save_ranker
from models.errors import CheckpointError


def test_margin_ranking_loss_by_hand():
    scores = torch.tensor([1.0, 0.95, 0.0])
    pairs = torch.tensor([[0, 1], [0, 2], [1, 2], [0, 1]])
    outcomes = torch.tensor([1.0, 0.0, 0.5, 0.5])
    # win by 0.05 < m: 0.05; 2 wins over 0 by -1: 1.1; tie with gap 0.95: 0.85; tie with gap 0.05: 0
    assert float(margin_ranking_loss(scores, pairs, outcomes, 0.1)) == pytest.approx((0.05 + 1.1 + 0.85 + 0.0) / 4)


def test_the_skip_term_starts_the_ranker_at_the_cosine_prior():
    head = SiameseRanker(7, hidden=8, prior_weight=5.0)
    with torch.no_grad():
        for p in (head.out.weight, head.out.bias):
            p.zero_()
    x = torch.from_numpy(pair_features(np.array([1.0, 0.0]), np.array([[1.0, 0.0], [0.6, 0.8]])))
    np.testing.assert_allclose(head(x).detach().numpy(), [5.0, 3.0], rtol=1e-6)


def test_pair_features_shape_and_cosine():
    q = np.array([1.0, 0.0])
    c = np.array([[1.0, 0.0], [0.0, 1.0]])
    x = pair_features(q, c)
    assert x.shape == (2, 7) and x[0, -1] == pytest.approx(1.0) and x[1, -1] == pytest.approx(0.0)


def _examples(seed=0, n_questions=6, n=15, d=8):
    w = np.random.default_rng(0).normal(size=3 * d + 1)  # one true ranking function for every seed
    rng = np.random.default_rng(seed + 1)
    out = []
    for _ in range(n_questions):
        x = rng.normal(size=(n, 3 * d + 1)).astype(np.float32)
        out.append(RankingExample(x, x @ w / 10))
    return out, w


def test_pretraining_learns_the_ranking_and_is_deterministic():
    examples, _ = _examples()
    records, model = collect(
        pretrain_deep_ranker(examples, seed=3, epochs=15, hidden=32, pairs_per_question=40, prior_weight=0)
    )
    assert len(records) == 15 and records[-1].metrics["loss"] < records[0].metrics["loss"]
    _, again = collect(
        pretrain_deep_ranker(examples, seed=3, epochs=15, hidden=32, pairs_per_question=40, prior_weight=0)
    )
    for a, b in zip(model.state_dict().values(), again.state_dict().values()):
        assert torch.equal(a, b)
    test = _examples(seed=9, n_questions=1)[0][0]
    with torch.no_grad():
        scores = model(torch.from_numpy(test.features)).numpy()
    assert np.corrcoef(scores, test.utilities)[0, 1] > 0.5


def test_mc_dropout_posterior_and_fine_tuning():
    examples, _ = _examples()
    _, head = collect(pretrain_deep_ranker(examples, seed=0, epochs=3, hidden=32))
    before = {k: v.clone() for k, v in head.state_dict().items()}
    x = examples[0].features
    mcd = MCDropoutRanker(head, samples=20, seed=1, steps=40, lr=5e-3)
    post = mcd.fit(x, None, Comparisons.empty()).posterior()
    assert isinstance(post, SamplePosterior) and post.samples.shape == (20, 15) and np.all(post.variance > 0)
    again = MCDropoutRanker(head, samples=20, seed=1).fit(x, None, Comparisons.empty()).posterior()
    np.testing.assert_array_equal(post.samples, again.samples)
    other_seed = MCDropoutRanker(head, samples=20, seed=2).fit(x, None, Comparisons.empty()).posterior()
    assert not np.array_equal(post.samples, other_seed.samples)
    worst = int(np.argmin(post.mean))
    best = int(np.argmax(post.mean))
    comps = Comparisons.from_winners([(worst, best)] * 3)
    tuned = mcd.fit(x, None, comps).posterior()
    assert tuned.mean[worst] - tuned.mean[best] > post.mean[worst] - post.mean[best]
    for key, value in head.state_dict().items():
        assert torch.equal(value, before[key])  # fine-tuning works on a copy: the pre-trained head is unchanged


def test_plain_deep_ranker_is_a_point_estimate():
    examples, _ = _examples()
    _, head = collect(pretrain_deep_ranker(examples, seed=0, epochs=1, hidden=16))
    post = DeepRanker(head).fit(examples[0].features, None, Comparisons.from_winners([(0, 1)])).posterior()
    assert isinstance(post, PointPosterior) and np.all(post.variance == 0) and not DeepRanker.bayesian
    with pytest.raises(ConfigError, match="input features"):
        DeepRanker(head).fit(np.zeros((3, 5)), None, Comparisons.empty())


def test_checkpoint_round_trip(tmp_path):
    head = SiameseRanker(7, hidden=8)
    save_ranker(head, tmp_path / "ranker.pt", {"dataset": "x"})
    loaded, meta = load_ranker(tmp_path / "ranker.pt")
    assert meta == {"dataset": "x"} and loaded.config == head.config
    for name, tensor in head.state_dict().items():
        assert torch.equal(loaded.state_dict()[name], tensor), name
    with pytest.raises(CheckpointError):  # models/ raises its own error; the engine turns it into ModelMissingError
        load_ranker(tmp_path / "missing.pt")


def test_swag_posterior_is_seeded_and_moves_with_comparisons():
    from assistant.ranking.deep import SWAGRanker, collect_swag

    examples, _ = _examples()
    _, head = collect(pretrain_deep_ranker(examples, seed=0, epochs=2, hidden=16))
    records, moments = collect(collect_swag(head, examples, seed=0, epochs=2, rank=5))
    assert len(records) == 2 and moments.deviations.shape == (5, moments.mean.numel())
    assert torch.all(moments.variance > 0)
    x = examples[0].features
    post = SWAGRanker(head, moments, samples=10, seed=2).fit(x, None, Comparisons.empty()).posterior()
    again = SWAGRanker(head, moments, samples=10, seed=2).fit(x, None, Comparisons.empty()).posterior()
    assert post.samples.shape == (10, 15) and np.all(post.variance > 0)
    np.testing.assert_array_equal(post.samples, again.samples)
    worst, best = int(np.argmin(post.mean)), int(np.argmax(post.mean))
    tuned = SWAGRanker(head, moments, samples=10, seed=2, lr=5e-3, steps=40)
    moved = tuned.fit(x, None, Comparisons.from_winners([(worst, best)] * 3)).posterior()
    assert moved.mean[worst] - moved.mean[best] > post.mean[worst] - post.mean[best]


def test_evaluation_pretrains_the_deep_ranker_once_per_training_data(monkeypatch, hashing_encoder):
    import assistant.ranking.deep as deep
    from assistant.evaluation.cqa.problems import cache_dir
    from assistant.evaluation.cqa.protocol import RankerSettings, evaluate
    from assistant.progress import run_job

    calls = []
    real = deep.pretrain_deep_ranker

    def counting(*args, **kwargs):
        calls.append(1)
        return (yield from real(*args, **kwargs))

    monkeypatch.setattr(deep, "pretrain_deep_ranker", counting)
    settings = RankerSettings(deep_epochs=1, deep_hidden=16, deep_steps=2, mcd_samples=3)

    def run():
        result = run_job(
            evaluate(
                "coffee",
                2,
                ["imp"],
                ["mcd"],
                seed=0,
                n_candidates=6,
                max_questions=2,
                settings=settings,
                encoder=hashing_encoder,
            )
        )
        return [(r["model"], r["strategy"], r["interactions"], r["accuracy"], r["ndcg5"]) for r in result["rows"]]

    first = run()
    assert len(calls) == 1 and any(p.name.startswith("coffee-deep-ranker") for p in cache_dir().iterdir())
    assert run() == first and len(calls) == 1  # the second evaluation loads the pretrained head
    run_job(
        evaluate(
            "coffee",
            2,
            ["imp"],
            ["mcd"],
            seed=1,
            n_candidates=6,
            max_questions=2,
            settings=settings,
            encoder=hashing_encoder,
        )
    )
    assert len(calls) == 2  # another seed is another pretraining
