"""A plain numpy reference turn of the clarifier: the physical floor of one answer + next question.

The same arithmetic as the engine (IC eq. 2 in log space; information gain of every question from
P(r|q) = A p and the expected conditional entropy sum_y p(y) H(r|q,y)), written as directly as numpy allows:
no objects, no checks, no history, no policy. The answer model's arrays are precomputed once, as the engine
does per domain.

Shapes: A [Q, R, Y] float32 (0 on padded options), H [Q, Y] float32, log_p [Y] float64, asked [Q] bool.
"""

from __future__ import annotations

import numpy as np


class ReferenceTurn:
    """``answer(q, r)`` folds one answer into the belief; ``next_question()`` is the argmax of IG over the
    questions not yet asked."""

    def __init__(self, matrix: np.ndarray, cond_entropy: np.ndarray, log_prior: np.ndarray) -> None:
        q, r, y = matrix.shape
        self.log_a = np.log(np.where(matrix > 0, matrix, 1.0)).astype(np.float64)  # [Q, R, Y]
        self.a_flat = np.ascontiguousarray(matrix.reshape(q * r, y))  # [Q * R, Y]
        self.h = np.ascontiguousarray(cond_entropy)  # [Q, Y]
        self.shape = (q, r, y)
        self.log_p = log_prior - np.logaddexp.reduce(log_prior)
        self.asked = np.zeros(q, dtype=bool)

    def answer(self, question: int, option: int) -> None:
        self.asked[question] = True
        log_p = self.log_p + self.log_a[question, option]
        self.log_p = log_p - np.logaddexp.reduce(log_p)

    def information_gain(self) -> np.ndarray:
        q, r, _ = self.shape
        p = np.exp(self.log_p).astype(np.float32)
        answer_probs = (self.a_flat @ p).reshape(q, r)  # P(r | q)
        with np.errstate(divide="ignore", invalid="ignore"):
            h_answer = -np.where(answer_probs > 0, answer_probs * np.log(answer_probs), 0.0).sum(axis=1)
        return h_answer - self.h @ p

    def next_question(self) -> int:
        ig = self.information_gain()
        ig[self.asked] = -np.inf
        return int(np.argmax(ig))
