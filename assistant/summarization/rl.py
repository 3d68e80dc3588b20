"""The RL summarizer (BO 5.4, after Gao et al. 2018): a policy that adds sentences to a draft or stops,
trained on a reward for the finished summary (the learned ranking function, or gold ROUGE as the upper bound).

As in stable-baselines, the environment, the value function and the training loop are apart:

* ``SummaryEnv``: a draft over one prepared topic. Actions: add a sentence that still fits the word limit,
  or stop; an episode ends when the agent stops or nothing fits, with the reward of the draft (0 before).
  ``check_env`` validates an environment on a few random episodes.
* ``LinearValue``: V(draft) = w . phi(draft), phi = [which sentences the draft holds (S), its bigram+
  features (B + 5: BO's summary vector), 1]. The sentence indicators let V learn what each sentence is worth;
  bigram+ what it adds beyond the sentences already there (coverage, repeated bigrams, length, position).
* ``RLSummarizer``: TD(lambda) on V with normalised steps (NLMS: w += lr * delta * phi / |phi|^2; plain TD
  diverges with hundreds of binary features), in two phases:
  1. replay (Gao et al.'s and BO's training, ``summariser/rl/deep_td.py``): an episode replays a candidate
     summary drawn with probability softmax(reward / strict) over the candidates' rewards on BO's [0, 10]
     scale, its sentences added in a random order;
  2. optionally (``policy_episodes``, 0 by default), the agent's own episodes: a softmax policy over the
     successors' values (temperature falling over the episodes) explores beyond the candidates, the reward
     function scoring each finished draft. On DUC 2001 (dev) it did not pay: it cost three times as long and
     chased the learned reward where it extrapolates (ROUGE-2 fell from 0.099 to 0.059 on 12 simulated
     users), while replay alone already matches the best candidate on the learned reward and beats the best
     of the 10,000 candidates on gold ROUGE.
  The trained policy writes greedily: it adds the sentence whose successor draft has the highest value, and
  stops when the current draft's own reward is at least that value (BO's agent stops when its value of
  stopping beats every successor's) - but only once the draft is as long as the shortest candidate: the
  learned reward has seen no shorter summary, and its extrapolation to one is not to be trusted (stopping
  after one sentence "won" the learned reward and lost every ROUGE point on DUC 2001).

Rewards are mapped onto [0, 10] with the candidates' range (``RewardScale``), so that one temperature and one
learning rate fit every topic.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from assistant.errors import ConfigError
from assistant.progress import Job, Progress, metrics_of
from assistant.summarization.features import bigram_plus_from_counts
from assistant.summarization.rewards import Reward, RewardScale


class SummaryEnv:
    """Drafts over the sentences of one prepared topic (see the module docstring). State: ``used`` [S],
    ``order`` (sentences in the order added), ``counts`` [B] of the top bigrams, ``words``, ``position``
    (sum of 1 / position)."""

    def __init__(self, prepared) -> None:
        self.sentence_counts = prepared.bigrams.counts.toarray()  # [S, B]
        self.sentence_words = prepared.table.words.astype(np.float64)  # [S]
        self.inverse_position = 1.0 / prepared.table.position  # [S]
        self.max_words = prepared.max_words
        self.num_sentences = len(self.sentence_words)
        if not np.any(self.sentence_words <= self.max_words):
            raise ConfigError(f"every sentence is longer than {self.max_words} words: nothing can be summarised")
        self.reset()

    def reset(self) -> None:
        self.used = np.zeros(self.num_sentences, dtype=bool)
        self.order: list[int] = []
        self.counts = np.zeros(self.sentence_counts.shape[1])
        self.words = 0.0
        self.position = 0.0

    def actions(self) -> np.ndarray:
        """[A] the sentences that can be added (empty: the episode is over)."""
        return np.flatnonzero(~self.used & (self.sentence_words <= self.max_words - self.words))

    def step(self, sentence: int) -> None:
        j = int(sentence)
        if self.used[j] or self.sentence_words[j] > self.max_words - self.words:
            raise ConfigError(f"sentence {j} cannot be added to this draft (already in it, or too long)")
        self.used[j] = True
        self.order.append(j)
        self.counts = self.counts + self.sentence_counts[j]
        self.words += self.sentence_words[j]
        self.position += self.inverse_position[j]

    @property
    def summary(self) -> tuple[int, ...]:
        return tuple(sorted(self.order))


def check_env(env: SummaryEnv, episodes: int = 5, seed: int = 0) -> None:
    """Random episodes must stay within the word limit and end with no action left (stable-baselines'
    ``check_env`` in spirit); raises ConfigError otherwise."""
    rng = np.random.default_rng(seed)
    for _ in range(episodes):
        env.reset()
        while len(actions := env.actions()):
            env.step(int(rng.choice(actions)))
            if env.words > env.max_words:
                raise ConfigError(f"a draft of {env.words:.0f} words exceeds the limit of {env.max_words}")
        if not env.order:
            raise ConfigError("an episode ended with an empty draft")
    env.reset()


class LinearValue:
    """V(draft) = w . [indicators (S), bigram+ (B + 5), 1]; values of all successors at once.

    bigram+ is linear in presence and repetition indicators, so V(draft + j) for every sentence j is two
    matrix-vector products with the sentences' [S, B] indicators (``successor_values``); the features of a
    whole episode's drafts come from cumulative sums (``prefix_features``)."""

    def __init__(self, env: SummaryEnv) -> None:
        self.env = env
        self.num_sentences = env.num_sentences
        self.num_bigrams = env.sentence_counts.shape[1]
        self.present = (env.sentence_counts > 0).astype(np.float64)  # [S, B]
        self.repeated = (env.sentence_counts >= 2).astype(np.float64)  # [S, B]
        self.w = np.zeros(env.num_sentences + self.num_bigrams + 5 + 1)

    def prefix_features(self, order) -> np.ndarray:
        """[T + 1, F] phi of the empty draft and of each draft as the sentences ``order`` are added."""
        e, order = self.env, np.asarray(order, dtype=np.int64)
        steps = len(order) + 1

        def cumulative(values: np.ndarray) -> np.ndarray:
            return np.concatenate([np.zeros((1, *values.shape[1:])), np.cumsum(values, axis=0)])

        big = bigram_plus_from_counts(
            cumulative(e.sentence_counts[order]),
            cumulative(e.sentence_words[order]),
            cumulative(e.inverse_position[order]),
            e.max_words,
        )
        indicators = np.zeros((steps, self.num_sentences))
        for t, j in enumerate(order):
            indicators[t + 1 :, j] = 1.0
        return np.hstack([indicators, big, np.ones((steps, 1))])

    def successor_values(self, actions: np.ndarray) -> np.ndarray:
        """[A] V(draft + j) for each action j (each fits the word limit)."""
        e, s, b = self.env, self.num_sentences, self.num_bigrams
        w_big = self.w[s : s + b]
        w_cov, w_red, w_len, w_pos, w_lim = self.w[s + b : s + b + 5]
        have = e.counts > 0
        once, twice = e.counts == 1, e.counts >= 2
        # a bigram becomes present if the sentence has it; repeated if the draft had it once and the sentence
        # has it, or the sentence has it twice
        gain_present = self.present @ np.where(have, 0.0, w_big + w_cov / b) + self.present @ (once * w_red / b)
        gain_repeat = self.repeated @ (~have * w_red / b)
        fixed = (
            self.w[:s] @ e.used
            + w_big @ have
            + w_cov * have.sum() / b
            + w_red * twice.sum() / b
            + w_len * e.words / e.max_words
            + w_pos * e.position
            + w_lim
            + self.w[-1]
        )
        gains = (
            self.w[actions]
            + gain_present[actions]
            + gain_repeat[actions]
            + w_len * e.sentence_words[actions] / e.max_words
            + w_pos * e.inverse_position[actions]
        )
        return fixed + gains

    def update(self, phis: np.ndarray, targets: np.ndarray, learning_rate: float) -> None:
        """NLMS steps of each state [T, F] towards its target [T], in order."""
        for phi, target in zip(phis, targets):
            self.w += learning_rate * (target - phi @ self.w) * phi / (phi @ phi)


