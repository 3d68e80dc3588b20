"""Stop rules: decide, after each answer, whether to ask another question or stop and show the shortlist.

- ``LearnedPolicy``: IC's STOP/ASK network (models.policy_net), trained against the simulator
  (assistant.training.policy).
- ``ThresholdStop``: stop once the most likely label reaches a probability threshold.
- ``FixedTurns``: always ask exactly k questions.

Every rule also stops at ``max_turns`` or when no question is left (the clarifier enforces that). A
domain may add the compare-only-when-covered rule (``shortlist_coverage``, ``ClarifierConfig.coverage``:
keep asking while the shortlist is unlikely to hold the answer), but only where its dev figures show that
it beats the learned policy alone (``assistant.evaluation.clarifier.tune_coverage``): the policy sees the
shortlist's mass itself and learns when it is worth another question.
"""

from __future__ import annotations

import math
from typing import Protocol

import numpy as np

from assistant.errors import ConfigError
from assistant.settings import PACES  # said once, light for the command line (issue 33)
from models.policy_net import STOP, StopPolicyNet

# The state carries, besides the top-k probabilities and the turn, what makes stopping right or wrong on
# a vague query: how spread the belief is (its entropy), what the best remaining question would still
# bring (its expected information gain), and how likely the shortlist a person then compares holds the
# answer (the mass of the ``SHORTLIST_MASS_SIZE`` most likely labels: what the compare-only-when-covered
# rule looks at). Without them a flat top-k after a vague query and one after an answered question look
# alike, and the policy could not learn what the coverage rule used to impose.
# A question whose expected information gain is below this (nats) is not informative: asking it cannot
# change the ranking in a way worth a person's time.
MIN_INFORMATIVE_GAIN = 0.01
# The shortlist whose probability mass the policy sees: the session's comparison phase (its default size).
SHORTLIST_MASS_SIZE = 5


# Paces. The cost of a question is a product choice (issue 10), and the only thing a pace sets (issue 28): "quick" is
# IC's r_a = -1 per question (a question is worth asking when it adds 1/30 of the +20/-10 reward swing, 3.3
# points of Acc@1); "thorough" asks while a question adds about 1 point (r_a = -0.3). Each pace has its own
# policy, which learns that trade-off. quick is the bound: no pace values a question less, and no cap on the
# mean number of questions makes a question dearer (the old caps, 4.5 and 6, raised birds' quick cost to -1.77).
# ``DEFAULT_PACE``: each bundled domain's, chosen on its dev queries: thorough where its extra questions buy at
# least 2 points of Acc@1 each on dev vague queries (``benchmarks/bench_policy.py``, docs/policy.md).
PACE_TURN_REWARD = {"quick": -1.0, "thorough": -0.3}
PACE_TURN_BUDGET: dict[str, float | None] = {"quick": None, "thorough": None}
DEFAULT_PACE = {"birds": "quick", "faq": "thorough", "banking": "quick", "clinc": "quick"}


def default_pace(domain: str) -> str:
    """The pace a domain's sessions and evaluations use unless told otherwise."""
    return DEFAULT_PACE.get(domain, "quick")


def check_pace(pace: str) -> str:
    """``pace`` itself if it is one of ``PACES``; a ConfigError (the user's) that names them otherwise."""
    if pace not in PACES:
        raise ConfigError(f"unknown pace {pace!r}: use one of {', '.join(PACES)}")
    return pace


