"""Training of the STOP/ASK policy with REINFORCE against the user simulator (IC 4.5).

An episode: the agent starts from the prior of a held-out query, asks the information-gain question, the
simulated user answers, and so on until the policy says STOP (or 10 questions). Reward: +20 if the top
label is the target, -10 otherwise, plus ``turn_reward`` (r_a, negative) per question asked. The policy
gradient also reaches the answer model's lambda, w and b: they shape the posterior the policy sees, so
they are fine-tuned through the same gradient (``learn_answer_model``).

Episodes are simulated in batches as torch tensors (the numpy ``Conversation`` is for one user at a time);
the maths is the same as assistant.belief / assistant.selection, which the tests check.

``fit_answer_scale`` fits w and b of p_tilde to the agent's p_hat by maximum likelihood before policy
training, so that REINFORCE starts from a sensible answer model.
"""

from __future__ import annotations

import math
import time
from collections.abc import Generator, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
import torch

from assistant.answer_model import MIN_PROB, AnswerModel, answer_matrix
from assistant.errors import ConfigError
from assistant.progress import Progress
from assistant.simulator import EpisodeSpec
from models.policy_net import STOP, StopPolicyNet


@dataclass(frozen=True)
class PolicyConfig:
    """REINFORCE settings. ``turn_reward`` is IC's r_a (a cost per question, so negative)."""

    iterations: int = 300
    batch_size: int = 64
    learning_rate: float = 5e-3
    answer_model_learning_rate: float = 1e-2
    reward_correct: float = 20.0
    reward_wrong: float = -10.0
    turn_reward: float = -1.0
    max_turns: int = 10
    top_k: int = 20
    hidden: int = 32
    entropy_bonus: float = 0.01
    learn_answer_model: bool = True
    initial_lambda: float = 0.9

    def __post_init__(self) -> None:
        if self.iterations < 1 or self.batch_size < 1:
            raise ConfigError("iterations and batch_size must be at least 1")
        if self.max_turns < 1:
            raise ConfigError(f"max_turns must be >= 1, got {self.max_turns}")
        if not 0.0 <= self.initial_lambda <= 1.0:
            raise ConfigError(f"initial_lambda must be in [0, 1], got {self.initial_lambda}")


@dataclass
class PolicyResult:
    """The trained network, the fine-tuned answer model parameters and the learning curve."""

    net: StopPolicyNet
    lam: float
    w: float
    b: np.ndarray
    config: PolicyConfig
    history: list[dict] = field(default_factory=list)
    seconds: float = 0.0

    def answer_model(self, base: AnswerModel) -> AnswerModel:
        return base.with_params(lam=self.lam, w=self.w, b=self.b)

    def summary(self) -> dict:
        return {"lambda": self.lam, "w": self.w, "b": self.b.tolist(), "seconds": self.seconds, **asdict(self.config)}


def fit_answer_scale(model: AnswerModel, steps: int = 50) -> tuple[float, np.ndarray]:
    """(w, b) maximising the likelihood of p_hat under p_tilde = softmax_r(w * S + b) (annotated pairs)."""
    if model.tag_scores is None:
        return model.w, model.b
    p_hat = torch.from_numpy(model.p_hat)
    scores = torch.from_numpy(model.tag_scores.astype(np.float32))
    mask = torch.from_numpy(model.option_mask)
    w = torch.tensor(1.0, requires_grad=True)
    b = torch.zeros(model.b.shape[0], requires_grad=True)
    optimizer = torch.optim.LBFGS([w, b], lr=0.5, max_iter=steps, line_search_fn="strong_wolfe")

    def closure():
        optimizer.zero_grad()
        logits = (w * scores + b[None, :, None]).masked_fill(~mask[:, :, None], float("-inf"))
        log_p = torch.log_softmax(logits, dim=1).masked_fill(~mask[:, :, None], 0.0)
        loss = -(p_hat * log_p).sum(dim=1).mean()
        loss.backward()
        return loss

    optimizer.step(closure)
    return float(w.detach()), b.detach().numpy().astype(np.float32)


