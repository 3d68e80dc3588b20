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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from assistant.errors import ConfigError
from assistant.settings import PACES  # said once, light for the command line (issue 33)
from models.policy_actions import EXTRA_INPUTS, STOP

if TYPE_CHECKING:  # torch only where a network is trained or built (serving reads the weights as arrays)
    from models.policy_net import StopPolicyNet

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


@dataclass(frozen=True)
class PolicyWeights:
    """The STOP/ASK network's two layers as float32 arrays (``models.policy_net.StopPolicyNet`` transposed for
    ``x @ w``): ``w1`` [top_k + 4, H], ``b1`` [H], ``w2`` [H, 2], ``b2`` [2]."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    @classmethod
    def of_net(cls, net: StopPolicyNet) -> PolicyWeights:
        first, last = net.hidden_layer, net.output_layer
        weight1, bias1 = first.weight.detach().numpy(), first.bias.detach().numpy()
        return cls.from_linear(weight1, bias1, last.weight.detach().numpy(), last.bias.detach().numpy())

    @classmethod
    def from_linear(cls, weight1, bias1, weight2, bias2) -> PolicyWeights:
        """From the layers as torch's ``nn.Linear`` stores them: weight1 [H, In], bias1 [H], weight2 [2, H], bias2 [2]."""

        def f32(a) -> np.ndarray:
            return np.array(a, dtype=np.float32)

        weights = cls(f32(weight1).T.copy(), f32(bias1), f32(weight2).T.copy(), f32(bias2))
        hidden = weights.b1.shape
        if weights.w1.ndim != 2 or weights.w1.shape[1:] != hidden or weights.w2.shape != (*hidden, 2):
            raise ValueError(
                f"layer shapes {weights.w1.shape}, {weights.b1.shape}, {weights.w2.shape}, {weights.b2.shape}"
            )
        if weights.b2.shape != (2,):
            raise ValueError(f"output bias of shape {weights.b2.shape}, not (2,)")
        return weights

    @property
    def top_k(self) -> int:
        return self.w1.shape[0] - EXTRA_INPUTS

    @property
    def hidden(self) -> int:
        return self.b1.shape[0]


class LearnedPolicy:
    """Greedy use of a trained StopPolicyNet: stop when P(STOP | features) > 0.5.

    The decision is the network's forward pass in numpy (``PolicyWeights``), so that it costs microseconds and
    serving needs no torch: a policy loaded for a conversation is built from its checkpoint's arrays
    (``from_weights``) and makes its torch module only when training asks for it (``net``).
    """

    name = "policy"

    def __init__(self, net: StopPolicyNet) -> None:
        self._net: StopPolicyNet | None = net
        self.weights = PolicyWeights.of_net(net)
        self.top_k = net.top_k

    @classmethod
    def from_weights(cls, weights: PolicyWeights) -> LearnedPolicy:
        policy = cls.__new__(cls)
        policy._net, policy.weights, policy.top_k = None, weights, weights.top_k
        return policy

    @property
    def net(self) -> StopPolicyNet:
        """The torch module of these weights (fine-tuning starts from it), made on first use."""
        if self._net is None:
            import torch

            from models.policy_net import StopPolicyNet

            net = StopPolicyNet(self.top_k, self.weights.hidden)
            with torch.no_grad():
                net.hidden_layer.weight.copy_(torch.from_numpy(self.weights.w1.T.copy()))
                net.hidden_layer.bias.copy_(torch.from_numpy(self.weights.b1))
                net.output_layer.weight.copy_(torch.from_numpy(self.weights.w2.T.copy()))
                net.output_layer.bias.copy_(torch.from_numpy(self.weights.b2))
            self._net = net.eval()
        return self._net

    def stop_probability(self, probs: np.ndarray, turn: int, max_turns: int, best_gain: float = 0.0) -> float:
        return self.stop_probability_of(policy_features(probs, turn, max_turns, self.top_k, best_gain))

    def stop_probability_of(self, x: np.ndarray) -> float:
        """P(STOP) = softmax(tanh(x w1 + b1) w2 + b2)[STOP] of one feature vector x [top_k + 4] float32."""
        hidden = x @ self.weights.w1
        hidden += self.weights.b1
        np.tanh(hidden, out=hidden)
        e = hidden @ self.weights.w2
        e += self.weights.b2
        e -= e.max()
        np.exp(e, out=e)
        return float(e[STOP] / e.sum())

    def should_stop(self, probs: np.ndarray, turn: int, max_turns: int, best_gain: float = 0.0) -> bool:
        return self.stop_probability(probs, turn, max_turns, best_gain) > 0.5
