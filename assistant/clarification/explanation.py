"""Why a question: its information gain and what each of its answers would do to the likeliest labels (the Ask
page's "why this question"). Works for the domain's questions and the answer-list question alike."""

from __future__ import annotations

from typing import TypedDict

import numpy as np

from assistant.clarification.answer_list import ANSWER_LIST, answer_list_gain
from assistant.clarification.conversation import Conversation
from assistant.clarification.questions import answer_distribution, information_gain


class AnswerOutcome(TypedDict):
    """One answer of the question: its chance under the current belief and the top labels after it."""

    option: str
    probability: float
    top: list[tuple[str, float]]  # (label name, probability after the answer), likeliest first


class QuestionExplanation(TypedDict):
    """Why a question: gain and entropy in nats, its rank among the questions left (None: not rankable)."""

    question: str
    information_gain: float
    rank: int | None
    entropy: float
    outcomes: list[AnswerOutcome]


def explain(conversation: Conversation, question: int, top: int = 5) -> QuestionExplanation:
    """Why this question: its information gain and what each answer would do to the top labels."""
    model = conversation.clarifier.model
    ig = information_gain(model, conversation.probs)
    listed = conversation.pending_list if question == ANSWER_LIST else None
    y = len(conversation.excluded)
    if listed is not None:
        likelihoods = [listed.likelihood(r, y) for r in range(listed.num_options)]
        p_answer: list[float] | np.ndarray = [float(lik @ conversation.probs) for lik in likelihoods]
        gain = answer_list_gain(conversation.probs, listed)
    else:
        likelihoods = [model.likelihood(question, r) for r in range(len(conversation.question(question).options))]
        p_answer = answer_distribution(model, conversation.probs, question)
        gain = float(ig[question])
    labels, cands = conversation.clarifier.domain.labels, conversation.clarifier.candidates
    outcomes: list[AnswerOutcome] = []
    for r, option in enumerate(conversation.question(question).options):
        post = conversation.belief.preview(np.log(likelihoods[r]))  # dismissals hold (belief.py)
        order = np.argsort(-post, kind="stable")[:top]
        outcomes.append(
            {
                "option": option,
                "probability": float(p_answer[r]),
                "top": [(labels[int(cands[i])].name, float(post[i])) for i in order],
            }
        )
    available = conversation.available
    rank = None
    if listed is None and available[question]:
        rank = int((ig[available] > ig[question]).sum()) + 1
    elif listed is not None:
        rank = int((ig[available] > gain).sum()) + 1
    return {
        "question": conversation.question(question).text,
        "information_gain": gain,
        "rank": rank,
        "entropy": conversation.belief.entropy(),
        "outcomes": outcomes,
    }
