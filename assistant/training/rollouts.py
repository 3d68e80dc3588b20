"""Rollouts of the STOP/ASK policy in the batched environment, for its training loop
(``assistant.training.policy``).

- ``rollout``: the policy decides STOP/ASK at every turn (sampled, or greedy as in use); the REINFORCE
  estimator learns from its log-probabilities;
- ``trajectories`` + ``stop_distribution``: full 10-question conversations, never stopping, and the exact
  probability of stopping after each turn (the expected-reward estimator).

``config`` is the training's ``PolicyConfig`` (max_turns, top_k).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from assistant.clarification.stopping import policy_features
from assistant.simulation.environment import BatchEnvironment, best_gain
from models.policy_net import STOP, StopPolicyNet


@dataclass
class RolloutBatch:
    """One batch of simulated conversations. Per decision step t (rows of the [T, B] tensors): the
    log-probability of the action taken, the value estimate, and whether the episode was still running."""

    turns: torch.Tensor  # [B] questions asked
    correct: torch.Tensor  # [B] bool: top label right at the stop
    log_probs: list[torch.Tensor]
    values: list[torch.Tensor]
    live: list[torch.Tensor]
    entropy: list[torch.Tensor]


def rollout(
    net: StopPolicyNet,
    value: torch.nn.Module | None,
    a: torch.Tensor,
    log_a: torch.Tensor,
    cond_entropy: torch.Tensor,
    prior: torch.Tensor,
    targets: torch.Tensor,
    simulator: BatchEnvironment,
    generator: torch.Generator,
    config,
    greedy: bool = False,
    known: torch.Tensor | None = None,
) -> RolloutBatch:
    """Simulate a batch: IG questions, simulated answers, the policy's STOP/ASK decisions.

    ``a``/``log_a`` [Q, R, Y] may carry gradients (to lambda, w, b); question choice never does.
    ``greedy``: stop when P(STOP) > 0.5 (as in use) instead of sampling.
    """
    size = prior.shape[0]
    log_p = prior.clone()
    # questions the query already answered are never asked
    asked = torch.zeros(size, a.shape[0], dtype=torch.bool) if known is None else known.clone()
    active = torch.ones(size, dtype=torch.bool)
    out = RolloutBatch(torch.zeros(size), torch.zeros(size, dtype=torch.bool), [], [], [], [])
    a_det = a.detach()
    for turn in range(config.max_turns + 1):
        probs = torch.softmax(log_p, dim=1)
        gains = simulator.gains(a_det, cond_entropy, probs, asked)
        if turn == config.max_turns:
            stop = active.clone()  # forced stop: no decision, no log-probability
        else:
            features = policy_features(probs, turn, config.max_turns, config.top_k, best_gain(gains), xp=torch)
            dist = torch.distributions.Categorical(logits=net(features))
            stop_prob = dist.probs[:, STOP].detach()
            draw = torch.full((size,), 0.5) if greedy else torch.rand(size, generator=generator)
            action = (draw < stop_prob).long() * STOP
            out.log_probs.append(dist.log_prob(action))
            out.entropy.append(dist.entropy())
            if value is not None:
                out.values.append(value(features.detach()).squeeze(1))
            out.live.append(active.clone())
            stop = active & (action == STOP)
        out.correct |= stop & (probs.argmax(dim=1) == targets)
        asking = active & ~stop
        if not asking.any():
            break
        rows = torch.nonzero(asking).squeeze(1)
        questions = gains[rows].argmax(dim=1)
        options = simulator.answer(questions, targets[rows], generator)
        log_p = log_p.index_add(0, rows, simulator.evidence(log_a, questions, options))
        log_p = log_p - torch.logsumexp(log_p, dim=1, keepdim=True)
        asked[rows, questions] = True
        out.turns[rows] += 1
        active = asking
    return out


def trajectories(
    a: torch.Tensor,
    log_a: torch.Tensor,
    cond_entropy: torch.Tensor,
    prior: torch.Tensor,
    targets: torch.Tensor,
    simulator: BatchEnvironment,
    generator: torch.Generator,
    config,
    known: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Full ``max_turns``-question conversations for a batch, never stopping.

    Returns (features [T, B, top_k + 3] of the states where the policy decides, t = 0..T-1; correct
    [T + 1, B] bool: the top label is the target after t questions). Stopping after t questions is a
    prefix of the same conversation, because the questions and answers do not depend on when one stops.
    """
    size = prior.shape[0]
    log_p = prior.clone()
    asked = torch.zeros(size, a.shape[0], dtype=torch.bool) if known is None else known.clone()
    a_det = a.detach()
    rows = torch.arange(size)
    features, correct = [], []
    for turn in range(config.max_turns + 1):
        probs = torch.softmax(log_p, dim=1)
        correct.append(probs.argmax(dim=1) == targets)
        if turn == config.max_turns:
            break
        gains = simulator.gains(a_det, cond_entropy, probs, asked)
        features.append(policy_features(probs, turn, config.max_turns, config.top_k, best_gain(gains), xp=torch))
        questions = gains.argmax(dim=1)
        options = simulator.answer(questions, targets, generator)
        log_p = log_p + simulator.evidence(log_a, questions, options)
        log_p = log_p - torch.logsumexp(log_p, dim=1, keepdim=True)
        asked[rows, questions] = True
    return torch.stack(features), torch.stack(correct)


def stop_distribution(stop_prob: torch.Tensor) -> torch.Tensor:
    """P(stop after exactly t questions) [T + 1, B] from per-step P(STOP) [T, B] (forced stop at T)."""
    survive = torch.cumprod(1.0 - stop_prob, dim=0)
    reach = torch.cat([torch.ones_like(stop_prob[:1]), survive], dim=0)  # P(still asking at t)
    return reach * torch.cat([stop_prob, torch.ones_like(stop_prob[:1])], dim=0)