def policy_features(probs, turn, max_turns: int, top_k: int = 20, best_gain=0.0, xp=np):
    """[..., top_k + 4] float32: the top-k probabilities (descending, zero-padded), the belief's entropy
    over log Y, the best remaining question's expected information gain in bits, the mass of the
    ``SHORTLIST_MASS_SIZE`` most likely labels, and turn / max_turns.

    One source for numpy (``xp=np``: one belief or an array of them, ``turn`` and ``best_gain`` scalars or
    arrays) and torch (``xp=torch``: a batch [B, Y], ``turn`` an int, ``best_gain`` [B] or a scalar); the
    tests check they agree.
    """
    if xp is not np:
        n = probs.shape[1]
        k = min(top_k, n)
        top = xp.topk(probs, k, dim=1).values
        pad = probs.new_zeros(probs.shape[0], top_k - k)
        entropy = -(probs * xp.log(probs.clamp_min(1e-30))).sum(dim=1, keepdim=True) / max(math.log(n), 1e-12)
        gain = xp.as_tensor(best_gain, dtype=probs.dtype).expand(probs.shape[0]).reshape(-1, 1) / math.log(2.0)
        size = min(SHORTLIST_MASS_SIZE, n)
        mass = (top[:, :size] if size <= k else xp.topk(probs, size, dim=1).values).sum(dim=1, keepdim=True)
        turn_col = probs.new_full((probs.shape[0], 1), turn / max_turns)
        return xp.cat([top, pad, entropy, gain, mass, turn_col], dim=1)
    probs = np.asarray(probs, dtype=np.float32)
    if probs.ndim == 1:
        return _features_of_one(probs, turn, max_turns, top_k, best_gain)
    n = probs.shape[-1]
    k = min(top_k, n)
    top = np.partition(probs, n - k, axis=-1)[..., n - k :] if k < n else probs
    top = -np.sort(-top, axis=-1)
    pad = np.zeros((*probs.shape[:-1], top_k - k), dtype=np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(probs > 0, probs * np.log(np.maximum(probs, 1e-30)), 0.0)
    entropy = (-plogp.sum(axis=-1) / max(math.log(n), 1e-12))[..., None]
    gain = np.broadcast_to(np.asarray(best_gain, dtype=np.float32) / math.log(2.0), probs.shape[:-1])[..., None]
    size = min(SHORTLIST_MASS_SIZE, n)
    ranked = top if size <= k else -np.sort(-probs, axis=-1)
    mass = ranked[..., :size].sum(axis=-1, dtype=np.float32)[..., None]
    turn_feature = np.broadcast_to(np.asarray(turn, dtype=np.float32) / max_turns, probs.shape[:-1])[..., None]
    return np.concatenate([top, pad, entropy, gain, mass, turn_feature], axis=-1).astype(np.float32)


def _features_of_one(probs: np.ndarray, turn, max_turns: int, top_k: int, best_gain) -> np.ndarray:
    """``policy_features`` of one belief [Y] float32, the same numbers with a fraction of the array calls (a
    conversation's turn pays for them; tests/assistant/clarification/test_stopping.py checks they agree)."""
    n = probs.size
    k = min(top_k, n)
    top = np.partition(probs, n - k)[n - k :] if k < n else probs
    top = -np.sort(-top)
    x = np.zeros(top_k + 4, dtype=np.float32)
    x[:k] = top
    plogp = np.maximum(probs, 1e-30)  # p = 0 gives 0 * log(1e-30) = -0.0: the sum is the same
    np.log(plogp, out=plogp)
    np.multiply(probs, plogp, out=plogp)
    x[top_k] = -plogp.sum() / max(math.log(n), 1e-12)
    x[top_k + 1] = np.asarray(best_gain, dtype=np.float32) / math.log(2.0)
    size = min(SHORTLIST_MASS_SIZE, n)
    ranked = top if size <= k else -np.sort(-probs)
    x[top_k + 2] = ranked[:size].sum(dtype=np.float32)
    x[top_k + 3] = np.asarray(turn, dtype=np.float32) / max_turns
    return x


# Labels still in question: at least this share of the likeliest one's belief; one of them dominates when it
# holds this share of their mass (assistant.clarification.comparison_plan).
CONSIDERED_SHARE = 0.1
DOMINANT_SHARE = 0.8


def considered_labels(probs: np.ndarray, eligible: np.ndarray, limit: int) -> tuple[list[int], bool]:
    """(positions, dominant): the at most ``limit`` likeliest ``eligible`` labels that hold at least
    ``CONSIDERED_SHARE`` of the likeliest one's belief, most likely first, and whether the first holds
    ``DOMINANT_SHARE`` of their mass (rules 2-4 of the module docstring, on a belief [Y])."""
    probs = np.asarray(probs, dtype=np.float64)
    order = [int(i) for i in np.lexsort((np.arange(probs.size), -probs)) if eligible[i]][:limit]
    if not order:
        return [], False
    kept = [i for i in order if probs[i] >= CONSIDERED_SHARE * probs[order[0]]]
    dominant = len(kept) > 1 and probs[kept[0]] >= DOMINANT_SHARE * probs[kept].sum()
    return kept, dominant


def shortlist_coverage(probs: np.ndarray, size: int) -> float:
    """P(the answer is in the shortlist) under the belief: the mass of the ``size`` most likely labels."""
    probs = np.asarray(probs, dtype=np.float64)
    if size >= probs.size:
        return float(probs.sum())
    return float(np.partition(probs, probs.size - size)[probs.size - size :].sum())


class StopRule(Protocol):
    name: str

    def should_stop(self, probs: np.ndarray, turn: int, max_turns: int, best_gain: float = 0.0) -> bool: ...


class ThresholdStop:
    """Stop when max_y p(y) >= threshold."""

    name = "threshold"

    def __init__(self, threshold: float = 0.5) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ConfigError(f"threshold must be in (0, 1], got {threshold}")
        self.threshold = threshold

    def should_stop(self, probs: np.ndarray, turn: int, max_turns: int, best_gain: float = 0.0) -> bool:
        return bool(np.max(probs) >= self.threshold)


class FixedTurns:
    """Ask exactly ``turns`` questions (0 = no interaction)."""

    name = "fixed_turns"

    def __init__(self, turns: int) -> None:
        if turns < 0:
            raise ConfigError(f"turns must be >= 0, got {turns}")
        self.turns = turns

    def should_stop(self, probs: np.ndarray, turn: int, max_turns: int, best_gain: float = 0.0) -> bool:
        return turn >= self.turns


class LearnedPolicy:
    """Greedy use of a trained StopPolicyNet: stop when P(STOP | features) > 0.5.

    The network's two layers are copied to numpy so that a decision costs microseconds.
    """

    name = "policy"

    def __init__(self, net: StopPolicyNet) -> None:
        self.net = net
        self.top_k = net.top_k
        first, last = net.hidden_layer, net.output_layer
        self._w1 = first.weight.detach().numpy().astype(np.float32).T.copy()
        self._b1 = first.bias.detach().numpy().astype(np.float32).copy()
        self._w2 = last.weight.detach().numpy().astype(np.float32).T.copy()
        self._b2 = last.bias.detach().numpy().astype(np.float32).copy()

    def stop_probability(self, probs: np.ndarray, turn: int, max_turns: int, best_gain: float = 0.0) -> float:
        x = policy_features(probs, turn, max_turns, self.top_k, best_gain)
        hidden = x @ self._w1
        hidden += self._b1
        np.tanh(hidden, out=hidden)
        e = hidden @ self._w2
        e += self._b2
        e -= e.max()
        np.exp(e, out=e)
        return float(e[STOP] / e.sum())

    def should_stop(self, probs: np.ndarray, turn: int, max_turns: int, best_gain: float = 0.0) -> bool:
        return self.stop_probability(probs, turn, max_turns, best_gain) > 0.5
