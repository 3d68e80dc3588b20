"""Question induction on a tiny FAQ domain (tests/data/induction): products, actions and objects by kind,
multiple-choice facets with "something else", the wording of the questions and how a person answers them."""

from __future__ import annotations

import json

import numpy as np
import pytest

from assistant.induction.facets import answer_information, choose_facet_values
from assistant.induction.induction import (
    InducedQuestion,
    InductionConfig,
    find_products,
    induce_questions,
    question_from_tag,
)
from assistant.induction.person_model import PersonModel, fit_person_model, mention_evidence, person_answers
from assistant.induction.synonyms import SAME_IDEA_SIMILARITY, meaning_text
from assistant.sources.templates import TemplateSet
from assistant.store import SOMETHING_ELSE
from assistant.text.embeddings import phrase_vectors
from assistant.text.phrases import TAG_KINDS, split_tag
from tests.support import TEST_DATA

DATA = TEST_DATA / "induction" / "tiny_faq.json"
CONFIG = InductionConfig(min_facet_labels=1, tags_per_label=4)


@pytest.fixture(scope="module")
def tiny():
    labels = json.loads(DATA.read_text(encoding="utf-8"))["labels"]
    return [lab["name"] for lab in labels], [lab["train"] for lab in labels], [lab["dev"] for lab in labels]


@pytest.fixture(scope="module")
def induced(tiny):
    names, train, _ = tiny
    return induce_questions(train, names, CONFIG)


def _question(questions, tag):
    return next(i for i, q in enumerate(questions) if q.tag == tag)


def test_products_are_names_written_with_capitals(tiny):
    names, train, _ = tiny
    products = set(find_products(names, [t for texts in train for t in texts]).values())
    assert {"Gmail", "Facebook", "YouTube", "Google Docs", "Trello"} <= products
    assert not products & {"How", "Docs", "Is", "Do"}  # sentence starts and the ends of longer names are not


def test_facets_offer_values_and_something_else(induced):
    facets = {q.tag: q for q in induced if q.facet}
    assert set(facets) == {"product", "action", "object"}
    service = facets["product"]
    assert service.options[-1] == SOMETHING_ELSE and len(service.options) == len(service.values) + 1
    assert service.values[:2] == ("Gmail", "Facebook")  # the names of three and two FAQs name them
    assert {"delete", "download"} <= set(facets["action"].values)
    assert "account" in facets["object"].values


def test_binary_questions_are_phrases_by_kind(induced):
    binary = [q for q in induced if not q.facet]
    assert binary and all(split_tag(q.tag)[0] in TAG_KINDS for q in binary)
    tags = {q.tag for q in binary}
    assert "action::back up" in tags  # "how do I back up": the verb with its particle
    assert {"product::Trello", "product::YouTube"} <= tags
    assert not any(split_tag(t)[1] in {"how", "my", "do"} for t in tags)


def test_question_from_tag_restores_what_induction_made(induced):
    for question in induced:
        again = question_from_tag(question.tag, question.options)
        assert again is not None and again.keys == question.keys and again.facet == question.facet
    assert question_from_tag("has_size", ("small", "large")) is None


def test_templates_read_as_english():
    templates = TemplateSet.builtin("induced")
    assert templates.question_text("product::Gmail", "binary") == "Is it about Gmail?"
    assert templates.question_text("action::back up", "binary") == "Is it about backing up?"
    assert templates.question_text("action::forward", "binary") == "Is it about forwarding?"
    assert templates.question_text("object::exchange rate", "binary") == "Is it about the exchange rate?"
    assert templates.question_text("attribute::pending", "binary") == "Is something pending?"
    assert templates.question_text("product", "choice") == "Which service is it about?"
    assert templates.question_text("action", "choice") == "What do you want to do?"
    assert templates.question_text("object", "choice") == "What is it about?"
    assert templates.question_text("action@Gmail", "choice") == "What do you want to do in Gmail?"
    assert templates.question_text("object@Google Docs", "choice") == "What in Google Docs is it about?"


