"""The combined prior: a text prior joined with the evidence of the tags a query mentions."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.special import logsumexp

from assistant.errors import ConfigError
from assistant.priors.base import Prior, log_softmax
from assistant.priors.mentions import MentionDetector


class CombinedPrior:
    """A text prior for labels with training queries, joined with the evidence of tag mentions.

    ``mentions`` [N, Y] is the log-likelihood of what each query says about the tags
    (assistant.priors.mentions), available for every annotated label; ``text_prior`` was trained on queries and
    can only rank labels it saw queries for (``seen``). The result, as log p(y | x):

    - the split between seen and unseen labels comes from the mentions alone, which treat every label
      alike: pi(x) = sum over seen y of softmax(beta * mentions)(y) (with no mention, pi = share of
      seen labels: every label is a priori equally likely);
    - within the seen labels: softmax(text scores + beta * mentions);
    - within the unseen labels: softmax(beta * mentions).

    When every label has training queries this is softmax(text scores + beta * mentions).
    """

    name = "combined"

    def __init__(
        self, text_prior: Prior, detector: MentionDetector, log_answers: np.ndarray, seen: np.ndarray, beta: float
    ) -> None:
        if beta < 0:
            raise ConfigError(f"the mention weight beta must be >= 0, got {beta}")
        self.text_prior = text_prior
        self.detector = detector
        self.log_answers = log_answers  # [Q, R, Y] log A scoring the mentions
        self.seen = np.asarray(seen, dtype=bool)
        self.beta = float(beta)

    def mentioned(self, text: str) -> list[tuple[int, int]]:
        """(question, option) pairs the query already answers (the clarifier does not ask them again)."""
        return [(m.question, m.option) for m in self.detector.detect(text)]

    def scores(self, texts: Sequence[str]) -> np.ndarray:
        return self.combine(self.text_prior.scores(texts), self.detector.evidence(texts, self.log_answers))

    def combine(self, text_scores: np.ndarray, mentions: np.ndarray) -> np.ndarray:
        """[N, Y] float32 log p(y | x) from the text prior's scores [N, Y] and the mentions' log-likelihood
        [N, Y] (before beta): what ``scores`` does once both are computed."""
        text = np.asarray(text_scores, dtype=np.float64)
        evidence = self.beta * np.asarray(mentions, dtype=np.float64)
        if self.seen.all() or not self.seen.any():
            return (text + evidence).astype(np.float32)
        by_mentions = log_softmax(evidence)
        out = np.empty_like(text)
        seen, unseen = self.seen, ~self.seen
        out[:, seen] = logsumexp(by_mentions[:, seen], axis=1)[:, None] + log_softmax(text[:, seen] + evidence[:, seen])
        out[:, unseen] = logsumexp(by_mentions[:, unseen], axis=1)[:, None] + log_softmax(evidence[:, unseen])
        return out.astype(np.float32)

    def with_beta(self, beta: float) -> CombinedPrior:
        return CombinedPrior(self.text_prior, self.detector, self.log_answers, self.seen, beta)


def fit_mention_weight(
    prior: CombinedPrior,
    texts: Sequence[str],
    labels: np.ndarray,
    grid: Sequence[float] = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5),
) -> tuple[float, dict[float, float]]:
    """The beta in ``grid`` with the lowest mean negative log-likelihood of ``labels`` (dev queries).

    The text scores and the mentions of ``texts`` are computed once; each beta only recombines them.
    Returns (best beta, {beta: NLL}).
    """
    text = prior.text_prior.scores(texts)
    mentions = prior.detector.evidence(texts, prior.log_answers)
    rows = np.arange(len(labels))
    nll = {}
    for beta in grid:
        log_p = log_softmax(np.asarray(prior.with_beta(beta).combine(text, mentions), dtype=np.float64))
        nll[float(beta)] = float(-log_p[rows, labels].mean())
    best = min(nll, key=lambda b: (nll[b], b))
    return best, nll
