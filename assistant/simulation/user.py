"""The simulated user (IC 4.4): answers questions about its target from distributions the agent never saw.

Answers use common random numbers: an episode carries a seed, and the answer to question q is the
inverse CDF of p'(r | q, target) at a uniform drawn for q from that seed, so every system in an
evaluation meets exactly the same user. ``UserNoise`` (assistant.simulation.noise) corrupts a share of the
answers (flipped, "not sure", another person's), with uniforms of its own so that the uncorrupted answers
stay the same at every noise level. ``check_simulator`` validates a simulator before it is used
(like stable-baselines3's check_env); the batched torch environment of policy training
(``assistant.simulation.environment``) samples from the same CDFs (``sample_answers``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from assistant.clarification.answer_list import LIST_ERROR
from assistant.errors import ConfigError
from assistant.simulation.episodes import EpisodeSpec
from assistant.simulation.noise import NOISE_STREAM, NOT_SURE, UserNoise, corrupt_answers
from assistant.simulation.sampling import sample_answers

# Seeds the uniforms of an episode's answer-list questions apart from its other answers.
LIST_STREAM = 15485863


class SimulatedUser:
    """Answers questions about its target by sampling ``answers`` [Q, R, Y] with common random numbers;
    ``noise`` corrupts a share of the answers (``answer`` then may return ``NOT_SURE``). An answer-list
    question ("Which of these is it?") is answered as its exact answer model says, with ``list_error``."""

    def __init__(
        self,
        answers: np.ndarray,
        option_mask: np.ndarray,
        noise: UserNoise | None = None,
        list_error: float = LIST_ERROR,
    ) -> None:
        self.answers = np.asarray(answers, dtype=np.float64)
        self.option_mask = np.asarray(option_mask, dtype=bool)
        self.noise = noise or UserNoise()
        self._cdf = np.cumsum(np.where(self.option_mask[:, :, None], self.answers, 0.0), axis=1)
        self.other_answers = (
            self.noise.other_answers(self.answers, self.option_mask) if self.noise.rate > 0 else self.answers
        )
        self._other_cdf = np.cumsum(self.other_answers, axis=1)
        self.list_error = list_error
        self.target: int | None = None
        self._uniforms: np.ndarray | None = None
        self._noise_uniforms: np.ndarray | None = None
        self._list_rng: np.random.Generator | None = None

    def start(self, episode: EpisodeSpec) -> str:
        """Begin an episode; returns the initial query."""
        if not 0 <= episode.target < self.answers.shape[2]:
            raise ConfigError(f"episode target {episode.target} is not a label index")
        self.target = episode.target
        self._uniforms = np.random.default_rng(episode.seed).random((self.answers.shape[0],))
        self._noise_uniforms = np.random.default_rng([episode.seed, NOISE_STREAM]).random((self.answers.shape[0], 2))
        self._list_rng = np.random.default_rng([episode.seed, LIST_STREAM])
        return episode.query

    def answer_list(self, listed: Sequence[int]) -> int:
        """The option the user picks on "Which of these is it?" over the labels ``listed`` (label indices, in
        list order; option ``len(listed)`` is "none of these"): its own label if listed, else "none", except
        with probability ``list_error`` another option."""
        if self.target is None or self._list_rng is None:
            raise ConfigError("call start(episode) before asking the simulated user")
        listed = [int(i) for i in listed]
        meant = listed.index(self.target) if self.target in listed else len(listed)
        slip, other = self._list_rng.random(2)
        if slip >= self.list_error:
            return meant
        others = [r for r in range(len(listed) + 1) if r != meant]
        return others[min(int(other * len(others)), len(others) - 1)]

    def answer(self, question: int) -> int:
        """The option index the user picks for ``question`` (``NOT_SURE`` when the noise says so)."""
        if self.target is None or self._uniforms is None or self._noise_uniforms is None:
            raise ConfigError("call start(episode) before asking the simulated user")
        cdf = self._cdf[question, :, self.target]
        n = self.option_mask[question].sum(keepdims=True)
        picked = sample_answers(cdf[None, :], n, self._uniforms[question : question + 1])
        if self.noise.rate > 0:
            other = self._other_cdf[question, :, self.target][None, :]
            picked = corrupt_answers(picked, n, self._noise_uniforms[question : question + 1], other, self.noise)
        return int(picked[0])


def check_simulator(user: SimulatedUser, episodes: Sequence[EpisodeSpec], num_labels: int) -> None:
    """Validate a simulator before spending time on it (like stable-baselines3's check_env).

    Checks: answer distributions are finite, non-negative and sum to 1 over each question's options;
    padded options have no mass; targets are label indices; queries are non-empty; every answer is a
    valid option (or "not sure" where the noise allows it); the same episode gives the same answers twice (determinism).
    """
    a = user.answers
    if a.ndim != 3 or a.shape[2] != num_labels:
        raise ConfigError(f"simulator answers have shape {a.shape}, expected [Q, R, {num_labels}]")
    if not np.all(np.isfinite(a)) or np.any(a < 0):
        raise ConfigError("simulator answer probabilities must be finite and non-negative")
    if np.any(a[~user.option_mask] > 0):
        raise ConfigError("simulator puts probability on options that do not exist")
    sums = a.sum(axis=1)
    if not np.allclose(sums, 1.0, atol=1e-4):
        worst = np.unravel_index(np.argmax(np.abs(sums - 1.0)), sums.shape)
        raise ConfigError(
            f"simulator answers for question {worst[0]}, label {worst[1]} sum to {sums[worst]:.4f}, not 1"
        )
    if not episodes:
        raise ConfigError("no episodes to simulate")
    n_questions = a.shape[0]
    for i, episode in enumerate(episodes[:50]):
        if not 0 <= episode.target < num_labels:
            raise ConfigError(f"episode {i}: target {episode.target} is not a label index")
        if not episode.query.strip():
            raise ConfigError(f"episode {i}: the initial query is empty")
        user.start(episode)
        first = [user.answer(q) for q in range(n_questions)]
        user.start(episode)
        second = [user.answer(q) for q in range(n_questions)]
        if first != second:
            raise ConfigError(f"episode {i}: the simulator is not deterministic for a fixed episode seed")
        counts = user.option_mask.sum(axis=1)
        lowest = NOT_SURE if user.noise.rate > 0 and user.noise.not_sure > 0 else 0
        if any(not (lowest <= r < counts[q]) for q, r in enumerate(first)):
            raise ConfigError(f"episode {i}: the simulator gave an option that does not exist")