class _BatchSimulator:
    """Samples simulated answers for a batch: answers [Q, R, Y] user distributions (fresh randomness)."""

    def __init__(self, user_answers: np.ndarray, option_mask: np.ndarray) -> None:
        masked = np.where(option_mask[:, :, None], user_answers, 0.0)
        self.cdf = torch.from_numpy(np.cumsum(masked, axis=1).astype(np.float32))  # [Q, R, Y]
        self.n_options = torch.from_numpy(option_mask.sum(axis=1).astype(np.int64))

    def answer(self, questions: torch.Tensor, targets: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
        cdf = self.cdf[questions, :, targets]  # [B, R]
        n = self.n_options[questions]
        u = torch.rand(len(questions), generator=generator) * cdf.gather(1, (n - 1)[:, None]).squeeze(1)
        r = (cdf <= u[:, None]).sum(dim=1)
        return torch.minimum(r, n - 1)


def _features(probs: torch.Tensor, turn: int, max_turns: int, top_k: int) -> torch.Tensor:
    k = min(top_k, probs.shape[1])
    top = torch.topk(probs, k, dim=1).values
    pad = probs.new_zeros(probs.shape[0], top_k - k)
    turn_col = probs.new_full((probs.shape[0], 1), turn / max_turns)
    return torch.cat([top, pad, turn_col], dim=1)


def _information_gain(a: torch.Tensor, cond_entropy: torch.Tensor, probs: torch.Tensor) -> torch.Tensor:
    """IG [B, Q] for a batch of beliefs ``probs`` [B, Y]; ``a`` [Q, R, Y], ``cond_entropy`` [Q, Y]."""
    q, r, y = a.shape
    answer_probs = (probs @ a.reshape(q * r, y).T).reshape(-1, q, r)
    h_answer = -(answer_probs * torch.log(answer_probs.clamp_min(1e-12))).sum(dim=2)
    return h_answer - probs @ cond_entropy.T


def train_policy(
    base: AnswerModel,
    user_answers: np.ndarray,
    episodes: Sequence[EpisodeSpec],
    prior_log_probs: np.ndarray,
    targets: np.ndarray,
    config: PolicyConfig | None = None,
    seed: int = 0,
    user_option_mask: np.ndarray | None = None,
) -> Generator[Progress, None, PolicyResult]:
    """REINFORCE (see the module docstring). Yields Progress per iteration; returns a PolicyResult.

    ``base``: the agent's answer model over the candidates ([Q, R, Y_c]); ``user_answers``: the
    simulator's [Q, R, Y_c]; ``prior_log_probs`` [N, Y_c] for each training episode and ``targets`` [N]
    their target positions among the candidates. Same seed, same result.
    """
    config = config or PolicyConfig()
    if len(episodes) != len(prior_log_probs) or len(episodes) != len(targets):
        raise ConfigError("episodes, prior_log_probs and targets must have the same length")
    if len(episodes) == 0:
        raise ConfigError("no training episodes: the domain needs dev queries for policy training")
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    rng = np.random.default_rng(seed)
    start = time.perf_counter()

    net = StopPolicyNet(config.top_k, config.hidden)
    p_hat = torch.from_numpy(base.p_hat)
    mask = torch.from_numpy(base.option_mask)
    scores = None if base.tag_scores is None else torch.from_numpy(base.tag_scores.astype(np.float32))
    learn_answer = config.learn_answer_model and scores is not None
    lam0 = config.initial_lambda if scores is not None else 1.0
    lam_raw = torch.tensor(math.log(max(lam0, 1e-4) / max(1 - lam0, 1e-4)), requires_grad=learn_answer)
    w = torch.tensor(float(base.w), requires_grad=learn_answer)
    b = torch.tensor(base.b, requires_grad=learn_answer)
    groups = [{"params": net.parameters(), "lr": config.learning_rate}]
    if learn_answer:
        groups.append({"params": [lam_raw, w, b], "lr": config.answer_model_learning_rate})
    optimizer = torch.optim.Adam(groups)
    simulator = _BatchSimulator(user_answers, base.option_mask if user_option_mask is None else user_option_mask)
    prior = torch.from_numpy(np.asarray(prior_log_probs, dtype=np.float32))
    target_t = torch.from_numpy(np.asarray(targets, dtype=np.int64))
    history: list[dict] = []
    baseline = 0.0

    for iteration in range(1, config.iterations + 1):
        lam = torch.sigmoid(lam_raw) if scores is not None else torch.tensor(1.0)
        a = answer_matrix(p_hat, mask, scores, lam, w, b, xp=torch)
        a = torch.where(mask[:, :, None], a.clamp_min(MIN_PROB), torch.zeros(()))
        a = a / a.sum(dim=1, keepdim=True)
        log_a = torch.log(a.clamp_min(1e-30))
        with torch.no_grad():
            a_det = a.detach()
            cond_entropy = -(a_det * log_a.detach()).sum(dim=1)

        batch = torch.from_numpy(rng.integers(0, len(episodes), size=config.batch_size))
        log_p = prior[batch].clone()
        tgt = target_t[batch]
        asked = torch.zeros(config.batch_size, a.shape[0], dtype=torch.bool)
        active = torch.ones(config.batch_size, dtype=torch.bool)
        turns = torch.zeros(config.batch_size)
        log_prob_sum = torch.zeros(config.batch_size)
        entropy_sum = torch.zeros(config.batch_size)
        correct = torch.zeros(config.batch_size, dtype=torch.bool)

        for turn in range(config.max_turns + 1):
            probs = torch.softmax(log_p, dim=1)
            if turn == config.max_turns:
                stop = active.clone()  # forced stop: no decision, no log-probability
            else:
                logits = net(_features(probs, turn, config.max_turns, config.top_k))
                dist = torch.distributions.Categorical(logits=logits)
                action = dist.sample()
                log_prob_sum = log_prob_sum + torch.where(active, dist.log_prob(action), torch.zeros(()))
                entropy_sum = entropy_sum + torch.where(active, dist.entropy(), torch.zeros(()))
                stop = active & (action == STOP)
            correct = correct | (stop & (probs.argmax(dim=1) == tgt))
            asking = active & ~stop
            if not asking.any():
                break
            rows = torch.nonzero(asking).squeeze(1)
            with torch.no_grad():
                ig = _information_gain(a_det, cond_entropy, probs[rows].detach())
                ig = ig.masked_fill(asked[rows], float("-inf"))
                questions = ig.argmax(dim=1)
                options = simulator.answer(questions, tgt[rows], generator)
            log_p = log_p.index_add(0, rows, log_a[questions, options, :])
            log_p = log_p - torch.logsumexp(log_p, dim=1, keepdim=True)
            asked[rows, questions] = True
            turns[rows] += 1
            active = asking

        reward = torch.where(correct, config.reward_correct, config.reward_wrong) + config.turn_reward * turns
        mean_reward = float(reward.mean())
        baseline = mean_reward if iteration == 1 else 0.9 * baseline + 0.1 * mean_reward
        advantage = reward - baseline
        loss = -(advantage * log_prob_sum).mean() - config.entropy_bonus * entropy_sum.mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if learn_answer:
            with torch.no_grad():
                w.clamp_(min=0.0)  # a negative scale would invert what the encoder learned
        record = {
            "iteration": iteration,
            "reward": mean_reward,
            "accuracy": float(correct.float().mean()),
            "turns": float(turns.mean()),
            "lambda": float(torch.sigmoid(lam_raw.detach())) if scores is not None else 1.0,
        }
        history.append(record)
        yield Progress(iteration, config.iterations, "training the stop policy", record)

    lam_final = float(torch.sigmoid(lam_raw.detach())) if scores is not None else 1.0
    return PolicyResult(
        net=net.eval(),
        lam=lam_final,
        w=float(w.detach()),
        b=b.detach().numpy().astype(np.float32),
        config=config,
        history=history,
        seconds=time.perf_counter() - start,
    )
