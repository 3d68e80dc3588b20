"""Which unlabelled questions a person should label next: one small class per strategy (BoTorch style).

Every acquisition takes a ``PoolEstimate`` (what the current model says about the U unlabelled questions)
and returns the indices of the k to label. ``needs_samples`` says whether it reads the MC-dropout samples
(the loop then runs the T passes); ``self_paced`` whether the loop should also pseudo-label the easiest of
the rest (DASL only).

- ``RandomAcquisition``: k uniformly at random.
- ``BALD``: the highest mutual information of "which answer is correct" (assistant.learning.uncertainty).
- ``DAL``: the highest expected ranking loss (DASL's active step without the self-paced part).
- ``DASL``: DAL's choice, plus the self-paced pseudo-labels of ``pace``.
- ``CoreSet``: greedy k-centre (Sener & Savarese 2018) on question representations: each pick is the
  unlabelled question farthest (Euclidean, on unit vectors) from everything labelled or picked so far.

Libraries: small-text 1.4.1's ``greedy_coreset`` mixes positions in the unlabelled index with dataset
indices after the first pick (it returned a wrong second centre on a 5-point case), and baal 2.1.0
requires jupyter, torchmetrics and structlog for a five-line score and draws its dropout masks from the
global torch RNG; so both strategies are written (and tested) here.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np

from assistant.errors import ConfigError
from assistant.learning.pace import SelfPacedPace


@dataclass
class PoolEstimate:
    """The model's view of the pool. Shapes: losses, bald [U]; embeddings [U, D]; labelled_embeddings [L, D];
    samples: U arrays [T, N_q] (empty when no acquisition needed them)."""

    losses: np.ndarray
    bald: np.ndarray
    embeddings: np.ndarray
    labelled_embeddings: np.ndarray
    samples: list[np.ndarray] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.embeddings)


class Acquisition(ABC):
    name = "acquisition"
    needs_samples = True
    self_paced = False

    def __call__(self, pool: PoolEstimate, k: int, rng: np.random.Generator) -> np.ndarray:
        """Indices [min(k, U)] of the questions to label, in the order chosen."""
        if k < 0:
            raise ConfigError(f"the number of questions to label must be >= 0, got {k}")
        k = min(k, pool.size)
        if k == 0:
            return np.zeros(0, dtype=np.int64)
        return np.asarray(self.select(pool, k, rng), dtype=np.int64)

    @abstractmethod
    def select(self, pool: PoolEstimate, k: int, rng: np.random.Generator) -> np.ndarray:
        """0 < k <= U."""


def _top(scores: np.ndarray, k: int) -> np.ndarray:
    """The k highest scores, ties broken by index (stable)."""
    return np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")[:k]


class RandomAcquisition(Acquisition):
    name = "random"
    needs_samples = False

    def select(self, pool: PoolEstimate, k: int, rng: np.random.Generator) -> np.ndarray:
        return rng.choice(pool.size, size=k, replace=False)


class BALD(Acquisition):
    name = "bald"

    def select(self, pool: PoolEstimate, k: int, rng: np.random.Generator) -> np.ndarray:
        return _top(pool.bald, k)


class DAL(Acquisition):
    name = "dal"

    def select(self, pool: PoolEstimate, k: int, rng: np.random.Generator) -> np.ndarray:
        return _top(pool.losses, k)


class DASL(DAL):
    """DAL's active step; ``pseudo_labelled`` gives the self-paced step of a round."""

    name = "dasl"
    self_paced = True

    def __init__(self, pace: SelfPacedPace | None = None) -> None:
        self.pace = pace or SelfPacedPace()

    def pseudo_labelled(self, pool: PoolEstimate, chosen: np.ndarray, round_index: int) -> np.ndarray:
        """Indices of the pool to pseudo-label in ``round_index``, never one of ``chosen`` (sent to a person)."""
        excluded = np.zeros(pool.size, dtype=bool)
        excluded[np.asarray(chosen, dtype=np.int64)] = True
        return self.pace.select(pool.losses, round_index, excluded)


def greedy_k_centre(points: np.ndarray, centres: np.ndarray, k: int) -> np.ndarray:
    """Indices of ``k`` of ``points`` [U, D] chosen greedily, each the farthest from ``centres`` [L, D] and
    the points chosen before it (the first point when there is no centre yet)."""
    x = np.asarray(points, dtype=np.float64)
    c = np.asarray(centres, dtype=np.float64).reshape(-1, x.shape[1])
    if len(c):
        sq = (x**2).sum(1)[:, None] - 2 * x @ c.T + (c**2).sum(1)[None, :]
        nearest = np.clip(sq.min(axis=1), 0.0, None)
    else:
        nearest = np.full(len(x), np.inf)
    chosen: list[int] = []
    for _ in range(min(k, len(x))):
        i = int(np.argmax(nearest))
        chosen.append(i)
        nearest = np.minimum(nearest, np.clip(((x - x[i]) ** 2).sum(axis=1), 0.0, None))
        nearest[chosen] = -1.0
    return np.array(chosen, dtype=np.int64)


def _unit(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


class CoreSet(Acquisition):
    name = "coreset"
    needs_samples = False

    def select(self, pool: PoolEstimate, k: int, rng: np.random.Generator) -> np.ndarray:
        return greedy_k_centre(_unit(pool.embeddings), _unit(pool.labelled_embeddings), k)


ACQUISITIONS: dict[str, type[Acquisition]] = {
    "dasl": DASL,
    "dal": DAL,
    "bald": BALD,
    "coreset": CoreSet,
    "random": RandomAcquisition,
}


def make_acquisition(name: str, pace: SelfPacedPace | None = None) -> Acquisition:
    """The acquisition called ``name`` (``pace``: DASL's self-paced schedule)."""
    if name not in ACQUISITIONS:
        raise ConfigError(f"unknown acquisition {name!r}: use one of {', '.join(ACQUISITIONS)}")
    return DASL(pace) if name == "dasl" else ACQUISITIONS[name]()
