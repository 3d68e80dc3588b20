"""The self-paced pace: which unlabelled questions the model may label itself in round r.

Self-paced learning (Kumar et al. 2010) admits the easy examples first and harder ones as training goes
on. DASL measures "easy" by the expected ranking loss: a question whose MC samples agree on the top answer
has a loss near 0. In round r a question is pseudo-labelled (with the model's own top answer) when its
expected loss is below ``threshold(r) = min(limit, start * growth ** r)``; pseudo-labels are recomputed every
round, with the then current model. ``max_fraction`` caps how much of the unlabelled pool one round may
pseudo-label (the easiest first).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from assistant.errors import ConfigError


@dataclass(frozen=True)
class SelfPacedPace:
    start: float = 0.02
    growth: float = 1.5
    limit: float = 0.3
    max_fraction: float = 0.5

    def __post_init__(self) -> None:
        if not (self.start >= 0 and self.growth >= 1 and self.limit >= self.start):
            raise ConfigError("self-paced pace: start >= 0, growth >= 1 and limit >= start are required")
        if not 0 <= self.max_fraction <= 1:
            raise ConfigError(f"max_fraction must lie in [0, 1], got {self.max_fraction}")

    def threshold(self, round_index: int) -> float:
        """The expected-loss threshold of round ``round_index`` (0-based); grows, never shrinks."""
        if round_index < 0:
            raise ConfigError(f"rounds count from 0, got {round_index}")
        return float(min(self.limit, self.start * self.growth**round_index))

    def select(self, losses: np.ndarray, round_index: int, excluded: np.ndarray | None = None) -> np.ndarray:
        """Indices of ``losses`` [U] to pseudo-label in this round, easiest first (``excluded`` [U] bool: never)."""
        losses = np.asarray(losses, dtype=np.float64)
        ok = losses < self.threshold(round_index)
        if excluded is not None:
            ok &= ~np.asarray(excluded, dtype=bool)
        chosen = np.flatnonzero(ok)
        chosen = chosen[np.argsort(losses[chosen], kind="stable")]
        return chosen[: int(np.floor(self.max_fraction * len(losses)))]
