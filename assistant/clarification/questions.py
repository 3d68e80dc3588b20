"""Question selection: which question to ask next.

Information gain (IC 4.2) of question q under belief p(y):

    IG(q) = H(r | q) - sum_y p(y) H(r | q, y)
    P(r | q) = sum_y A[q, r, y] p(y)

which equals H(y) - E_r[H(y | q, r)] (the expected drop in entropy of the belief). Computed for all
questions at once with one vector-matrix product (see ``AnswerModel.gain_matrix``).

Strategies: ``InformationGainQuestions`` (conditions on the query and all answers),
``StaticInformationGainQuestions`` (IC's query-free baseline: IG under the belief that ignores the initial
query) and ``RandomQuestions``.

The same formula serves one belief in numpy (a conversation) and a batch of beliefs in torch (policy
training, ``batch_information_gain``): ``information_gain_from`` is their one source.

At thousands of labels a conversation's gains are computed over the labels that can still matter
(``likely_labels``: the fewest that hold all but ``NEGLIGIBLE_MASS`` of the belief, renormalised), so that a
turn costs what it costs at the size of that set (issue 42). Below ``FLOOR_MIN_LABELS`` labels, and where the
floor would keep most of them, the gains are the exact ones over every label, as before.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from assistant.clarification.answer_model import AnswerModel


def information_gain_from(answer_probs, expected_cond_entropy, xp=np):
    """IG [..., Q] = H(P(r|q)) - sum_y p(y) H(r|q,y), from P(r|q) [..., Q, R] and the expected conditional
    entropy [..., Q]; for numpy (``xp=np``) and torch (``xp=torch``) alike."""
    if xp is np:
        answer_entropy = -_plogp(answer_probs).sum(axis=-1)
    else:
        answer_entropy = -(answer_probs * xp.log(answer_probs.clamp_min(1e-12))).sum(dim=-1)
    return answer_entropy - expected_cond_entropy


def _plogp(p: np.ndarray) -> np.ndarray:
    """p log p elementwise, 0 where p = 0 (one log and one product, no temporaries for the zeros)."""
    out = np.zeros_like(p)
    np.log(p, out=out, where=p > 0)
    return np.multiply(p, out, out=out)


# The belief mass a conversation's gains may leave out: the gains of a belief that gives the left-out labels
# together less than this differ from the exact ones by about as much (the entropies move by O(mass log mass)).
NEGLIGIBLE_MASS = 1e-4
# The floor pays only where the product over every label costs something (and the bundled domains, with at most
# 200 labels, keep their exact gains and figures).
FLOOR_MIN_LABELS = 500


def likely_labels(probs: np.ndarray, negligible: float = NEGLIGIBLE_MASS) -> np.ndarray:
    """[Y] bool: the labels a belief holds likely: every label but the least likely ones whose mass together stays
    below ``negligible`` (ties at the cut are kept)."""
    probs = np.asarray(probs)
    order = np.argsort(probs, kind="stable")
    below = np.cumsum(probs[order], dtype=np.float64) < negligible
    cut = probs[order[np.count_nonzero(below)]] if not below.all() else np.inf
    return probs >= cut


def _floored(probs: np.ndarray) -> np.ndarray | None:
    """The labels to compute a conversation's gains over, or None for all of them (small domains, flat beliefs)."""
    if probs.ndim != 1 or probs.shape[0] < FLOOR_MIN_LABELS:
        return None
    keep = np.flatnonzero(likely_labels(probs))
    return keep if 0 < len(keep) <= probs.shape[0] // 2 else None  # the rows' gather costs about their product


# The gains of the last belief asked about: a turn reads them for the stop rule's features, the question
# choice and the answer-list comparison. Only a read-only belief is remembered (``Belief.probs``: one array per
# state, never changed in place), held by reference so that its identity cannot be reused while it is here.
_last_gains: tuple[AnswerModel, np.ndarray, np.ndarray, np.ndarray] | None = None


def information_gain(model: AnswerModel, probs: np.ndarray) -> np.ndarray:
    """IG [Q] float32 of every question under one belief ``probs`` [Y] (nats), in one vector-matrix product.
    The result is read-only (it may be the one of the previous call with the same read-only ``probs``)."""
    global _last_gains
    last = _last_gains
    gain_matrix = model.gain_matrix
    if last is not None and last[0] is model and last[1] is gain_matrix and last[2] is probs:
        return last[3]
    q, r, _ = model.shape
    belief = np.asarray(probs, dtype=np.float32)
    keep = _floored(belief)
    if keep is None:
        both = belief @ gain_matrix
    else:  # the likely labels' rows only, their belief renormalised (the module docstring)
        kept = belief[keep]
        both = (kept / kept.sum()) @ gain_matrix[keep]
    slots = model.gain_slots
    if slots is None:
        answer_probs = both[: q * r].reshape(q, r)  # P(r|q)
        expected_cond_entropy = both[q * r :]  # sum_y p(y) H(r|q,y)
    else:  # the option slots that exist only (``AnswerModel.compact_gains``); 0 on the padding
        answer_probs = np.zeros(q * r, dtype=both.dtype)
        answer_probs[slots] = both[: len(slots)]
        answer_probs = answer_probs.reshape(q, r)
        expected_cond_entropy = both[len(slots) :]
    gains = information_gain_from(answer_probs, expected_cond_entropy).astype(np.float32)
    gains.flags.writeable = False
    if isinstance(probs, np.ndarray) and not probs.flags.writeable:
        _last_gains = (model, gain_matrix, probs, gains)
    return gains


def batch_information_gain(a, cond_entropy, probs, xp=np):
    """IG [B, Q] for a batch of beliefs ``probs`` [B, Y]; ``a`` [Q, R, Y], ``cond_entropy`` [Q, Y] = H(r|q,y)."""
    q, r, y = a.shape
    answer_probs = (probs @ a.reshape(q * r, y).T).reshape(-1, q, r)
    return information_gain_from(answer_probs, probs @ cond_entropy.T, xp)


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


class InformationGainQuestions:
    """Ask the question with the highest information gain under the current belief."""

    name = "ig"

    def select(self, model: AnswerModel, context: QuestionContext, rng: np.random.Generator) -> int:
        return _best(information_gain(model, context.probs), context.available)


class StaticInformationGainQuestions:
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


STRATEGIES = {
    "ig": InformationGainQuestions,
    "static_ig": StaticInformationGainQuestions,
    "random": RandomQuestions,
}
