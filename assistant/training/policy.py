"""Training of the STOP/ASK policy with REINFORCE against the user simulator (IC 4.5).

An episode: the agent starts from the prior of a held-out query, asks the information-gain question, the
simulated user answers, and so on until the policy says STOP (or 10 questions). Reward: +20 if the top
label is the target, -10 otherwise, plus ``turn_reward`` (r_a, negative) per question asked. The policy
gradient also reaches the answer model's lambda, w and b: they shape the posterior the policy sees, so
they are fine-tuned through the same gradient (``learn_answer_model``).

Episodes are simulated in batches as torch tensors (``assistant.simulation.environment``; the numpy
``Conversation`` is for one user at a time), rolled out by ``assistant.training.policy.rollouts``.

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

from assistant.clarification.answer_model import MIN_PROB, AnswerModel, answer_matrix
from assistant.errors import ConfigError
from assistant.progress import Progress
from assistant.settings import MAX_QUESTIONS, POLICY_ESTIMATOR, POLICY_ITERATIONS
from assistant.simulation.environment import BatchEnvironment
from assistant.simulation.episodes import EpisodeSpec
from assistant.simulation.user import SimulatedUser
from assistant.training.rollouts import rollout, stop_distribution, trajectories
from models.determinism import reproducible
from models.policy_net import EXTRA_INPUTS, STOP, StopPolicyNet


@dataclass(frozen=True)
class PolicyConfig:
    """REINFORCE settings. ``turn_reward`` is IC's r_a (a cost per question, so negative);
    ``turn_budget`` caps the mean number of questions of the trained (greedy) policy (None: no cap)."""

    iterations: int = POLICY_ITERATIONS
    batch_size: int = 128
    learning_rate: float = 5e-3
    answer_model_learning_rate: float = 1e-2
    reward_correct: float = 20.0
    reward_wrong: float = -10.0
    turn_reward: float = -1.0
    max_turns: int = MAX_QUESTIONS
    top_k: int = 20
    hidden: int = 32
    entropy_bonus: float = 0.01
    learn_answer_model: bool = True
    initial_lambda: float = 0.9
    turn_budget: float | None = 4.5
    budget_step: float = 0.05
    budget_every: int = 10
    budget_batch: int = 256
    initial_ask_bias: float = 2.0
    estimator: str = POLICY_ESTIMATOR
    # torch threads while training: one, as for the encoder. The rollouts are many small ops; on a loaded
    # two-core machine two threads took 4 s per faq iteration, one thread 0.4 s.
    threads: int = 1

    def __post_init__(self) -> None:
        if self.iterations < 1 or self.batch_size < 1:
            raise ConfigError("iterations and batch_size must be at least 1")
        if self.max_turns < 1:
            raise ConfigError(f"max_turns must be >= 1, got {self.max_turns}")
        if not 0.0 <= self.initial_lambda <= 1.0:
            raise ConfigError(f"initial_lambda must be in [0, 1], got {self.initial_lambda}")
        if self.estimator not in ("expected", "reinforce"):
            raise ConfigError(f"estimator must be 'expected' or 'reinforce', not {self.estimator!r}")
        if self.turn_budget is not None and self.turn_budget <= 0:
            raise ConfigError(f"turn_budget must be positive (or None for no cap), got {self.turn_budget}")


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
    turn_reward: float = 0.0

    def answer_model(self, base: AnswerModel) -> AnswerModel:
        return base.with_params(lam=self.lam, w=self.w, b=self.b)

    def summary(self) -> dict:
        return {
            **asdict(self.config),
            "lambda": self.lam,
            "w": self.w,
            "b": self.b.tolist(),
            "seconds": self.seconds,
            "final_turn_reward": self.turn_reward,
        }


def fit_answer_scale(model: AnswerModel, steps: int = 50) -> tuple[float, np.ndarray]:
    """(w, b) maximising the likelihood of p_hat under p_tilde = softmax_r(w * S + b) (annotated pairs)."""
    assert model.b is not None  # AnswerModel fills it in when it is built
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


def train_policy(
    base: AnswerModel,
    user_answers: np.ndarray,
    episodes: Sequence[EpisodeSpec],
    prior_log_probs: np.ndarray,
    targets: np.ndarray,
    config: PolicyConfig | None = None,
    seed: int = 0,
    user_option_mask: np.ndarray | None = None,
    known_questions: np.ndarray | None = None,
    start_from: tuple[StopPolicyNet, float, float, np.ndarray] | None = None,
) -> Generator[Progress, None, PolicyResult]:
    """REINFORCE (see the module docstring). Yields Progress per iteration; returns a PolicyResult.

    ``start_from``: (net, lambda, w, b) of a trained policy to fine-tune (after new data) instead of
    starting afresh.

    ``base``: the agent's answer model over the candidates ([Q, R, Y_c]); ``user_answers``: the
    simulator's [Q, R, Y_c]; ``prior_log_probs`` [N, Y_c] for each training episode and ``targets`` [N]
    their target positions among the candidates; ``known_questions`` [N, Q] bool marks the questions
    each query already answers (never asked, as in a real conversation). Same seed, same result.

    The gradient is REINFORCE's with a learned value baseline (a small MLP on the same features):
    the advantage of the decision at step t is (final reward + r_a * questions still to come) minus the
    baseline. With ``turn_budget``, r_a is a dual variable: every ``budget_every`` iterations the greedy
    policy's mean number of questions is measured, and while it exceeds the budget r_a falls below the
    configured ``turn_reward`` (questions get dearer) until the policy fits the budget.
    """
    config = config or PolicyConfig()
    with reproducible(config.threads):
        return (
            yield from _train_policy(
                base,
                user_answers,
                episodes,
                prior_log_probs,
                targets,
                config,
                seed,
                user_option_mask,
                known_questions,
                start_from,
            )
        )


def _train_policy(
    base: AnswerModel,
    user_answers: np.ndarray,
    episodes: Sequence[EpisodeSpec],
    prior_log_probs: np.ndarray,
    targets: np.ndarray,
    config: PolicyConfig,
    seed: int,
    user_option_mask: np.ndarray | None,
    known_questions: np.ndarray | None,
    start_from: tuple[StopPolicyNet, float, float, np.ndarray] | None,
) -> Generator[Progress, None, PolicyResult]:
    """The training loop: each iteration a batch's loss (``_PolicyTraining.loss``), one optimizer step
    (``train_step``), every ``budget_every`` iterations the dual step on r_a (``_next_turn_reward``)."""
    if len(episodes) != len(prior_log_probs) or len(episodes) != len(targets):
        raise ConfigError("episodes, prior_log_probs and targets must have the same length")
    if len(episodes) == 0:
        raise ConfigError("no training episodes: the domain needs dev queries for policy training")
    start = time.perf_counter()
    run = _PolicyTraining(
        base, user_answers, prior_log_probs, targets, config, seed, user_option_mask, known_questions, start_from
    )
    history: list[dict] = []
    turn_reward = config.turn_reward
    greedy_turns = float("nan")
    for iteration in range(1, config.iterations + 1):
        batch = run.loss(turn_reward)
        run.train_step(batch.loss)
        if batch.greedy_turns is not None:
            greedy_turns = batch.greedy_turns
        elif config.turn_budget is not None and iteration % config.budget_every == 0:
            greedy_turns = run.greedy_turns()
        if config.turn_budget is not None and iteration % config.budget_every == 0:
            turn_reward = _next_turn_reward(config, turn_reward, greedy_turns)
        record = {
            "iteration": iteration,
            "reward": float(batch.reward.mean()),
            "accuracy": float(batch.correct.mean()),
            "turns": float(batch.turns.mean()),
            "greedy_turns": greedy_turns,
            "turn_reward": turn_reward,
            "lambda": run.lam(),
        }
        history.append(record)
        yield Progress(iteration, config.iterations, "training the stop policy", record)
    return PolicyResult(
        net=run.net.eval(),
        lam=run.lam(),
        w=float(run.w.detach()),
        b=run.b.detach().numpy().astype(np.float32),
        config=config,
        history=history,
        seconds=time.perf_counter() - start,
        turn_reward=turn_reward,
    )


def _next_turn_reward(config: PolicyConfig, turn_reward: float, greedy_turns: float) -> float:
    """Dual ascent: questions get dearer while the greedy policy asks more than the budget allows, and never
    cheaper than the configured r_a (the budget is a ceiling, not a target)."""
    assert config.turn_budget is not None  # called only with a budget
    return min(config.turn_reward, turn_reward - config.budget_step * (greedy_turns - config.turn_budget))


@dataclass(frozen=True)
class _BatchLoss:
    """One iteration's loss and what its batch did: reward, correct top label and questions per episode, and
    the greedy policy's mean questions where the estimator gives them for free (the exact expectation)."""

    loss: torch.Tensor
    reward: torch.Tensor
    correct: torch.Tensor
    turns: torch.Tensor
    greedy_turns: float | None


