"""The wording gate of induced questions (assistant.induction.wording, assistant.text.grammar): the phrases people
found broken are rejected in the texts they came from, good ones are kept, near-synonyms and
variants are one value, questions agree with their subjects."""

from __future__ import annotations

import pytest

from assistant.induction.wording import WordingGate, question_problems
from assistant.text.grammar import agree, agreement_problems, request_verbs
from assistant.text.word_forms import is_variant

FAQ_TITLES = [
    "How do I ensure that what I post on Facebook stays private?",
    "What happens to your Facebook account when you die?",
    "Determine who unfriended me on Facebook",
    "How to disable auto-save in Google Docs?",
    "Downloading auto-generated YouTube transcriptions",
    "Is there a way to create a link to a particular position inside a Google Doc?",
    "What can you NOT find on Google?",
    "How do I untrust a computer with Google two-factor authentication?",
    "Display mail size in Gmail",
    "How do I delete my Facebook account?",
    "How can I filter my Gmail messages that aren't labeled?",
    "YouTube stops buffering when video is paused",
]
FAQ_TEXTS = [
    "how to download all my pms from facebook",
    "my pms are gone",
    "I trusted a computer with google two factor authentication by mistake",
    "remove a trusted computer from 2 factor authentication",
    "how to display mail size in gmail",
    "display mail size",
    "a gmail filter with a disjunction of conditions",
    "my video takes too long to load",
    "youtube wont continue loading when paused",
    "facebook account after I die",
    "delete facebook account for good",
    "who unfriended me",
]
BANKING_TITLES = ["Exchange rate", "Card payment wrong exchange rate", "Change pin", "Activate my card"]
BANKING_TEXTS = [
    "what is the exchange rate today",
    "the exchange rate was wrong on my card payment",
    "how do I change my pin",
    "I want to change my PIN number",
    "how do I activate my new card",
]


@pytest.fixture(scope="module")
def faq_gate():
    return WordingGate(FAQ_TITLES, FAQ_TEXTS)


@pytest.fixture(scope="module")
def banking_gate():
    gate = WordingGate(BANKING_TITLES, BANKING_TEXTS)
    gate.read_title_actions([[t for t in BANKING_TEXTS if w in t.lower()] for w in ("rate", "rate", "pin", "card")])
    return gate


@pytest.mark.parametrize(
    ("kind", "phrase"),
    [
        ("object", "private"),  # "stays private": an adjective
        ("object", "long"),  # "too long to load"
        ("object", "pms"),  # a lowercase abbreviation
        ("object", "continue loading"),  # a verb and its -ing complement
        ("object", "display mail"),  # "display mail size": display is the verb
        ("object", "factor authentication"),  # cut from "two-factor authentication"
        ("object", "disjunction"),  # a rare word no label name uses
        ("object", "unfriended"),  # a verb
        ("object", "auto"),  # the first half of "auto-save", "auto-generated"
        ("object", "inside"),  # a preposition
        ("object", "find"),  # a verb
        ("action", "die"),  # "when you die": nobody asks to die
    ],
)
def test_the_phrases_people_found_broken_are_rejected(faq_gate, kind, phrase):
    key = tuple(w if w != "pms" else "pm" for w in phrase.split())
    from assistant.text.lemmas import phrase_key

    key = phrase_key(phrase.split())
    verdict = faq_gate.verdict((kind, key), phrase)
    assert not verdict.keep, f"{phrase!r} kept"
    assert verdict.reason


def test_good_phrases_are_kept(faq_gate, banking_gate):
    assert faq_gate.verdict(("product", ("gmail",)), "Gmail").keep
    assert faq_gate.verdict(("action", ("delete",)), "delete").keep
    assert faq_gate.verdict(("action", ("filter",)), "filter").keep
    assert banking_gate.verdict(("object", ("exchange", "rate")), "exchange rate").keep
    assert faq_gate.verdict(("object", ("account",)), "account").keep


def test_a_headline_name_asks_for_its_verb(banking_gate):
    """ "Change pin" is a request to change (its texts say "how do I change my pin"); "Exchange rate" is none."""
    assert banking_gate.title_actions(2) == {("change",)}
    assert banking_gate.title_actions(3) == {("activate",)}
    assert banking_gate.title_actions(0) == set()


def test_request_verbs_read_the_sentence():
    from assistant.text.grammar import parse

    docs = parse(
        [
            "How do I delete my Facebook account?",
            "What happens to your Facebook account when you die?",
            "Is it possible to export my data from Trello, to back it up?",
        ]
    )
    assert request_verbs(docs[0]) == [("delete",)]
    assert request_verbs(docs[1]) == []
    assert ("back", "up") in request_verbs(docs[2]) and ("export",) in request_verbs(docs[2])


@pytest.mark.parametrize(
    ("kind", "a", "b", "same"),
    [
        ("action", "delete", "remove", True),
        ("action", "search", "find", True),
        ("object", "photo", "picture", True),
        ("object", "time", "timer", True),
        ("object", "mail", "email", True),
        ("object", "fiat currency", "flat currency", True),
        ("object", "payment", "transaction", False),
        ("action", "export", "import", False),
        ("action", "send", "receive", False),
        ("action", "enable", "disable", False),
        ("action", "change", "exchange", False),
        ("object", "file", "folder", False),
        ("object", "tax", "income", False),
    ],
)
def test_near_synonyms_and_variants_are_one_value(faq_gate, kind, a, b, same):
    from assistant.text.lemmas import phrase_key

    assert faq_gate.same_meaning((phrase_key(a.split()), a), (phrase_key(b.split()), b), kind) is same


def test_variants():
    assert is_variant(("time",), ("timer",)) and is_variant(("sync",), ("syncing",))
    assert is_variant(("back", "up"), ("backup",))
    assert not is_variant(("card",), ("cart",)) and not is_variant(("chat",), ("chart",))


def test_questions_agree_with_their_subjects():
    assert agreement_problems("Is its underparts white?")
    assert not agreement_problems("Is its crown red?")
    assert agree(["Is its underparts white?", "What pattern does its underparts have?", "Is its crown red?"]) == [
        "Are its underparts white?",
        "What pattern do its underparts have?",
        "Is its crown red?",
    ]


def test_the_question_level_check():
    good = ["Is it about Gmail?", "Do you want to delete something?", "Is it about the exchange rate?"]
    good += ["Are its wings black?", "Is it about backing up?"]
    bad = ["Is it about the private?", "Is it about the long?", "Is its underparts white?"]
    problems = question_problems(good + bad)
    assert problems[: len(good)] == [[]] * len(good)
    assert all(problems[len(good) :])


def test_every_bird_question_agrees_with_its_subject():
    from assistant.sources.adapters import cub

    texts = [q.text for q in cub.load().questions]
    assert "Are its underparts white?" in texts and "Is its crown red?" in texts and "Are its wings black?" in texts
    assert "What pattern do its wings have?" in texts and "What pattern does its breast have?" in texts
    assert not [t for t in texts if agreement_problems(t)]
