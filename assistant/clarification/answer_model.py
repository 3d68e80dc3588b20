"""The answer model p(r | q, y): how a user who has label y in mind answers question q.

IC eq. 3: A[q, r, y] = lam * p_hat(r|q,y) + (1 - lam) * p_tilde(r|q,y), where p_hat is the smoothed
crowd (or induced) answer distribution and p_tilde(r|q,y) = softmax_r(w * S(tag(q)#r, y) + b_r) comes
from the text encoder, so that answers generalise to (question, label) pairs the crowd never annotated.
``b`` has one entry per option slot (a scalar bias would cancel in the softmax); for yes/no questions
b_yes - b_no is the user's bias towards "yes".

The whole model is one float32 array [Q, R, Y] (0 on padded options) so a turn is a few array
operations. ``answer_matrix`` is written once for numpy and torch (policy training differentiates it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from assistant.errors import ConfigError

# Likelihoods are floored so that one surprising answer can never zero out the true label.
MIN_PROB = 1e-4


def answer_matrix(p_hat, option_mask, tag_scores, lam, w, b, xp=np):
    """A = lam * p_hat + (1 - lam) * softmax_r(w * S + b) over valid options; works for numpy and torch.

    Shapes: p_hat, tag_scores [Q, R, Y]; option_mask [Q, R] bool; b [R]; lam, w scalars.
    """
    if tag_scores is None:
        return p_hat
    mask = option_mask[:, :, None]
    logits = w * tag_scores + b[None, :, None]
    if xp is np:
        logits = np.where(mask, logits, -np.inf)
        logits = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        p_tilde = e / e.sum(axis=1, keepdims=True)
    else:  # torch
        logits = logits.masked_fill(~mask, float("-inf"))
        p_tilde = xp.softmax(logits, dim=1)
    return lam * p_hat + (1 - lam) * p_tilde


@dataclass
class AnswerModel:
    """Numpy answer model with cached derived arrays.

    ``p_hat`` [Q, R, Y], ``option_mask`` [Q, R], ``tag_scores`` [Q, R, Y] or None (then lam is 1),
    ``lam`` in [0, 1], ``w`` scalar, ``b`` [R].
    """

    p_hat: np.ndarray
    option_mask: np.ndarray
    tag_scores: np.ndarray | None = None
    lam: float = 1.0
    w: float = 1.0
    b: np.ndarray | None = None
    # ``gain_matrix`` over the option slots that exist only (``gain_slots``): about five times less work where
    # yes/no questions are padded to a long facet's slots (a large FAQ's tuning rollouts, issue 33); the
    # product is then summed in another order, so the gains may differ in the last bit: off by default
    compact_gains: bool = False

    def __post_init__(self) -> None:
        self.p_hat = np.asarray(self.p_hat, dtype=np.float32)
        self.option_mask = np.asarray(self.option_mask, dtype=bool)
        q, r, _ = self.p_hat.shape
        if self.option_mask.shape != (q, r):
            raise ConfigError(f"option_mask has shape {self.option_mask.shape}, expected {(q, r)}")
        if self.tag_scores is not None and self.tag_scores.shape != self.p_hat.shape:
            raise ConfigError(f"tag_scores has shape {self.tag_scores.shape}, expected {self.p_hat.shape}")
        if not 0.0 <= self.lam <= 1.0:
            raise ConfigError(f"lambda must be in [0, 1], got {self.lam}")
        if self.tag_scores is None and self.lam != 1.0:
            raise ConfigError("lambda < 1 needs tag scores from a trained encoder (or use lam=1)")
        self.b = np.zeros(r, dtype=np.float32) if self.b is None else np.asarray(self.b, dtype=np.float32)
        self._matrix: np.ndarray | None = None
        self._gain_matrix: np.ndarray | None = None
        self._cond_entropy: np.ndarray | None = None
        self._gain_slots: np.ndarray | None = None

    @property
    def shape(self) -> tuple[int, int, int]:
        return self.p_hat.shape

    @property
    def option_counts(self) -> np.ndarray:
        return self.option_mask.sum(axis=1)

    @property
    def matrix(self) -> np.ndarray:
        """A [Q, R, Y] float32, floored at MIN_PROB on valid options and renormalised; 0 on padding."""
        if self._matrix is None:
            a = answer_matrix(self.p_hat, self.option_mask, self.tag_scores, self.lam, self.w, self.b)
            mask = self.option_mask[:, :, None]
            a = np.where(mask, np.maximum(a, MIN_PROB), 0.0)
            self._matrix = np.ascontiguousarray(a / a.sum(axis=1, keepdims=True), dtype=np.float32)
        return self._matrix

    @property
    def cond_entropy(self) -> np.ndarray:
        """H(r | q, y) [Q, Y]: how uncertain the answer is when the label is known."""
        if self._cond_entropy is None:
            a = self.matrix
            log_a = np.log(np.where(a > 0, a, 1.0))
            self._cond_entropy = np.ascontiguousarray(-(a * log_a).sum(axis=1), dtype=np.float32)
        return self._cond_entropy

    @property
    def gain_matrix(self) -> np.ndarray:
        """[Y, Q * R + Q] float32, label-major: A reshaped to [Q * R, Y] and H(r|q,y) [Q, Y], transposed and
        side by side, so that information gain needs one vector-matrix product p @ gain_matrix (label-major
        rows stream through memory faster than the question-major layout at large scale)."""
        if self._gain_matrix is None:
            q, r, y = self.shape
            rows = self.matrix.reshape(q * r, y)
            if self.compact_gains:  # [Y, V + Q]: the V option slots that exist (``gain_slots``), then H(r|q,y)
                self._gain_slots = np.flatnonzero(self.option_mask.reshape(-1))
                rows = rows[self._gain_slots]
            stacked = np.concatenate([rows, self.cond_entropy], axis=0)
            self._gain_matrix = np.ascontiguousarray(stacked.T)
        return self._gain_matrix

    @property
    def gain_slots(self) -> np.ndarray | None:
        """With ``compact_gains``: the indices into Q * R of ``gain_matrix``'s first columns; else None."""
        if self.compact_gains and self._gain_slots is None:
            self.gain_matrix  # noqa: B018 - builds both
        return self._gain_slots

    def likelihood(self, question: int, option: int, softness: float = 1.0) -> np.ndarray:
        """p(answer | y) [Y] for an answer given with confidence ``softness`` (1 = sure, 0.5 = "probably").

        A soft answer mixes the option's likelihood with the uniform one: s * A[q, r, :] + (1 - s) / R_q.
        """
        if not 0.0 <= softness <= 1.0:
            raise ConfigError(f"softness must be in [0, 1], got {softness}")
        n_options = int(self.option_mask[question].sum())
        if not 0 <= option < n_options:
            raise ConfigError(f"question {question} has {n_options} options; option {option} does not exist")
        return softness * self.matrix[question, option] + (1.0 - softness) / n_options

    def restrict(self, candidates: np.ndarray) -> AnswerModel:
        """The same model over a subset of labels (last axis)."""
        return AnswerModel(
            p_hat=self.p_hat[:, :, candidates],
            option_mask=self.option_mask,
            tag_scores=None if self.tag_scores is None else self.tag_scores[:, :, candidates],
            lam=self.lam,
            w=self.w,
            b=self.b,
            compact_gains=self.compact_gains,
        )

    def with_params(self, lam: float | None = None, w: float | None = None, b: np.ndarray | None = None) -> AnswerModel:
        return AnswerModel(
            self.p_hat,
            self.option_mask,
            self.tag_scores,
            self.lam if lam is None else lam,
            self.w if w is None else w,
            self.b if b is None else b,
            self.compact_gains,
        )