class _PolicyTraining:
    """What one training run holds (the networks, the answer model's parameters, the optimizer, the simulator
    and the episodes' tensors), built in the order that makes the same seed give the same weights; ``loss``
    is one batch's loss by the configured estimator, ``train_step`` one step of the optimizer."""

    def __init__(
        self,
        base: AnswerModel,
        user_answers: np.ndarray,
        prior_log_probs: np.ndarray,
        targets: np.ndarray,
        config: PolicyConfig,
        seed: int,
        user_option_mask: np.ndarray | None,
        known_questions: np.ndarray | None,
        start_from: tuple[StopPolicyNet, float, float, np.ndarray] | None,
    ) -> None:
        self.config = config
        torch.manual_seed(seed)
        self.generator = torch.Generator().manual_seed(seed)
        self.rng = np.random.default_rng(seed)
        self.net = StopPolicyNet(config.top_k, config.hidden)
        with torch.no_grad():  # start out asking, so that early batches show what questions are worth
            self.net.output_layer.bias.copy_(torch.tensor([config.initial_ask_bias, 0.0]))
        if start_from is not None:
            self.net.load_state_dict(start_from[0].state_dict())
            self.net.train()
            base = base.with_params(lam=float(start_from[1]), w=float(start_from[2]), b=start_from[3])
        self.value = None  # REINFORCE's baseline; the exact expectation needs none
        if config.estimator == "reinforce":
            self.value = torch.nn.Sequential(
                torch.nn.Linear(config.top_k + EXTRA_INPUTS, config.hidden),
                torch.nn.Tanh(),
                torch.nn.Linear(config.hidden, 1),
            )
        self.p_hat = torch.from_numpy(base.p_hat)
        self.mask = torch.from_numpy(base.option_mask)
        self.scores = None if base.tag_scores is None else torch.from_numpy(base.tag_scores.astype(np.float32))
        self.learn_answer = config.learn_answer_model and self.scores is not None
        lam0 = (config.initial_lambda if start_from is None else float(base.lam)) if self.scores is not None else 1.0
        self.lam_raw = torch.tensor(math.log(max(lam0, 1e-4) / max(1 - lam0, 1e-4)), requires_grad=self.learn_answer)
        self.w = torch.tensor(float(base.w), requires_grad=self.learn_answer)
        self.b = torch.tensor(base.b, requires_grad=self.learn_answer)
        groups = [{"params": self.net.parameters(), "lr": config.learning_rate}]
        if self.value is not None:
            groups.append({"params": self.value.parameters(), "lr": config.learning_rate})
        if self.learn_answer:
            groups.append({"params": [self.lam_raw, self.w, self.b], "lr": config.answer_model_learning_rate})
        self.optimizer = torch.optim.Adam(groups)
        self.simulator = BatchEnvironment(
            SimulatedUser(user_answers, base.option_mask if user_option_mask is None else user_option_mask)
        )
        self.prior = torch.from_numpy(np.asarray(prior_log_probs, dtype=np.float32))
        self.targets = torch.from_numpy(np.asarray(targets, dtype=np.int64))
        self.known = (
            torch.zeros(len(targets), base.shape[0], dtype=torch.bool)
            if known_questions is None
            else torch.from_numpy(np.asarray(known_questions, dtype=bool))
        )
        # lambda, w and b not learned (the lambda = 1 baseline, a large FAQ): the same answer model every
        # iteration, computed once (a pass over [Q, R, Y] each iteration was most of a 1,000-entry FAQ's iteration)
        self.fixed = None if self.learn_answer else self._answer_model()

    def _answer_model(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The answer model's probabilities, their logs and each answer's conditional entropy."""
        lam = torch.sigmoid(self.lam_raw) if self.scores is not None else torch.tensor(1.0)
        a = answer_matrix(self.p_hat, self.mask, self.scores, lam, self.w, self.b, xp=torch)
        a = torch.where(self.mask[:, :, None], a.clamp_min(MIN_PROB), torch.zeros(()))
        a = a / a.sum(dim=1, keepdim=True)
        log_a = torch.log(a.clamp_min(1e-30))
        return a, log_a, -(a.detach() * log_a.detach()).sum(dim=1)

    def answer_model(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return self._answer_model() if self.fixed is None else self.fixed

    def lam(self) -> float:
        return float(torch.sigmoid(self.lam_raw.detach())) if self.scores is not None else 1.0

    def loss(self, turn_reward: float) -> _BatchLoss:
        """One batch of episodes and its loss."""
        a, log_a, cond_entropy = self.answer_model()
        batch = torch.from_numpy(self.rng.integers(0, len(self.targets), size=self.config.batch_size))
        if self.config.estimator == "expected":
            return self._expected_loss(a, log_a, cond_entropy, batch, turn_reward)
        return self._reinforce_loss(a, log_a, cond_entropy, batch, turn_reward)

    def _expected_loss(
        self, a: torch.Tensor, log_a: torch.Tensor, cond_entropy: torch.Tensor, batch: torch.Tensor, turn_reward: float
    ) -> _BatchLoss:
        """The exact expected reward over where the policy stops (every trajectory to the last turn)."""
        config = self.config
        features, correct_by_turn = trajectories(
            a,
            log_a,
            cond_entropy,
            self.prior[batch],
            self.targets[batch],
            self.simulator,
            self.generator,
            config,
            self.known[batch],
        )
        logits = self.net(features)  # [T, B, 2]
        stop_prob = torch.softmax(logits, dim=-1)[..., STOP]
        p_stop = stop_distribution(stop_prob)  # [T + 1, B]
        t = torch.arange(config.max_turns + 1, dtype=torch.float32)[:, None]
        reward_by_turn = torch.where(correct_by_turn, config.reward_correct, config.reward_wrong) + turn_reward * t
        expected_reward = (p_stop * reward_by_turn).sum(dim=0).mean()
        entropy = torch.distributions.Categorical(logits=logits).entropy().mean()
        loss = -expected_reward / config.reward_correct - config.entropy_bonus * entropy
        with torch.no_grad():
            greedy_stop = torch.cat([stop_prob > 0.5, torch.ones_like(stop_prob[:1], dtype=torch.bool)]).int()
            greedy_t = greedy_stop.argmax(dim=0)  # first turn at which the greedy policy stops
            turns = (p_stop * t).sum(dim=0)
            correct = (p_stop * correct_by_turn.float()).sum(dim=0)
            reward = (p_stop * reward_by_turn).sum(dim=0)
        return _BatchLoss(loss, reward, correct, turns, float(greedy_t.float().mean()))

    def _reinforce_loss(
        self, a: torch.Tensor, log_a: torch.Tensor, cond_entropy: torch.Tensor, batch: torch.Tensor, turn_reward: float
    ) -> _BatchLoss:
        """REINFORCE with the learned value baseline over sampled rollouts."""
        config = self.config
        run = rollout(
            self.net,
            self.value,
            a,
            log_a,
            cond_entropy,
            self.prior[batch],
            self.targets[batch],
            self.simulator,
            self.generator,
            config,
            known=self.known[batch],
        )
        final = torch.where(run.correct, config.reward_correct, config.reward_wrong)
        steps = torch.arange(len(run.log_probs), dtype=torch.float32)[:, None]  # [T, 1]
        # the return of the decision at step t: the final reward and the cost of the questions still to come
        returns = final[None, :] + turn_reward * (run.turns[None, :] - steps)  # [T, B]
        live = torch.stack(run.live).float()
        values = torch.stack(run.values)
        advantage = (returns - values).detach()
        n_live = live.sum()
        policy_loss = -(advantage * torch.stack(run.log_probs) * live).sum() / n_live
        value_loss = (((returns - values) ** 2) * live).sum() / n_live / config.reward_correct**2
        entropy = (torch.stack(run.entropy) * live).sum() / n_live
        loss = policy_loss + 0.5 * value_loss - config.entropy_bonus * entropy
        return _BatchLoss(loss, final + turn_reward * run.turns, run.correct.float(), run.turns, None)

    def train_step(self, loss: torch.Tensor) -> None:
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        if self.learn_answer:
            with torch.no_grad():
                self.w.clamp_(min=0.0)  # a negative scale would invert what the encoder learned

    def greedy_turns(self) -> float:
        """The greedy policy's mean number of questions on a fresh batch (for the turn budget)."""
        with torch.no_grad():
            a, log_a, cond_entropy = self.answer_model()
            check = torch.from_numpy(self.rng.integers(0, len(self.targets), size=self.config.budget_batch))
            greedy = rollout(
                self.net,
                None,
                a,
                log_a,
                cond_entropy,
                self.prior[check],
                self.targets[check],
                self.simulator,
                self.generator,
                self.config,
                True,
                self.known[check],
            )
        return float(greedy.turns.mean())
