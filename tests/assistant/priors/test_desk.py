"""The desk prior (issue 39): each part of its recipe does what it says on a tiny FAQ, the shipped settings are the
fitted ones and valid, and the saved calibration rebuilds the same prior (the registry's path)."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.errors import ConfigError
from assistant.priors.desk import (
    PARTS,
    DeskPrior,
    DeskSettings,
    best_per_entry,
    entry_document,
    minilm_prior_from_settings,
    normalised_bm25,
    recipe_scores,
    shipped_settings,
)
from assistant.store import BINARY_OPTIONS, Domain, Label, Question


def tiny_desk() -> Domain:
    labels = [
        Label("card", "How do I get a library card?", "I want to join.", ("Bring a photo ID to any branch.",)),
        Label(
            "wifi",
            "How do I use the Wi-Fi?",
            "",
            ("Choose the network Guest. The password is on the metrocard poster by the door.",),
        ),
        Label("hours", "When are you open?", "Opening times.", ("Monday to Friday 9-20, weekends 10-17.",)),
    ]
    questions = [Question("topic::card", "Is it about the card?", "binary", "topic", BINARY_OPTIONS)]
    counts = np.ones((1, 2, 3), dtype=np.float32)
    texts = ["join the library", "internet access", "what time do you close", "get a card", "laptop online"]
    ys = np.array([0, 1, 2, 0, 1])
    splits = np.array(["train", "train", "train", "dev", "dev"])
    return Domain("tinydesk", "Tiny desk", labels, questions, counts, texts, ys, splits)


SETTINGS = DeskSettings(
    {"answers": 0.5, "sentence": 0.75, "query": 0.75, "bm25": 0.2}, 0.12, (-5.0, 4.0, -3.0), 0.5, 0.05
)


def test_an_entry_is_one_document_of_its_title_description_and_answers():
    label = tiny_desk().labels[0]
    assert entry_document(label) == "How do I get a library card?. I want to join. Bring a photo ID to any branch."


@pytest.mark.slow  # the shipped MiniLM embeds the texts
def test_each_part_scores_what_it_names():
    prior = DeskPrior.build_desk(tiny_desk(), SETTINGS)
    texts = ["the metrocard poster", "join the library"]
    parts = prior.parts(texts, prior.query_embeddings(texts))
    assert set(parts) == set(PARTS) and all(p.shape == (2, 3) for p in parts.values())
    # BM25 reads rare words exactly: "metrocard" is only in the Wi-Fi entry's answer; scaled to the best entry's
    assert parts["bm25"][0].argmax() == 1 and parts["bm25"][0].max() == pytest.approx(1.0)
    # a synthesized query typed again is its entry's best match among the queries
    assert parts["query"][1].argmax() == 0 and parts["query"][1, 0] == pytest.approx(1.0, abs=1e-5)
    scores = prior.scores(texts)
    assert scores.shape == (2, 3) and np.all(np.isfinite(scores))
    np.testing.assert_allclose(scores, recipe_scores(parts, SETTINGS.weights) / SETTINGS.temperature, rtol=1e-5)


def test_the_best_match_per_entry_ignores_other_entries_and_marks_entries_without_any():
    similarity = np.array([[0.1, 0.9, 0.3], [0.5, 0.2, 0.4]])
    out = best_per_entry(similarity, np.array([0, 0, 2]), 4)
    np.testing.assert_allclose(out, [[0.9, -1.0, 0.3, -1.0], [0.5, -1.0, 0.4, -1.0]])
    np.testing.assert_allclose(normalised_bm25(np.array([[2.0, 4.0], [0.0, 0.0]])), [[0.5, 1.0], [0.0, 0.0]])


@pytest.mark.slow
def test_the_saved_calibration_rebuilds_the_same_prior():
    domain = tiny_desk()
    prior = DeskPrior.build_desk(domain, SETTINGS)
    again = minilm_prior_from_settings(domain, prior.calibration())
    assert isinstance(again, DeskPrior) and again.settings == SETTINGS
    np.testing.assert_allclose(again.scores(["wifi password"]), prior.scores(["wifi password"]), rtol=1e-6)


def test_the_shipped_settings_were_fitted_on_the_development_desks_and_are_valid():
    settings = shipped_settings()
    assert len(settings.fitted_on) >= 6 and 0 < settings.temperature < 1
    assert 0 < settings.shortlist_threshold < 1 and settings.shortlist_coverage == pytest.approx(0.9)
    assert DeskSettings.from_dict(settings.to_dict()) == settings


def test_broken_settings_are_refused_with_a_reason():
    with pytest.raises(ConfigError, match="incomplete"):
        DeskSettings.from_dict({"weights": {}})
    with pytest.raises(ConfigError, match="invalid"):
        DeskSettings({"nonsense": 1.0}, 0.1, (0.0, 0.0, 0.0), 0.0, 0.1)


def test_answer_sentences_are_split_once_per_faq_and_a_damaged_cache_is_split_again(monkeypatch):
    import assistant.priors.desk as desk
    from assistant import paths

    domain = tiny_desk()
    sentences, entries = desk.answer_sentences(domain)
    assert sentences[:2] == ["Bring a photo ID to any branch.", "Choose the network Guest."] and entries[
        :2
    ].tolist() == [0, 1]

    def unused(text):
        raise AssertionError("split again although the FAQ's answers did not change")

    monkeypatch.setattr(desk, "split_sentences", unused)
    again, again_entries = desk.answer_sentences(domain)
    assert again == sentences and again_entries.tolist() == entries.tolist()
    monkeypatch.undo()
    cache = paths.models_dir(domain.name) / desk.SENTENCES_FILE
    cache.write_bytes(b"PK\x03\x04 damaged")
    assert desk.answer_sentences(domain)[0] == sentences
    import zipfile

    with zipfile.ZipFile(cache, "w", compression=zipfile.ZIP_DEFLATED) as bomb:  # 64 MB of zeros in 64 KB
        bomb.writestr("sentences.npy", b"\0" * (64 << 20))
    assert desk.answer_sentences(domain)[0] == sentences  # refused from the directory, split again
