"""An answer settles the induced questions that would only repeat it (assistant.clarification.implied)."""

from __future__ import annotations

import numpy as np

from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.clarifier import Clarifier, ClarifierConfig
from assistant.clarification.implied import implied_questions
from assistant.clarification.stopping import FixedTurns
from assistant.store import BINARY_OPTIONS, SOMETHING_ELSE, Domain, Label, Question
from tests.support.tiny import KeywordPrior

QUESTIONS = [
    Question(
        "action@Gmail",
        "What do you want to do in Gmail?",
        "choice",
        "action",
        ("archive", "send", SOMETHING_ELSE),
        True,
    ),
    Question("action", "What do you want to do?", "choice", "action", ("send", "download", SOMETHING_ELSE), True),
    Question("action::archive", "Is it about archiving?", "binary", "action", BINARY_OPTIONS, True),
    Question("action::send", "Is it about sending?", "binary", "action", BINARY_OPTIONS, True),
    Question("product::Gmail", "Is it about Gmail?", "binary", "product", BINARY_OPTIONS, True),
    Question("has_color::red", "Is it red?", "binary", "has_color", BINARY_OPTIONS),
]


def test_each_answer_settles_the_questions_that_would_repeat_it():
    implied = implied_questions(QUESTIONS)
    # archive in the Gmail facet: "Is it about archiving?", the other action facet, and "Is it about sending?"
    # (the person chose archive over send, issue 26)
    assert implied[0][0] == (1, 2, 3)
    # send in the general facet: "Is it about sending?", the Gmail facet; download was offered but has no
    # binary question
    assert implied[1][0] == (0, 3)
    # "something else": the binary questions on the values offered ("archiving?", "sending?")
    assert implied[0][2] == (2, 3)
    # "yes" to "sending?": the action facets that offer "send"; "no" settles nothing
    assert implied[3] == [(0, 1), ()]
    assert implied[2] == [(0,), ()]
    # "no" to "Is it about Gmail?" settles the facet scoped to Gmail (issue 32); "yes" no other scoped facet here
    assert implied[4] == [(), (0,)]
    # questions that are not induced settle nothing
    assert implied[5] == [(), ()]


SERVICES = [
    Question(
        "product",
        "Which service is it about?",
        "choice",
        "product",
        ("Gmail", "Google", "Facebook", SOMETHING_ELSE),
        True,
    ),
    Question(
        "action@Facebook",
        "What do you want to do in Facebook?",
        "choice",
        "action",
        ("delete", "hide", SOMETHING_ELSE),
        True,
    ),
    Question(
        "action@Google", "What do you want to do in Google?", "choice", "action", ("add", "link", SOMETHING_ELSE), True
    ),
    Question(
        "object@Facebook",
        "What in Facebook is it about?",
        "choice",
        "object",
        ("people", "friend", SOMETHING_ELSE),
        True,
    ),
    Question("product::Facebook", "Is it about Facebook?", "binary", "product", BINARY_OPTIONS, True),
    Question("product::Dropbox", "Is it about Dropbox?", "binary", "product", BINARY_OPTIONS, True),
    Question(
        "action@Dropbox", "What do you want to do in Dropbox?", "choice", "action", ("remove", SOMETHING_ELSE), True
    ),
]


def test_facet_questions_follow_an_answer_about_their_scope():
    """After "Google" for the service, no "What do you want to do in Facebook?" (issue 32, screenshot 23)."""
    implied = implied_questions(SERVICES)
    google = implied[0][1]
    assert {1, 3, 6} <= set(google) and 2 not in google
    # "something else": the facets scoped to the services it offered, not Dropbox's (it was not offered)
    assert {1, 2, 3} <= set(implied[0][3]) and 6 not in implied[0][3]
    # "yes" to Facebook: the facets of every other service; "no": Facebook's own
    assert {2, 6} <= set(implied[4][0]) and not {1, 3} & set(implied[4][0])
    assert {1, 3} <= set(implied[4][1]) and 2 not in implied[4][1]


def test_a_conversation_does_not_ask_what_an_answer_settled_and_undo_brings_it_back():
    labels = [
        Label("a", "Retrieve an archived message in Gmail"),
        Label("s", "Send later in Gmail"),
        Label("d", "Download"),
    ]
    counts = np.full((len(QUESTIONS), 3, 3), 0.5, dtype=np.float32)
    counts[0, :, :] = [[9, 0.5, 0.5], [0.5, 9, 0.5], [0.5, 0.5, 9]]
    counts[1, :, :] = [[0.5, 9, 0.5], [0.5, 0.5, 9], [9, 0.5, 0.5]]
    counts[2, :2] = [[9, 0.5, 0.5], [0.5, 9, 9]]
    counts[3, :2] = [[0.5, 9, 0.5], [9, 0.5, 9]]
    texts = ["archived mail gone", "send an email later", "download a video"]
    domain = Domain("desk", "Desk", labels, QUESTIONS, counts, texts, np.arange(3), np.array(["train"] * 3))
    model = AnswerModel(domain.p_hat(1.0), domain.option_mask)
    clarifier = Clarifier(domain, KeywordPrior(domain), model, FixedTurns(5), config=ClarifierConfig(max_turns=5))
    conversation = clarifier.start("my email")
    conversation.answer(0, 0)  # archive
    assert not conversation.available[[1, 2]].any()
    assert conversation.turn == 1  # settled questions are not turns
    asked = []
    while (question := conversation.next_question()) is not None:
        asked.append(question)
        conversation.answer(question, 1)
    assert not {1, 2} & set(asked)
    for _ in asked:
        conversation.undo()
    conversation.undo()
    assert conversation.available[[0, 1, 2]].all()
