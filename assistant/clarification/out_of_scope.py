"""Out of scope as a hypothesis the belief carries: "none of these labels".

The belief over the Y labels (IC eq. 2) is joined by one more hypothesis, o = "the query is out of scope",
with its own prior and its own answer likelihoods:

- prior: log-odds P(o | x0) / P(not o | x0) = bias + weights . f(p(y|x0)), where f are features of the
  prior's uncertainty over the labels (``prior_features``: the top probability, the normalised entropy, the
  margin between the two most likely labels), a logistic regression (scikit-learn) fitted on dev queries and
  the dev out-of-scope queries (``fit_prior``);
- answers: a person whose query is out of scope answers "something else" to a multiple-choice question and
  "no" to a yes/no question with probability ``other_prob``, any other option with the rest spread evenly.

The posterior log-odds after answers r_1..r_t is exact (the joint over Y + 1 hypotheses):

    log P(o | x, r) / P(not o | x, r) = prior log-odds + sum_j log P(r_j | o) - log sum_y p(y|x0) prod_j P(r_j|y)

so it needs no state of its own: undoing an answer or adding words recomputes it from the belief. A
conversation stops with "out of scope" once it reaches ``threshold``, and keeps asking while it is at least
``doubt`` and an informative question is left (clarification.conversation). "Something else" is an answer,
not a verdict: "nothing fits" needs ``ANSWERS_BEFORE_VERDICT`` answers while a question can still tell (the
first facet may simply not offer the person's verb), and no label may hold ``LABEL_KEEPS`` of the belief in
scope (a person told "nothing fits" beside "did you mean X (96%)" is shown X instead). On faq's dev replay
(vague mix and dev out-of-scope queries, the hypothesis tuned before these rules) they moved in-scope accuracy
from 0.848 to 0.904 and out-of-scope recall from 0.927 to 0.887 (docs/endgame.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from assistant.errors import ConfigError
from assistant.store import BINARY_OPTIONS, SOMETHING_ELSE, Question

NUM_FEATURES = 3
# "Nothing fits" only after this many answers while an informative question is left, and only while no label
# holds this share of the belief in scope (module docstring).
ANSWERS_BEFORE_VERDICT = 2
LABEL_KEEPS = 0.5


def verdict_allowed(answers: int, informative: bool, top_in_scope: float) -> bool:
    """Whether "nothing fits" may end a conversation now (module docstring), whatever the hypothesis says:
    ``top_in_scope`` is the likeliest label's share of the belief in scope."""
    if informative and answers < ANSWERS_BEFORE_VERDICT:
        return False
    return top_in_scope < LABEL_KEEPS


def prior_features(log_probs: np.ndarray) -> np.ndarray:
    """[..., 3] float64: top probability, entropy / log Y, top1 - top2 of a (normalised) prior [..., Y]."""
    log_probs = np.asarray(log_probs, dtype=np.float64)
    probs = np.exp(log_probs - log_probs.max(axis=-1, keepdims=True))
    probs /= probs.sum(axis=-1, keepdims=True)
    n = probs.shape[-1]
    top2 = -np.sort(-probs, axis=-1)[..., :2] if n > 1 else np.concatenate([probs, np.zeros_like(probs)], axis=-1)
    entropy = -(probs * np.log(np.maximum(probs, 1e-30))).sum(axis=-1) / max(math.log(n), 1e-12)
    return np.stack([top2[..., 0], entropy, top2[..., 0] - top2[..., 1]], axis=-1)


def other_option(question: Question) -> int | None:
    """The option an out-of-scope person gives: "something else", or "no"; None when there is neither."""
    if question.kind == "binary":
        return BINARY_OPTIONS.index("no")
    return question.options.index(SOMETHING_ELSE) if SOMETHING_ELSE in question.options else None


def out_of_scope_answers(questions: Sequence[Question], num_options: int, other_prob: float) -> np.ndarray:
    """P(r | q, out of scope) [Q, R] float64 (0 on padded options): ``other_prob`` on "something else" / "no",
    the rest spread evenly over the other options (uniform when a question has neither)."""
    if not 0.0 < other_prob < 1.0:
        raise ConfigError(f"other_prob must be in (0, 1), got {other_prob}")
    table = np.zeros((len(questions), num_options), dtype=np.float64)
    for q, question in enumerate(questions):
        n = len(question.options)
        other = other_option(question)
        if other is None:
            table[q, :n] = 1.0 / n
        else:
            table[q, :n] = (1.0 - other_prob) / (n - 1)
            table[q, other] = other_prob
    return table


