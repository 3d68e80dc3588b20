"""The belief p(y | x_t): the posterior over candidate labels after the query and the answers so far.

IC eq. 2: log p(y|x_t) = log p(y|x0) + sum_j log p(r_j|q_j, y) - log Z, kept in log space. Answers are
stored, not folded in irreversibly: ``undo`` recomputes from the prior, so undoing gives exactly the
numbers of never having answered.

Two promises make the numbers honest after a person says "no" (issue 32):

- **A floor**: the prior is mixed with the uniform distribution at ``PRIOR_FLOOR`` per entry, so no entry is
  ever exactly 0 and a rejection always leaves a belief over the rest (the updates stay in log space).
- **A dismissal lasts**: "none of these", a rejected proposal and "not relevant" are evidence with a stated
  error rate ``DISMISS_ERROR`` (P(the person says no | it was that entry) = 0.05). Folded in as a likelihood
  alone, later weak answers could carry a dismissed entry back to the top (an overconfident prior only needs
  two of them); so a dismissal also holds the dismissed entries' share *at most* at that error rate after
  every later answer (Jeffrey's rule: the rest renormalised, their odds among themselves kept).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from assistant.errors import ConfigError, SessionStateError

# No entry's prior share is below this: the prior is mixed with the uniform one (module docstring).
PRIOR_FLOOR = 1e-9
# P(the person dismisses an entry | it was the one): "none of these", a rejection, "not relevant".
DISMISS_ERROR = 0.05


@dataclass(frozen=True)
class Evidence:
    """One answer's log-likelihood over labels ([Y] float64) and what it was (for display and undo);
    ``listed``: the positions an answer-list question listed (``assistant.clarification.answer_list``)."""

    question: int
    option: int | None
    kind: str
    log_likelihood: np.ndarray | None
    listed: tuple[int, ...] = ()
    # a dismissal: the share the ``listed`` entries keep at most, after this and every later answer
    cap: float | None = None


def normalize_log(log_p: np.ndarray) -> np.ndarray:
    return log_p - _logsumexp(log_p)


def _logsumexp(log_p: np.ndarray) -> float:
    top = float(np.max(log_p))
    return top + float(np.log(np.exp(log_p - top).sum()))


def floored(log_prior: np.ndarray, floor: float = PRIOR_FLOOR) -> np.ndarray:
    """``log_prior`` (normalised) mixed with the uniform distribution so that every entry keeps at least
    ``floor``: log((1 - Y floor) p + floor), computed in log space."""
    log_p = normalize_log(np.asarray(log_prior, dtype=np.float64))
    weight = min(floor * log_p.size, 0.5)
    return np.logaddexp(np.log1p(-weight) + log_p, np.log(weight / log_p.size))


def cap_share(log_p: np.ndarray, positions: tuple[int, ...], cap: float) -> np.ndarray:
    """A normalised log belief in which the entries at ``positions`` hold at most ``cap`` together: when they
    hold more, they are scaled down to ``cap`` and the rest up to 1 - cap (Jeffrey's rule); unchanged when
    they hold less, or when they are every entry (nothing else to believe)."""
    inside = np.zeros(log_p.size, dtype=bool)
    inside[list(positions)] = True
    if inside.all() or not inside.any():
        return log_p
    log_in, log_out = _logsumexp(log_p[inside]), _logsumexp(log_p[~inside])
    if log_in - np.logaddexp(log_in, log_out) <= np.log(cap):
        return log_p
    out = log_p.copy()
    out[inside] += np.log(cap) - log_in
    out[~inside] += np.log1p(-cap) - log_out
    return normalize_log(out)


class Belief:
    """Posterior over ``Y`` candidate labels. ``log_prior`` is [Y] (need not be normalised)."""

    def __init__(self, log_prior: np.ndarray) -> None:
        log_prior = np.asarray(log_prior, dtype=np.float64)
        if log_prior.ndim != 1 or log_prior.size == 0:
            raise ConfigError(f"log_prior must be a non-empty vector, got shape {log_prior.shape}")
        if not np.all(np.isfinite(log_prior)):
            raise ConfigError("log_prior must be finite (floor probabilities before taking logs)")
        self._given_prior = log_prior  # as given: ``replace_prior`` returns it, so that undo restores it exactly
        self.log_prior = floored(log_prior)
        self.evidence: list[Evidence] = []
        self._log_p: np.ndarray = self.log_prior.copy()  # folded in up to ``_pending``
        self._pending: list[np.ndarray] = []  # log-likelihoods of answers not folded in yet
        self._probs: np.ndarray | None = None  # exp of the posterior, once read

    # ---- state -------------------------------------------------------------------------------------
    @property
    def num_labels(self) -> int:
        return self.log_prior.size

    @property
    def given_prior(self) -> np.ndarray:
        """The log prior as given (before the floor): what a conversation restarts from."""
        return self._given_prior

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
        if any(ev.cap is not None for ev in self.evidence):
            self._recompute()  # a dismissal holds after every later answer

    def preview(self, log_likelihood: np.ndarray) -> np.ndarray:
        """[Y] the posterior one more answer with this log-likelihood would give (dismissals holding)."""
        log_p = self._log_probs + np.asarray(log_likelihood, dtype=np.float64)
        return np.exp(self._capped(normalize_log(log_p)))

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
        old, self._given_prior = self._given_prior, log_prior
        self.log_prior = floored(log_prior)
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
        self._log_probs = self._capped(log_p)

    def _capped(self, log_p: np.ndarray) -> np.ndarray:
        """``log_p`` with every dismissal's cap applied, in the order they were said."""
        for ev in self.evidence:
            if ev.cap is not None:
                log_p = cap_share(log_p, ev.listed, ev.cap)
        return log_p
