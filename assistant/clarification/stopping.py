"""Stop rules: decide, after each answer, whether to ask another question or stop and show the shortlist.

- ``LearnedPolicy``: IC's STOP/ASK network (models.policy_net), trained against the simulator
  (assistant.training.policy).
- ``ThresholdStop``: stop once the most likely label reaches a probability threshold.
- ``FixedTurns``: always ask exactly k questions.

Every rule also stops at ``max_turns`` or when no question is left (the clarifier enforces that).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from assistant.errors import ConfigError
from models.policy_net import STOP, StopPolicyNet


def policy_features(probs, turn, max_turns: int, top_k: int = 20, xp=np):
    """[..., top_k + 1] float32: the top-k probabilities (descending, zero-padded) and turn / max_turns.

    numpy (``xp=np``: one belief or an array of them, ``turn`` an int or an array) for conversations, torch
    (``xp=torch``: a batch [B, Y], ``turn`` an int) for policy training; the tests check they agree.
    """
    if xp is not np:
        k = min(top_k, probs.shape[1])
        top = xp.topk(probs, k, dim=1).values
        pad = probs.new_zeros(probs.shape[0], top_k - k)
        turn_col = probs.new_full((probs.shape[0], 1), turn / max_turns)
        return xp.cat([top, pad, turn_col], dim=1)
    probs = np.asarray(probs, dtype=np.float32)
    k = min(top_k, probs.shape[-1])
    n = probs.shape[-1]
    top = np.partition(probs, n - k, axis=-1)[..., n - k :] if k < n else probs
    top = -np.sort(-top, axis=-1)
    pad = np.zeros((*probs.shape[:-1], top_k - k), dtype=np.float32)
    turn_feature = np.broadcast_to(np.asarray(turn, dtype=np.float32) / max_turns, probs.shape[:-1])[..., None]
    return np.concatenate([top, pad, turn_feature], axis=-1).astype(np.float32)


class StopRule(Protocol):
    name: str

    def should_stop(self, probs: np.ndarray, turn: int, max_turns: int) -> bool: ...


class ThresholdStop:
    """Stop when max_y p(y) >= threshold."""

    name = "threshold"

    def __init__(self, threshold: float = 0.5) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ConfigError(f"threshold must be in (0, 1], got {threshold}")
        self.threshold = threshold

    def should_stop(self, probs: np.ndarray, turn: int, max_turns: int) -> bool:
        return bool(np.max(probs) >= self.threshold)


class FixedTurns:
    """Ask exactly ``turns`` questions (0 = no interaction)."""

    name = "fixed_turns"

    def __init__(self, turns: int) -> None:
        if turns < 0:
            raise ConfigError(f"turns must be >= 0, got {turns}")
        self.turns = turns

    def should_stop(self, probs: np.ndarray, turn: int, max_turns: int) -> bool:
        return turn >= self.turns


class LearnedPolicy:
    """Greedy use of a trained StopPolicyNet: stop when P(STOP | features) > 0.5.

    The network's two layers are copied to numpy so that a decision costs microseconds.
    """

    name = "policy"

    def __init__(self, net: StopPolicyNet) -> None:
        self.net = net
        self.top_k = net.top_k
        first, last = net.layers[0], net.layers[2]
        self._w1 = first.weight.detach().numpy().astype(np.float32).T.copy()
        self._b1 = first.bias.detach().numpy().astype(np.float32).copy()
        self._w2 = last.weight.detach().numpy().astype(np.float32).T.copy()
        self._b2 = last.bias.detach().numpy().astype(np.float32).copy()

    def stop_probability(self, probs: np.ndarray, turn: int, max_turns: int) -> float:
        x = policy_features(probs, turn, max_turns, self.top_k)
        logits = np.tanh(x @ self._w1 + self._b1) @ self._w2 + self._b2
        logits = logits - logits.max()
        e = np.exp(logits)
        return float(e[STOP] / e.sum())

    def should_stop(self, probs: np.ndarray, turn: int, max_turns: int) -> bool:
        return self.stop_probability(probs, turn, max_turns) > 0.5