def test_a_phrase_of_the_labels_own_question_is_a_near_certain_yes(tiny, induced):
    names, train, _ = tiny
    answers = person_answers(induced, mention_evidence(induced, names, train), PersonModel(0.05, 0.3))
    youtube = answers[_question(induced, "product::YouTube")]
    assert youtube[0, 5] == pytest.approx(0.95)  # "How can I download a YouTube video?"
    assert youtube[0, 3] == pytest.approx(0.05)  # the Facebook FAQ never mentions YouTube
    service = induced[_question(induced, "product")]
    dist = answers[_question(induced, "product")]
    assert np.allclose(dist.sum(axis=0), 1.0)
    assert dist[service.values.index("Gmail"), 0] == pytest.approx(0.95 + 0.05 / len(service.options))
    # the Trello FAQ: "something else" unless Trello is a value of the facet
    trello = service.values.index("Trello") if "Trello" in service.values else len(service.values)
    assert dist[trello, 7] > 0.9


def test_phrases_of_other_texts_count_by_their_share(tiny):
    names, train, _ = tiny
    profile = InducedQuestion("object::profile", "object", ("profile",), (("profile",),))
    evidence = mention_evidence([profile], names, train)
    p_yes = person_answers([profile], evidence, PersonModel(0.05, 0.5))[0][0]
    # one of the three training queries of the Facebook-account FAQ says "profile": 1/3 of the way to saturation
    assert p_yes[3] == pytest.approx(0.05 + 0.9 * (1 / 3) / 0.5)
    assert p_yes[0] == pytest.approx(0.05)


def test_the_error_rate_is_fitted_on_dev_queries(tiny, induced):
    names, train, dev = tiny
    evidence = mention_evidence(induced, names, train)
    faithful, _ = fit_person_model(induced, evidence, dev)
    # dev queries that name another FAQ's service: the fitted person errs more often
    swapped, _ = fit_person_model(induced, evidence, dev[3:] + dev[:3])
    assert faithful.error < swapped.error


def test_facet_values_are_chosen_for_information_not_frequency():
    # six labels: "email" named by four of them, "mail" by the same four, "archive" and "filter" by one each
    named = [{"email", "mail"}, {"email", "mail"}, {"email", "mail"}, {"email", "mail"}, {"archive"}, {"filter"}]
    chosen = choose_facet_values(["email", "mail", "archive", "filter"], named, max_values=3)
    assert chosen[0] == "email" and "mail" not in chosen  # a value naming the same labels again says nothing
    assert set(chosen[1:]) == {"archive", "filter"}
    assert answer_information(named, ["email", "mail"]) == pytest.approx(answer_information(named, ["email"]))
    # the value of the last "something else" label adds no information but lets that person find it
    assert choose_facet_values(["email", "archive", "filter"], named, max_values=9) == ["email", "archive", "filter"]


def test_facets_within_a_group_are_asked_of_its_labels(tiny):
    names, train, _ = tiny
    induced = induce_questions(train, names, InductionConfig(min_facet_labels=1, tags_per_label=4, min_group_labels=3))
    within = {q.tag: q for q in induced if q.within is not None}
    assert set(within) == {"action@Gmail", "object@Gmail"}  # only Gmail is named by three FAQ names
    gmail = within["action@Gmail"]
    assert {"delete", "recover", "download"} <= set(gmail.values)
    assert question_from_tag(gmail.tag, gmail.options) == gmail
    evidence = mention_evidence(induced, names, train)
    dist = person_answers(induced, evidence, PersonModel(0.05, 0.3))[induced.index(gmail)]
    recover = gmail.values.index("recover")
    assert dist[recover, 1] > 0.9  # "How do I recover deleted emails in Gmail?"
    assert dist[-1, 3] > 0.9 and dist[-1, 5] > 0.9  # the Facebook and YouTube FAQs: "something else"
    # areas an adapter knows (CLINC150's) get facets too, by their member labels
    areas = {"social media": [3, 4, 5], "email": [0, 1, 2]}
    grouped = induce_questions(train, names, InductionConfig(min_facet_labels=1, min_group_labels=2), areas)
    social = next(q for q in grouped if q.tag == "action@social media")
    assert set(social.values) == {"delete", "back up", "download"}
    members = mention_evidence([social], names, train, areas).members[0]
    assert members.tolist() == [False, False, False, True, True, True, False, False]