@dataclass
class RLSettings:
    """``replay_episodes`` and ``strict`` as in BO's agent (2000 episodes, softmax temperature 5 over [0, 10]
    rewards); ``policy_episodes`` of the agent's own softmax policy (off by default, see the module
    docstring), in batches of ``batch`` (rewards are scored a batch at a time), its temperature falling from
    ``start_temperature`` to ``end_temperature``."""

    replay_episodes: int = 2000
    policy_episodes: int = 0
    strict: float = 5.0
    learning_rate: float = 0.1
    trace_decay: float = 1.0  # lambda; 1 = every draft of an episode learns the episode's reward (BO's agent)
    start_temperature: float = 1.0
    end_temperature: float = 0.05
    batch: int = 25

    def __post_init__(self) -> None:
        if self.replay_episodes < 0 or self.policy_episodes < 0 or self.replay_episodes + self.policy_episodes < 1:
            raise ConfigError("the RL summarizer needs at least one training episode")
        if not (0 <= self.trace_decay <= 1 and self.learning_rate > 0 and self.strict > 0 and self.batch >= 1):
            raise ConfigError("RL settings: need 0 <= trace_decay <= 1, learning_rate > 0, strict > 0, batch >= 1")


class RLSummarizer:
    """Trains ``LinearValue`` on ``reward`` over ``prepared``'s sentences; ``train`` is a job, ``write`` greedy."""

    def __init__(self, prepared, reward: Reward, settings: RLSettings | None = None, seed: int = 0) -> None:
        self.prepared, self.reward = prepared, reward
        self.settings = settings or RLSettings()
        self.rng = np.random.default_rng(seed)
        self.env = SummaryEnv(prepared)
        self.value = LinearValue(self.env)
        summaries = prepared.candidates.summaries
        raw = np.asarray(reward(summaries), dtype=np.float64)
        self.scale = RewardScale.of(raw)
        self.candidate_rewards = self.scale(raw)  # [N] on [0, 10]
        words = prepared.candidates.incidence @ prepared.table.words.astype(np.float64)
        self.min_stop_words = float(words.min()) if len(words) else 0.0

    def _returns(self, phis: np.ndarray, final: float) -> np.ndarray:
        """[T] lambda-returns of the drafts of one episode (reward only at the end, no discount)."""
        lam = self.settings.trace_decay
        values = phis @ self.value.w
        targets = np.empty(len(phis))
        targets[-1] = final
        for t in range(len(phis) - 2, -1, -1):
            targets[t] = (1 - lam) * values[t + 1] + lam * targets[t + 1]
        return targets

    def _replay(self, index: int) -> None:
        phis = self.value.prefix_features(self.rng.permutation(self.prepared.candidates.summaries[index]))
        targets = self._returns(phis, float(self.candidate_rewards[index]))
        self.value.update(phis, targets, self.settings.learning_rate)

    def _explore(self, temperature: float) -> tuple[tuple[int, ...], np.ndarray]:
        """One episode of the softmax policy; (its summary, phi of each draft [T, F])."""
        env = self.env
        env.reset()
        while len(actions := env.actions()):
            values = self.value.successor_values(actions)
            z = np.exp((values - values.max()) / temperature)
            env.step(int(actions[self.rng.choice(len(actions), p=z / z.sum())]))
        return env.summary, self.value.prefix_features(env.order)

    def train(self) -> Job[tuple[int, ...]]:
        """Both phases; yields Progress every 100 episodes; returns the greedy summary."""
        s = self.settings
        total = s.replay_episodes + s.policy_episodes
        if s.replay_episodes:
            logits = self.candidate_rewards / s.strict
            prob = np.exp(logits - logits.max())
            picks = self.rng.choice(len(prob), size=s.replay_episodes, p=prob / prob.sum())
            for e, index in enumerate(picks):
                self._replay(int(index))
                if (e + 1) % 100 == 0 or e + 1 == s.replay_episodes:
                    yield Progress(e + 1, total, "training the summarizer on the candidates")
        done = s.replay_episodes
        recent: list[float] = []
        while done < total:
            size = min(s.batch, total - done)
            episodes = []
            for k in range(size):
                frac = (done + k - s.replay_episodes) / max(s.policy_episodes - 1, 1)
                episodes.append(self._explore(s.start_temperature * (s.end_temperature / s.start_temperature) ** frac))
            rewards = self.scale(self.reward([summary for summary, _ in episodes]))
            for (_, phis), r in zip(episodes, rewards):
                self.value.update(phis, self._returns(phis, float(r)), s.learning_rate)
            done += size
            recent = [*recent[-75:], *rewards.tolist()]
            yield Progress(done, total, "training the summarizer on its own drafts", metrics_of(reward=np.mean(recent)))
        return self.write()

    def write(self) -> tuple[int, ...]:
        """The greedy summary: the best successor each step, stopping when the draft's own reward is higher."""
        env = self.env
        env.reset()
        while len(actions := env.actions()):
            values = self.value.successor_values(actions)
            best = int(np.argmax(values))
            may_stop = env.order and env.words >= self.min_stop_words
            if may_stop and float(self.scale(self.reward([env.summary]))[0]) >= values[best]:
                break
            env.step(int(actions[best]))
        summary = env.summary
        env.reset()
        return summary
