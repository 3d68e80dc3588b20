"""The clinc adapter: official splits (val as dev, out-of-scope apart) and the areas as one question."""

from __future__ import annotations

from collections import Counter

from assistant.sources.adapters import BUNDLED_DOMAINS
from assistant.sources.adapters.clinc150 import (
    AREA_ERROR,
    area_answers,
    area_question,
    intent_name,
    read_areas,
    read_queries,
)
from assistant.store import SOMETHING_ELSE, Label


def test_official_splits_are_kept_and_out_of_scope_queries_stay_apart():
    area_of = read_areas()
    assert len(area_of) == 150 and len(set(area_of.values())) == 10
    queries, texts, out_of_scope = read_queries(area_of)
    by_split = Counter(split for _, _, split in queries)
    # 100 / 20 / 30 per intent; the one val paraphrase that repeats a training one is kept once (in train)
    assert (by_split["train"], by_split["dev"], by_split["test"]) == (15000, 2999, 4500)
    assert sorted({len(texts["dev"][intent]) for intent in area_of}) == [19, 20]
    assert Counter(split for _, split in out_of_scope) == {"train": 100, "dev": 100, "test": 1000}
    assert "clinc" in BUNDLED_DOMAINS


def test_the_areas_are_one_multiple_choice_question_ending_in_something_else():
    area_of = read_areas()
    question = area_question(list(dict.fromkeys(area_of.values())))
    assert question.text == "Which area is it about?" and question.kind == "choice"
    assert question.options[-1] == SOMETHING_ELSE and "credit cards" in question.options
    assert len(question.options) == 11
    labels = [Label("pin_change", intent_name("pin_change")), Label("book_flight", intent_name("book_flight"))]
    rows = area_answers(labels, area_of, question)
    answers = {(key, option): p for key, _, option, p in rows}
    assert answers[("pin_change", "banking")] == 1 - AREA_ERROR
    assert answers[("book_flight", "travel")] == 1 - AREA_ERROR
    assert answers[("pin_change", SOMETHING_ELSE)] == AREA_ERROR / 2
    for key in ("pin_change", "book_flight"):
        assert abs(sum(p for (k, _), p in answers.items() if k == key) - 1) < 1e-9
    assert labels[0].name == "Pin change"
