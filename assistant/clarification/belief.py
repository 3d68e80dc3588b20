"""The belief p(y | x_t): the posterior over candidate labels after the query and the answers so far.

IC eq. 2: log p(y|x_t) = log p(y|x0) + sum_j log p(r_j|q_j, y) - log Z, kept in log space. Answers are
stored, not folded in irreversibly: ``undo`` recomputes from the prior, so undoing gives exactly the
numbers of never having answered.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from assistant.errors import ConfigError, SessionStateError


@dataclass(frozen=True)
class Evidence:
    """One answer's log-likelihood over labels ([Y] float64) and what it was (for display and undo);
    ``listed``: the positions an answer-list question listed (``assistant.clarification.answer_list``)."""

    question: int
    option: int | None
    kind: str
    log_likelihood: np.ndarray | None
    listed: tuple[int, ...] = ()


def normalize_log(log_p: np.ndarray) -> np.ndarray:
    top = np.max(log_p)
    return log_p - (top + np.log(np.exp(log_p - top).sum()))


class Belief:
    """Posterior over ``Y`` candidate labels. ``log_prior`` is [Y] (need not be normalised)."""

    def __init__(self, log_prior: np.ndarray) -> None:
        log_prior = np.asarray(log_prior, dtype=np.float64)
        if log_prior.ndim != 1 or log_prior.size == 0:
            raise ConfigError(f"log_prior must be a non-empty vector, got shape {log_prior.shape}")
        if not np.all(np.isfinite(log_prior)):
            raise ConfigError("log_prior must be finite (floor probabilities before taking logs)")
        self.log_prior = normalize_log(log_prior)
        self.evidence: list[Evidence] = []
        self._log_p: np.ndarray = self.log_prior.copy()  # folded in up to ``_pending``
        self._pending: list[np.ndarray] = []  # log-likelihoods of answers not folded in yet
        self._probs: np.ndarray | None = None  # exp of the posterior, once read

    # ---- state -------------------------------------------------------------------------------------
    @property
    def num_labels(self) -> int:
        return self.log_prior.size

    @property
    def log_probs(self) -> np.ndarray:
        """[Y] float64 normalised log posterior."""
        return self._log_probs

    @property
    def _log_probs(self) -> np.ndarray:
        """The posterior, with the answers not folded in yet folded in now, in their order (the same arithmetic
        as folding each at once: a belief nobody reads, such as a conversation's query-free one, costs nothing)."""
        if self._pending:
            log_p = self._log_p
            for ll in self._pending:
                log_p = normalize_log(log_p + ll)
            self._log_p, self._pending = log_p, []
        return self._log_p

    @_log_probs.setter
    def _log_probs(self, value: np.ndarray) -> None:
        self._log_p, self._pending, self._probs = value, [], None

    @property
    def probs(self) -> np.ndarray:
        """[Y] float64 posterior: one read-only array per state of the belief, computed once (a turn reads it
        several times; ``assistant.clarification.questions.information_gain`` keeps the gains of the last one)."""
        probs = self._probs
        if probs is None:
            probs = np.exp(self._log_probs)
            probs.flags.writeable = False
            self._probs = probs
        return probs

    def entropy(self) -> float:
        p = self.probs
        return float(-(p * self._log_probs).sum())

    def top_k(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(indices, probabilities) of the k most likely labels, most likely first (ties: lower index)."""
        k = min(k, self.num_labels)
        order = np.lexsort((np.arange(self.num_labels), -self._log_probs))[:k]
        return order, np.exp(self._log_probs[order])

    # ---- updates -----------------------------------------------------------------------------------
    def update(self, evidence: Evidence) -> None:
        """Fold in one answer. Evidence without a likelihood ("not sure", "not visible") is only recorded."""
        if evidence.log_likelihood is not None:
            ll = np.asarray(evidence.log_likelihood, dtype=np.float64)
            if ll.shape != (self.num_labels,):
                raise ConfigError(f"likelihood has shape {ll.shape}, expected ({self.num_labels},)")
            self._pending.append(ll)
            self._probs = None
        self.evidence.append(evidence)

    def undo(self) -> Evidence:
        """Remove the last answer; the posterior is recomputed from the prior (exact)."""
        if not self.evidence:
            raise SessionStateError("there is no answer to undo")
        last = self.evidence.pop()
        self._recompute()
        return last

    def replace_prior(self, log_prior: np.ndarray) -> np.ndarray:
        """Start from another prior (the person said more), keeping every answer; returns the old prior."""
        log_prior = np.asarray(log_prior, dtype=np.float64)
        if log_prior.shape != self.log_prior.shape or not np.all(np.isfinite(log_prior)):
            raise ConfigError(f"a new prior must be a finite vector of {self.num_labels} log-probabilities")
        old, self.log_prior = self.log_prior, normalize_log(log_prior)
        self._recompute()
        return old

    def remove(self, evidence: Evidence) -> None:
        """Take back one particular piece of evidence (not necessarily the last); recomputed from the prior."""
        for i, ev in enumerate(self.evidence):
            if ev is evidence:
                del self.evidence[i]
                self._recompute()
                return
        raise SessionStateError("that evidence is not part of this belief")

    def _recompute(self) -> None:
        log_p = self.log_prior.copy()
        for ev in self.evidence:
            if ev.log_likelihood is not None:
                log_p = normalize_log(log_p + ev.log_likelihood)
        self._log_probs = log_p
