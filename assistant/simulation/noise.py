"""The simulated user's noise knob: people do not answer like the agent's answer model.

With ``UserNoise(rate)``, a share ``rate`` of the user's answers is corrupted, split between three kinds
(``flip``, ``not_sure``, ``other``, shares of the corrupted answers, summing to 1):

- *flipped*: another option than the one the user meant, uniformly among the question's other options;
- *not sure*: the user says "not sure" (``NOT_SURE``; the agent's belief does not move);
- *another person's answer*: drawn from a distribution the agent never saw: for every (question, label),
  a re-draw of the user's answer distribution from a Dirichlet centred on it (``concentration`` per
  option), fixed for a simulator by its ``seed``. It stands for a person whose idea of the label differs
  from the data's.

Common random numbers: the uncorrupted answer is the inverse CDF of the user's distribution at the same
uniform as without noise, and the corruption uses uniforms of its own (two per question), so the same
episode seed gives the same answers at every noise level except the corrupted ones. ``corrupt_answers``
is the one source for the numpy ``SimulatedUser`` and the batched torch environment of policy training.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from assistant.errors import ConfigError
from assistant.simulation.sampling import sample_answers

# The answer index of "not sure" (no option; the belief does not move).
NOT_SURE = -1
# Seeds the corruption uniforms of an episode apart from its answer uniforms.
NOISE_STREAM = 104729


@dataclass(frozen=True)
class UserNoise:
    """``rate``: share of corrupted answers in [0, 1); ``flip``, ``not_sure``, ``other``: how the corrupted
    answers split (non-negative, normalised to sum 1); ``concentration``: Dirichlet concentration per option of
    the other person's distribution (smaller: further from the user's); ``seed``: draws that distribution."""

    rate: float = 0.0
    flip: float = 1.0
    not_sure: float = 1.0
    other: float = 1.0
    concentration: float = 2.0
    seed: int = 0

    def __post_init__(self) -> None:
        if not 0.0 <= self.rate < 1.0:
            raise ConfigError(f"the user noise rate must be in [0, 1), got {self.rate}")
        shares = (self.flip, self.not_sure, self.other)
        if min(shares) < 0 or sum(shares) <= 0:
            raise ConfigError(f"noise shares flip, not_sure, other must be >= 0 and not all 0, got {shares}")
        if self.concentration <= 0:
            raise ConfigError(f"the Dirichlet concentration must be positive, got {self.concentration}")

    @property
    def bounds(self) -> tuple[float, float, float]:
        """Cumulative thresholds on a uniform: below the first flip, then not sure, then another person."""
        total = self.flip + self.not_sure + self.other
        flip = self.rate * self.flip / total
        not_sure = flip + self.rate * self.not_sure / total
        return flip, not_sure, self.rate

    def describe(self) -> str:
        if self.rate == 0:
            return "no user noise"
        total = self.flip + self.not_sure + self.other
        parts = [f"{share / total:.0%} {name}" for share, name in self._named() if share > 0]
        return f"user noise {self.rate:.0%} of answers ({', '.join(parts)})"

    def _named(self) -> list[tuple[float, str]]:
        return [(self.flip, "flipped"), (self.not_sure, "not sure"), (self.other, "another person's")]

    def other_answers(self, answers: np.ndarray, option_mask: np.ndarray) -> np.ndarray:
        """[Q, R, Y] another person's answer distributions: Dirichlet(concentration * R_q * p + 0.05) per
        (question, label), 0 on padded options (see the module docstring)."""
        p = np.asarray(answers, dtype=np.float64)
        mask = np.asarray(option_mask, dtype=bool)[:, :, None]
        n_options = mask.sum(axis=1, keepdims=True)
        alpha = np.where(mask, self.concentration * n_options * p + 0.05, 1.0)
        draws = np.where(mask, np.random.default_rng(self.seed).gamma(alpha), 0.0)
        return draws / draws.sum(axis=1, keepdims=True)

    def effective_answers(self, answers: np.ndarray, option_mask: np.ndarray) -> np.ndarray:
        """[Q, R, Y] the distribution of the user's answers given that one was given (not "not sure"):
        what the agent's answer model meets. Used to measure how alike agent and user are."""
        p = np.asarray(answers, dtype=np.float64)
        mask = np.asarray(option_mask, dtype=bool)[:, :, None]
        n_options = mask.sum(axis=1, keepdims=True)
        flip_end, unsure_end, other_end = self.bounds
        flipped = np.where(mask, (1.0 - p) / np.maximum(n_options - 1, 1), 0.0)
        mixed = (
            (1.0 - other_end) * p + flip_end * flipped + (other_end - unsure_end) * self.other_answers(p, mask[..., 0])
        )
        return mixed / mixed.sum(axis=1, keepdims=True)


def corrupt_answers(answers, n_options, uniforms, other_cdf, noise: UserNoise, xp=np):
    """The user's answers [B] after the noise, for numpy (``xp=np``) and torch (``xp=torch``) alike.

    ``answers`` [B] the uncorrupted option indices; ``n_options`` [B] int; ``uniforms`` [B, 2] in [0, 1): which
    corruption (column 0) and the replacement (column 1); ``other_cdf`` [B, R]: the other person's cumulative
    answer distribution for these (question, target) pairs. ``NOT_SURE`` marks "not sure".
    """
    flip_end, unsure_end, other_end = noise.bounds
    kind, pick = uniforms[:, 0], uniforms[:, 1]
    shifted = pick * (n_options - 1)
    index = shifted.astype(np.int64) if xp is np else shifted.long()
    index = xp.minimum(index, n_options - 2)
    flipped = index + (index >= answers)
    other = sample_answers(other_cdf, n_options, pick, xp)
    out = xp.where(kind < other_end, other, answers)
    out = xp.where(kind < unsure_end, xp.full_like(answers, NOT_SURE) if xp is not np else NOT_SURE, out)
    return xp.where((kind < flip_end) & (n_options > 1), flipped, out)
