"""The user simulator (IC 4.4): a target label, an initial query, and answers the agent never saw.

Protocol (``simulation_protocol``): the agent and the simulated user must not share their answer model,
or the evaluation would flatter the agent. What each side gets depends on the data:

- Birds (CUB). CUB gives only class-level crowd percentages (every image was annotated by one worker),
  so, in the spirit of IC's code (agent: 2 sampled annotators, simulator: all), the *agent* gets p_hat
  estimated from re-sampled annotations of the species' *training* images only: for each species and
  attribute value, yes ~ Binomial(n_train_images, pct / 100). The *simulated user* answers from the full
  percentages: a binary question "yes" with probability pct / 100, a multiple-choice question value r
  with probability pct_r / sum(pct) over the group's values. The re-sampling seed is part of the
  protocol (default 0) and is stored with every trained model.
- Induced questions (FAQ, banking). The agent's p_hat models how a person who has the label in mind
  answers, from the label's name and *training* queries (crowdsourcing.induction); the simulated user
  answers from the same person model measured on *all* of the label's queries (train, dev and test), i.e.
  from how the label is really talked about, with its own error rate. That distribution is computed
  when the domain is built (crowdsourcing's adapters) and stored (``Domain.heldout_answers``).
- Imported crowd annotations (no held-out split available): both sides use all annotations; the report
  says so.

Episodes (``assistant.simulation.episodes``) and the simulated user (``assistant.simulation.user``) use
these distributions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from assistant.errors import ConfigError
from assistant.store import Domain, replace_counts


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
    if "images_per_label" in domain.meta:
        return _birds_protocol(domain, seed)
    if any(q.induced for q in domain.questions):
        return _induced_protocol(domain, seed)
    return SimulationProtocol(
        agent_domain=domain,
        user_answers=domain.p_hat(alpha=0.5),
        description="agent and simulated user share all crowd annotations (no held-out annotations exist)",
        seed=seed,
    )


def agent_view(domain: Domain, seed: int = 0) -> Domain:
    """The part of ``domain`` the agent may learn from (birds: p_hat re-sampled from training images; other
    domains: all of it). Needs nothing of the simulated user: live conversations use only this."""
    if "images_per_label" in domain.meta:
        return _birds_protocol(domain, seed).agent_domain
    return domain


def _birds_protocol(domain: Domain, seed: int) -> SimulationProtocol:
    images = json.loads(domain.meta["images_per_label"])
    try:
        n_all = np.array([images[lab.key][0] for lab in domain.labels], dtype=np.float64)
        n_train = np.array([images[lab.key][1] for lab in domain.labels], dtype=np.int64)
    except KeyError as exc:
        raise ConfigError(f"images_per_label lacks label {exc}: rebuild the domain") from exc
    pct = np.clip(domain.counts / np.maximum(n_all, 1.0)[None, None, :], 0.0, 1.0)  # [Q, R, Y]
    rng = np.random.default_rng(seed)
    agent_counts = np.zeros_like(domain.counts)
    user = np.zeros_like(domain.counts)
    for q, question in enumerate(domain.questions):
        if question.kind == "binary":
            yes = rng.binomial(n_train, pct[q, 0])
            agent_counts[q, 0] = yes
            agent_counts[q, 1] = n_train - yes
            user[q, 0], user[q, 1] = pct[q, 0], 1.0 - pct[q, 0]
        else:
            r = len(question.options)
            agent_counts[q, :r] = rng.binomial(n_train[None, :], pct[q, :r])
            total = pct[q, :r].sum(axis=0, keepdims=True)
            user[q, :r] = np.where(total > 0, pct[q, :r] / np.where(total > 0, total, 1.0), 1.0 / r)
    agent = replace_counts(domain, agent_counts)
    return SimulationProtocol(
        agent_domain=agent,
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
