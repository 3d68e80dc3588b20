"""The user simulator (IC 4.4): a target label, an initial query, and answers the agent never saw.

Protocol (``simulation_protocol``): the agent and the simulated user must not share their answer model,
or the evaluation would flatter the agent. What each side gets depends on the data:

- Birds (CUB). The *agent* gets p_hat estimated from annotations re-sampled from the species' *training*
  images only (``assistant.store.agent_view``: what live conversations use too). The *simulated user*
  answers from the full percentages: a binary question "yes" with probability pct / 100, a multiple-choice question value r
  with probability pct_r / sum(pct) over the group's values. The re-sampling seed is part of the
  protocol (default 0) and is stored with every trained model.
- Induced questions (FAQ, banking). The agent's p_hat models how a person who has the label in mind
  answers, from the label's name and *training* queries (assistant.induction.induction); the simulated user
  answers from the same person model measured on *all* of the label's queries (train, dev and test), i.e.
  from how the label is really talked about, with its own error rate. That distribution is computed
  when the domain is built (crowdsourcing's adapters) and stored (``Domain.heldout_answers``).
- Imported crowd annotations (no held-out split available): both sides use all annotations; the report
  says so.

Episodes (``assistant.simulation.episodes``) and the simulated user (``assistant.simulation.user``) use
these distributions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from assistant.errors import ConfigError
from assistant.store import Domain
from assistant.store.agent_view import agent_view, crowd_percentages, has_image_split

__all__ = ["SimulationProtocol", "agent_view", "answer_correlation", "simulation_protocol"]


@dataclass
class SimulationProtocol:
    """What the agent may know (``agent_domain``: its annotation counts) and what the user answers from
    (``user_answers`` [Q, R, Y], sums to 1 over valid options)."""

    agent_domain: Domain
    user_answers: np.ndarray
    description: str
    seed: int


def simulation_protocol(domain: Domain, seed: int = 0) -> SimulationProtocol:
    """Split answer knowledge between agent and simulated user (see the module docstring)."""
    if has_image_split(domain):
        return _birds_protocol(domain, seed)
    if any(q.induced for q in domain.questions):
        return _induced_protocol(domain, seed)
    return SimulationProtocol(
        agent_domain=domain,
        user_answers=domain.p_hat(alpha=0.5),
        description="agent and simulated user share all crowd annotations (no held-out annotations exist)",
        seed=seed,
    )


def _birds_protocol(domain: Domain, seed: int) -> SimulationProtocol:
    pct = crowd_percentages(domain)  # [Q, R, Y]
    user = np.zeros_like(domain.counts)
    for q, question in enumerate(domain.questions):
        if question.kind == "binary":
            user[q, 0], user[q, 1] = pct[q, 0], 1.0 - pct[q, 0]
        else:
            r = len(question.options)
            total = pct[q, :r].sum(axis=0, keepdims=True)
            user[q, :r] = np.where(total > 0, pct[q, :r] / np.where(total > 0, total, 1.0), 1.0 / r)
    return SimulationProtocol(
        agent_domain=agent_view(domain, seed),
        user_answers=user.astype(np.float32),
        description=(
            f"birds: agent p_hat from Binomial(n_train_images, pct) re-sampled annotations (seed {seed}); "
            "simulated user answers from the full CUB percentages"
        ),
        seed=seed,
    )


def _induced_protocol(domain: Domain, seed: int) -> SimulationProtocol:
    induced = [q for q, question in enumerate(domain.questions) if question.induced]
    user = domain.p_hat(alpha=0.5)
    stored = domain.heldout_answers
    if stored is None:
        raise ConfigError(
            f"domain {domain.name!r} has induced questions but no held-out answers for the simulated user: "
            f"rebuild it with `clarify domain build {domain.name}`"
        )
    held = np.where(domain.option_mask[induced][:, :, None], stored[induced], 0.0)
    total = held.sum(axis=1, keepdims=True)
    if np.any(total <= 0):
        raise ConfigError(
            f"domain {domain.name!r} lacks held-out answers for some induced questions: rebuild it with "
            f"`clarify domain build {domain.name}`"
        )
    user[induced] = held / total
    return SimulationProtocol(
        agent_domain=domain,
        user_answers=user,
        description=(
            "induced tags: agent p_hat induced from label names + training queries; simulated user from the "
            "same induction over all of the label's queries (train, dev, test)"
        ),
        seed=seed,
    )


def answer_correlation(agent: np.ndarray, user: np.ndarray, option_mask: np.ndarray) -> float:
    """Pearson correlation of the agent's and the user's answer probabilities [Q, R, Y] over the valid
    options: how much the simulated user is a copy of the agent (1: the same distributions)."""
    valid = np.broadcast_to(np.asarray(option_mask, dtype=bool)[:, :, None], agent.shape)
    x, y = np.asarray(agent, dtype=np.float64)[valid], np.asarray(user, dtype=np.float64)[valid]
    if x.std() == 0 or y.std() == 0:
        return 0.0
    return float(np.corrcoef(x, y)[0, 1])
