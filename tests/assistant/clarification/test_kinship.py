"""A question is not asked about a tag that an earlier answer already settled through a near-synonym, another
form, a containing phrase or the same entries (issue 39: "pram", then "stroller", then "cot";
assistant.clarification.kinship)."""

from __future__ import annotations

import json

import numpy as np

from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.clarifier import Clarifier, ClarifierConfig
from assistant.clarification.implied import implied_questions
from assistant.clarification.kinship import OWN_FAQ, kin_settled
from assistant.clarification.stopping import FixedTurns
from assistant.store import BINARY_OPTIONS, SIMILAR_TAGS, SOMETHING_ELSE, Domain, Label, Question
from tests.support.tiny import KeywordPrior


def _binary(kind: str, value: str) -> Question:
    return Question(f"{kind}::{value}", f"Is it about the {value}?", "binary", kind, BINARY_OPTIONS, True)


LABELS = [
    Label("infant", "Travelling with an infant"),
    Label("carry-on", "What carry-on baggage can I bring?"),
    Label("checked", "How much checked baggage is included?"),
    Label("lost", "My baggage is lost"),
]
QUESTIONS = [
    _binary("object", "pram"),  # 0: the infant entry
    _binary("object", "stroller"),  # 1: the infant entry
    _binary("object", "portable cot"),  # 2: the infant entry and the checked one
    _binary("object", "cot"),  # 3: the infant and the checked entries
    _binary("object", "carry-on"),  # 4
    _binary("object", "cabin bag"),  # 5: the carry-on entry and the lost one (a near-synonym of carry-on)
    _binary("object", "checked baggage"),  # 6
    _binary("object", "baggages"),  # 7: a form of "baggage", offered by the facet
    Question(
        "object",
        "What is it about?",
        "choice",
        "object",
        ("baggage", "class", SOMETHING_ELSE),
        True,
    ),  # 8
    Question("has_color::red", "Is it red?", "binary", "has_color", BINARY_OPTIONS),  # 9: not induced
]
# the entries whose person answers "yes" (or the facet's option) to each question
YES = {
    0: [0],
    1: [0],
    2: [0, 2],
    3: [0, 2],
    4: [1],
    5: [1, 3],
    6: [2],
    7: [1, 2, 3],
    9: [0, 1],
}
FACET = {0: [1, 2, 3], 1: [], 2: [0]}
SIMILAR = [(("object", ("carry", "on")), ("object", ("cabin", "bag")))]


def _counts() -> np.ndarray:
    counts = np.zeros((len(QUESTIONS), 3, len(LABELS)), dtype=np.float32)
    for q, entries in YES.items():
        counts[q, 0, :], counts[q, 1, :] = 1.0, 19.0
        counts[q, 0, entries], counts[q, 1, entries] = 19.0, 1.0
    for r, entries in FACET.items():
        counts[8, r, :] = 1.0
        counts[8, r, entries] = 38.0
    return counts


def test_an_answer_settles_the_questions_one_idea_apart_from_it():
    settled = kin_settled(QUESTIONS, _counts(), SIMILAR)
    pram, stroller, portable_cot, cot, carry_on, cabin_bag, checked, baggages, facet, red = range(len(QUESTIONS))
    # "no" to the pram: the infant entry has had its answer; the stroller points to it alone (MiniLM puts the two
    # words far apart: the entries say they are one idea); the cot points to the checked entry too and stays
    assert stroller in settled[pram][1] and cot not in settled[pram][1]
    # "yes" to the pram: the questions about the very same entries
    assert stroller in settled[pram][0] and portable_cot not in settled[pram][0]
    # any answer about the portable cot settles the cot; "no" to the cot settles the portable cot, "yes" does not
    assert cot in settled[portable_cot][0] and cot in settled[portable_cot][1]
    assert portable_cot in settled[cot][1] and portable_cot in settled[cot][0]  # the same two entries here
    # a near-synonym the build found (carry-on / cabin bag), however different their entries
    assert cabin_bag in settled[carry_on][0] and cabin_bag in settled[carry_on][1]
    assert carry_on in settled[cabin_bag][1]
    # a facet's answer: another form of the value chosen ("baggages" for "baggage"); "something else" settles
    # the forms of what it offered and the questions inside the entries of an offered option
    assert baggages in settled[facet][0] and baggages in settled[facet][2]
    assert {carry_on, checked} <= settled[facet][2] and pram not in settled[facet][2]
    # "class" chosen over "baggage": the checked baggage (among baggage's entries) is settled too
    assert checked in settled[facet][1]
    # questions that are not induced settle nothing and are not settled
    assert settled[red] == [set(), set()] and not any(red in s for options in settled for s in options)
    # without the counts only the words speak: the stroller stays after the pram
    words_only = kin_settled(QUESTIONS, None, SIMILAR)
    assert stroller not in words_only[pram][1] and cot in words_only[portable_cot][1]


def test_the_cot_is_not_inside_every_phrase_that_holds_the_word():
    """A phrase names a kind of another when it ends with it: "bus service" is no kind of bus."""
    questions = [_binary("object", "bus"), _binary("object", "bus service"), _binary("object", "school bus service")]
    settled = kin_settled(questions)
    assert settled[1][0] == set() and 1 in settled[2][1]  # "school bus service" is a "bus service"
    assert 1 not in settled[0][1] and 2 not in settled[0][1]


def _clarifier(meta: dict[str, str]) -> Clarifier:
    texts = ["baby pram on board", "cabin bag size", "checked bag allowance", "bag never arrived"]
    domain = Domain(
        "airline",
        "Airline",
        LABELS,
        QUESTIONS,
        _counts(),
        texts,
        np.arange(len(LABELS)),
        np.array(["train"] * len(LABELS)),
        meta=meta,
    )
    model = AnswerModel(domain.p_hat(1.0), domain.option_mask)
    return Clarifier(domain, KeywordPrior(domain), model, FixedTurns(9), config=ClarifierConfig(max_turns=9))


def test_a_conversation_does_not_ask_about_a_tag_an_answer_settled_through_a_near_synonym():
    meta = {OWN_FAQ: "true", SIMILAR_TAGS: json.dumps([["object", "carry-on", "cabin bag"]])}
    conversation = _clarifier(meta).start("how many kilos cabin bag")
    conversation.answer(0, 1)  # no, not the pram
    conversation.answer(4, 0)  # yes, the carry-on
    assert not conversation.available[[1, 5]].any()  # the stroller, the cabin bag
    asked = []
    while (question := conversation.next_question()) is not None:
        asked.append(question)
        conversation.answer(question, 1)
    assert not {0, 1, 4, 5} & set(asked)
    # undo gives back what the answers settled
    for _ in asked:
        conversation.undo()
    conversation.undo()
    assert conversation.available[5] and not conversation.available[1]
    # a desk built before the near-synonyms were stored still settles what the entries and the words say
    plain = _clarifier({OWN_FAQ: "true"}).start("how many kilos cabin bag")
    plain.answer(4, 0)
    plain.answer(0, 1)
    assert plain.available[5] and not plain.available[1]
    # a bundled domain keeps the rules its stop policy was trained with
    bundled = _clarifier({}).start("how many kilos cabin bag")
    bundled.answer(0, 1)
    assert bundled.available[1]


def test_the_implied_questions_keep_their_own_rules_beside_the_kin():
    implied = implied_questions(QUESTIONS, _counts(), SIMILAR)
    # "baggage" chosen: "baggages" is the same question; "checked baggage" may still tell two entries apart
    assert 7 in implied[8][0] and 6 not in implied[8][0]
    assert implied[9] == [(), ()]
