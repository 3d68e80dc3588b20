"""Question selection: which question to ask next.

Information gain (IC 4.2) of question q under belief p(y):

    IG(q) = H(r | q) - sum_y p(y) H(r | q, y)
    P(r | q) = sum_y A[q, r, y] p(y)

which equals H(y) - E_r[H(y | q, r)] (the expected drop in entropy of the belief). Computed for all
questions at once with one vector-matrix product (see ``AnswerModel.gain_matrix``).

Strategies: ``InformationGain`` (conditions on the query and all answers), ``StaticInformationGain``
(IC's query-free baseline: IG under the belief that ignores the initial query) and ``RandomQuestions``.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from assistant.answer_model import AnswerModel


def information_gain(model: AnswerModel, probs: np.ndarray) -> np.ndarray:
    """IG [Q] float32 of every question under belief ``probs`` [Y] (nats)."""
    q, r, _ = model.shape
    both = np.asarray(probs, dtype=np.float32) @ model.gain_matrix
    answer_probs = both[: q * r].reshape(q, r)  # P(r|q)
    expected_cond_entropy = both[q * r :]  # sum_y p(y) H(r|q,y)
    with np.errstate(divide="ignore", invalid="ignore"):
        answer_entropy = -np.where(answer_probs > 0, answer_probs * np.log(answer_probs), 0.0).sum(axis=1)
    return (answer_entropy - expected_cond_entropy).astype(np.float32)


def answer_distribution(model: AnswerModel, probs: np.ndarray, question: int) -> np.ndarray:
    """P(r | q) [R] for one question (0 on padded options)."""
    return model.matrix[question] @ np.asarray(probs, dtype=np.float32)


class QuestionContext(Protocol):
    """What a strategy may look at: the posterior with and without the query, and which questions remain."""

    @property
    def probs(self) -> np.ndarray: ...

    @property
    def query_free_probs(self) -> np.ndarray: ...

    @property
    def available(self) -> np.ndarray: ...


class Strategy(Protocol):
    name: str

    def select(self, model: AnswerModel, context: QuestionContext, rng: np.random.Generator) -> int: ...


def _best(scores: np.ndarray, available: np.ndarray) -> int:
    """Index of the highest score among available questions (ties: lowest index)."""
    masked = np.where(available, scores, -np.inf)
    return int(np.argmax(masked))


class InformationGain:
    """Ask the question with the highest information gain under the current belief."""

    name = "ig"

    def select(self, model: AnswerModel, context: QuestionContext, rng: np.random.Generator) -> int:
        return _best(information_gain(model, context.probs), context.available)


class StaticInformationGain:
    """IG under the belief that ignores the initial query (prior uniform, answers still count)."""

    name = "static_ig"

    def select(self, model: AnswerModel, context: QuestionContext, rng: np.random.Generator) -> int:
        return _best(information_gain(model, context.query_free_probs), context.available)


class RandomQuestions:
    """A uniformly random question among those still available."""

    name = "random"

    def select(self, model: AnswerModel, context: QuestionContext, rng: np.random.Generator) -> int:
        choices = np.flatnonzero(context.available)
        return int(rng.choice(choices))


STRATEGIES = {"ig": InformationGain, "static_ig": StaticInformationGain, "random": RandomQuestions}