@dataclass(frozen=True)
class OutOfScopeModel:
    """The out-of-scope hypothesis (see the module docstring); ``weights`` match ``prior_features``."""

    weights: tuple[float, float, float]
    bias: float
    other_prob: float = 0.8
    threshold: float = 0.5
    doubt: float = 0.2

    def __post_init__(self) -> None:
        if len(self.weights) != NUM_FEATURES:
            raise ConfigError(f"an out-of-scope model needs {NUM_FEATURES} weights, got {len(self.weights)}")
        if not 0.0 < self.other_prob < 1.0:
            raise ConfigError(f"other_prob must be in (0, 1), got {self.other_prob}")
        if not 0.0 < self.threshold <= 1.0 or not 0.0 <= self.doubt <= self.threshold:
            raise ConfigError(f"need 0 <= doubt <= threshold <= 1, got doubt {self.doubt}, threshold {self.threshold}")

    def prior_log_odds(self, log_probs: np.ndarray) -> np.ndarray | float:
        """Log-odds of out of scope before any answer, from the prior over the labels [..., Y]."""
        value = prior_features(log_probs) @ np.asarray(self.weights, dtype=np.float64) + self.bias
        return float(value) if np.ndim(value) == 0 else value

    def answer_table(self, questions: Sequence[Question], num_options: int) -> np.ndarray:
        """P(r | q, out of scope) [Q, R]."""
        return out_of_scope_answers(questions, num_options, self.other_prob)

    def posterior_log_odds(self, log_prior: np.ndarray, answers: Sequence[tuple[np.ndarray, float]]) -> float:
        """Log-odds that the query is out of scope after ``answers`` (module docstring): the prior's, plus each
        answer's log P(r | out of scope) minus the log marginal likelihood of the answers in scope.

        ``log_prior`` [Y]: the prior over the labels (normalised); ``answers``: per answer that picked an
        option, (its log-likelihood over the labels [Y], its log-likelihood out of scope).
        """
        in_scope = np.array(log_prior, dtype=np.float64)
        out = 0.0
        for in_scope_log_likelihood, out_log_likelihood in answers:
            in_scope += in_scope_log_likelihood
            out += out_log_likelihood
        top = in_scope.max()
        in_scope_marginal = top + math.log(np.exp(in_scope - top).sum())
        return float(self.prior_log_odds(log_prior)) + out - in_scope_marginal

    def to_dict(self) -> dict:
        return {**asdict(self), "weights": list(self.weights)}

    @classmethod
    def from_dict(cls, data: dict) -> OutOfScopeModel:
        try:
            return cls(
                weights=tuple(float(w) for w in data["weights"]),  # type: ignore[arg-type]
                bias=float(data["bias"]),
                other_prob=float(data["other_prob"]),
                threshold=float(data["threshold"]),
                doubt=float(data["doubt"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"the out-of-scope model's settings are incomplete ({exc}): tune them again") from exc


def fit_prior(
    in_scope_log_probs: np.ndarray, out_of_scope_log_probs: np.ndarray, l2: float = 1e-2, iterations: int = 50
) -> tuple[tuple[float, float, float], float]:
    """(weights, bias) of the prior's logistic regression, classes weighted equally (the share of out-of-scope
    queries a desk will see is unknown; the threshold carries the trade-off).

    Minimises sum_i w_i log-loss_i + l2 / 2 |weights|^2 with class weights w_i summing to 1/2 per class and the
    bias unpenalised: scikit-learn's objective C sum_i w_i log-loss_i + 1/2 |weights|^2 with C = 1 / l2, solved by
    Newton's method (solver newton-cholesky leaves the intercept unpenalised; liblinear would not).

    ``in_scope_log_probs`` [N, Y], ``out_of_scope_log_probs`` [M, Y]: the prior's log-probabilities of dev
    queries with a label and of dev queries without one.
    """
    from sklearn.linear_model import LogisticRegression  # imported here: only tuning fits, a conversation never

    if len(in_scope_log_probs) == 0 or len(out_of_scope_log_probs) == 0:
        raise ConfigError("fitting the out-of-scope prior needs queries with a label and queries without one")
    x = np.concatenate([prior_features(in_scope_log_probs), prior_features(out_of_scope_log_probs)])
    y = np.concatenate([np.zeros(len(in_scope_log_probs)), np.ones(len(out_of_scope_log_probs))])
    sample_weight = np.where(y == 1, 0.5 / y.sum(), 0.5 / (1 - y).sum())
    regression = LogisticRegression(
        C=1.0 / l2 if l2 > 0 else np.inf, solver="newton-cholesky", tol=1e-10, max_iter=iterations
    )
    regression.fit(x, y, sample_weight=sample_weight)
    weights = regression.coef_[0]
    return (float(weights[0]), float(weights[1]), float(weights[2])), float(regression.intercept_[0])
