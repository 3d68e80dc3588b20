"""Shortlists with a promise: split-conformal prediction sets over the belief.

``ConformalShortlist.fit`` takes the belief (the calibrated prior, or the belief after some answers) of
held-out dev queries with their true entries and a promised coverage (say 0.9); ``entries(probs)`` then gives
the set of entries that holds the right one at least that often on exchangeable queries: every entry whose
probability is at least ``threshold`` (the "least ambiguous set" score, 1 - p(true entry); Sadinle et al.
2019), best first, never empty. The session says it in words: "very likely (90%) among the first 3".

Split conformal is a quantile of the dev scores, so it is written here with numpy (``np.quantile``,
method "higher": the ceil((n + 1)(1 - alpha)) / n quantile of the finite-sample guarantee) rather than
through MAPIE or crepes, which would wrap the belief in a scikit-learn estimator for these few lines.
"""

from __future__ import annotations

import math

import numpy as np

from assistant.errors import ConfigError


class ConformalShortlist:
    """A shortlist cut at a probability ``threshold`` fitted for ``coverage`` (see the module docstring)."""

    def __init__(self, coverage: float, threshold: float, max_size: int | None = None) -> None:
        if not 0.0 < coverage < 1.0:
            raise ConfigError(f"the promised coverage must be in (0, 1), got {coverage}")
        self.coverage = float(coverage)
        self.threshold = float(threshold)
        self.max_size = max_size

    @classmethod
    def fit(
        cls, probs: np.ndarray, labels: np.ndarray, coverage: float = 0.9, independent: int | None = None
    ) -> ConformalShortlist:
        """Fit on dev beliefs ``probs`` [N, Y] (rows sum to 1) and their true entries ``labels`` [N].

        ``independent``: how many of the N are independent draws (several vague versions of one dev query are
        not): the finite-sample correction uses it, so that the promise holds for new queries, not new versions."""
        probs = np.asarray(probs, dtype=np.float64)
        labels = np.asarray(labels, dtype=np.int64)
        n = len(labels)
        if n == 0:
            raise ConfigError("a conformal shortlist needs held-out dev queries with their entries")
        if not 0.0 < coverage < 1.0:
            raise ConfigError(f"the promised coverage must be in (0, 1), got {coverage}")
        scores = 1.0 - probs[np.arange(n), labels]
        m = min(n, independent or n)
        level = min(1.0, math.ceil((m + 1) * coverage) / m)
        q_hat = float(np.quantile(scores, level, method="higher"))
        return cls(coverage, 1.0 - q_hat)

    def sets(self, probs: np.ndarray) -> list[np.ndarray]:
        """Per belief [N, Y] (or one [Y]), the entries of its shortlist, likeliest first, never empty."""
        probs = np.atleast_2d(np.asarray(probs, dtype=np.float64))
        out = []
        for row in probs:
            order = np.argsort(-row, kind="stable")
            size = max(1, int((row >= self.threshold).sum()))
            if self.max_size is not None:
                size = min(size, self.max_size)
            out.append(order[:size])
        return out

    def size(self, probs: np.ndarray) -> int:
        """How many entries the shortlist of one belief [Y] holds ("very likely among the first 3")."""
        return len(self.sets(probs)[0])

    def to_dict(self) -> dict:
        return {"coverage": self.coverage, "threshold": self.threshold}

    @classmethod
    def from_dict(cls, data: dict) -> ConformalShortlist:
        try:
            return cls(float(data["coverage"]), float(data["threshold"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"the conformal shortlist's settings are incomplete ({exc}): run prepare") from exc


def coverage_and_size(shortlist: ConformalShortlist, probs: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    """Measured coverage (share of beliefs whose set holds the true entry) and mean / largest set size."""
    sets = shortlist.sets(probs)
    held = [int(label) in set(s.tolist()) for s, label in zip(sets, np.asarray(labels, dtype=np.int64))]
    sizes = [len(s) for s in sets]
    return {
        "coverage": float(np.mean(held)) if held else float("nan"),
        "mean_size": float(np.mean(sizes)) if sizes else float("nan"),
        "max_size": float(max(sizes)) if sizes else float("nan"),
    }


def promised_shortlist(conversation) -> tuple[list[int], str] | None:
    """(candidate positions, words) of the conformal shortlist of a conversation's first-query belief, e.g.
    ([4, 0, 7], "very likely (90%) among the first 3"); None when its clarifier's prior has no fitted shortlist
    (``assistant.app.lifecycle.calibration_jobs.calibrated`` attaches it to the calibrated prior)."""
    shortlist = getattr(conversation.clarifier.prior, "shortlist", None)
    if not isinstance(shortlist, ConformalShortlist):
        return None
    # the promise holds where it was fitted: the belief of a first query (words added to it included); after an
    # answer or a dismissal the belief is another kind of thing, and its own percentages speak for it
    if conversation.turn > 0 or conversation.dismissed.any():
        return None
    positions = shortlist.sets(conversation.probs)[0].tolist()
    n = len(positions)
    # "the first": a table or terminal list may show more rows than the promise holds ("among these 4" over 5 rows
    # read as a count of what is shown); "among the first one" read oddly
    said = "the first one" if n == 1 else f"among the first {n}"
    return positions, f"very likely ({shortlist.coverage:.0%}) {said}"