def test_attributes_are_states_or_rare_properties_and_particles_end_phrases():
    from assistant.text.phrases import text_phrases

    def found(text, kind):
        return {p.display for p in text_phrases(text) if p.kind == kind}

    # states and rare properties make questions; everyday, comparative and superlative adjectives do not
    assert found("my transfer is pending and my card is blocked, an urgent issue", "attribute") == {
        "pending",
        "blocked",
        "urgent",
    }
    assert not found("the easiest way to send large and similar files, longer ones", "attribute")
    # "log in (to)" is a phrasal verb; "post on Facebook" and "click on the link" are verbs with a preposition
    assert "log in" in found("how do I log in to Gmail", "action")
    assert found("how do I post on Facebook", "action") == {"post"}
    assert found("can I click on the link", "action") == {"click"}


def test_words_used_as_adjectives_in_the_texts_make_no_object_questions():
    names = ["How to link to a specific point of a video?", "YouTube video is paused", "A specific portion of a page"]
    texts = [
        ["jump to a specific time in a video", "a specific second"],
        ["my video stops"],
        ["specific part of the page"],
    ]
    objects = {
        q.values[0]
        for q in induce_questions(texts, names, InductionConfig(min_label_support=1))
        if q.kind == "object" and not q.facet
    }
    assert "video" in objects  # "a video", "video is paused": a noun
    assert "specific" not in objects  # "specific point", "specific portion": modifies the noun after it


def test_smoothing_keeps_the_person_models_answers(tiny):
    from collections import defaultdict

    from assistant.sources.adapters.induced import induced_questions
    from assistant.store import Label

    names, train, dev = tiny
    labels = [Label(f"l{i}", name) for i, name in enumerate(names)]
    questions, annotations, _ = induced_questions(labels, train, dev, InductionConfig(min_facet_labels=1))
    service = next(q for q in questions if q.tag == "product")
    counts = defaultdict(float)
    for label, tag, option, count in annotations:
        if tag == "product" and label == "l0":  # "How do I delete my Gmail account?"
            counts[option] = count
    # the agent's add-one smoothing (one per option) must not flatten what the fitted person model says
    smoothed = {o: (counts[o] + 1) / (sum(counts.values()) + len(service.options)) for o in service.options}
    assert max(smoothed, key=smoothed.get) == "Gmail" and smoothed["Gmail"] > 0.85


def test_an_own_faqs_near_synonyms_get_one_yes_no_question():
    """``merge_similar_binaries`` (own FAQs, issue 39): of two phrases of a kind whose MiniLM cosine reaches
    SAME_IDEA_SIMILARITY ("scam message" / "scam email"), one yes/no question; the bundled setting keeps both."""
    names = ["I got a scam email", "A scammer called me", "Track my parcel", "Change my postal address", "Lost parcel"]
    texts = [
        ["scam email asking for my password", "is this email a scam", "a scam message about a parcel"],
        ["a scammer phoned me", "scammer on the phone", "the scammer asked for money"],
        ["where is my parcel", "track parcel delivery", "parcel tracking number"],
        ["I moved house, new postal address", "update my address", "change address for mail"],
        ["my parcel never arrived", "lost parcel claim", "parcel missing"],
    ]
    asked = {}
    for merge in (False, True):
        config = InductionConfig(min_label_support=1, merge_similar_binaries=merge)
        asked[merge] = [split_tag(q.tag) for q in induce_questions(texts, names, config) if not q.facet]
    kept, dropped = set(asked[True]), set(asked[False]) - set(asked[True])
    assert kept < set(asked[False]) and dropped
    phrases = sorted(kept | dropped)
    vectors = dict(zip(phrases, phrase_vectors([meaning_text(kind, shown) for kind, shown in phrases])))
    for kind, shown in dropped:  # each merged into a kept phrase of its kind that says the same
        twins = [k for k in kept if k[0] == kind and vectors[k] @ vectors[kind, shown] >= SAME_IDEA_SIMILARITY]
        assert twins, shown
