"""Rewards for the RL summarizer: a score for *any* summary of a prepared topic (a sorted tuple of sentence
indices), so that the agent can be rewarded for summaries that are not among the candidates.

* ``LearnedReward``: the ranker's posterior mean, i.e. GPPL's predictive mean for a new summary x*
  (``GPPL.predict_mean``: prior_scale * standardised prior(x*) + k(x*, compared items) alpha), with the prior
  (REAPER or MiniLM) and the features (bigram+ or pooled MiniLM) of x* computed as for the candidates.
  Without comparisons it is the prior alone.
* ``GoldReward``: BO's gold utility (eq. 8: R1/0.47 + R2/0.22 + RSU4/0.18, recall) against one or more
  reference summaries (averaged): the upper bound, and the simulated user's own utility.

Both are called on a batch: ``reward(summaries) -> [N]``. ``RewardScale`` maps rewards to BO's [0, 10]
range with the candidates' minimum and maximum (``normaliseList`` in BO's code), so that one temperature
and one learning rate fit every topic and reward.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from assistant.errors import ConfigError
from assistant.ranking.base import PreferenceModel
from assistant.ranking.gppl import GPPL
from assistant.summarization.candidates import CandidateSet
from assistant.summarization.features import bigram_plus, pooled_embeddings
from assistant.summarization.priors import minilm_prior, reaper_prior
from assistant.summarization.rouge import CandidateRouge

Reward = Callable[[Sequence[tuple[int, ...]]], np.ndarray]


class LearnedReward:
    """The GPPL posterior mean as a function of any summary of ``prepared`` (see the module docstring).

    ``model`` must have been fitted on ``prepared``'s candidates with features ``features`` and prior
    ``prior`` (it is read through ``GPPL.predict_mean``, never refitted).
    """

    def __init__(self, prepared, model: PreferenceModel, prior: str = "reaper", features: str = "bigram") -> None:
        if not isinstance(model, GPPL):
            raise ConfigError("the learned reward needs the GPPL ranker (any strategy but unc)")
        if features not in prepared.features or prior not in prepared.priors:
            raise ConfigError(f"features {features!r} and prior {prior!r} must be prepared for the topic first")
        self.prepared, self.model, self.prior_name, self.features_name = prepared, model, prior, features

    def __call__(self, summaries: Sequence[tuple[int, ...]]) -> np.ndarray:
        prep = self.prepared
        candidates = CandidateSet([tuple(s) for s in summaries], ["rl"] * len(summaries), len(prep.table))
        if self.prior_name == "reaper":
            prior = reaper_prior(prep.table, prep.reaper, candidates, prep.query_cosine)
        else:
            prior = minilm_prior(prep.table, candidates, prep.embeddings, prep.question_embedding)
        if self.features_name == "bigram":
            features = bigram_plus(prep.table, candidates, prep.bigrams, prep.max_words)
        else:
            features = pooled_embeddings(candidates, prep.embeddings)
        return self.model.predict_mean(features, prior)


class GoldReward:
    """BO's gold utility (unnormalised, recall) against ``references``, averaged over them."""

    def __init__(self, table, references: Sequence[Sequence[str]]) -> None:
        if not references:
            raise ConfigError("the gold reward needs at least one reference summary")
        self.rouge = CandidateRouge(table.tokens)
        self.references = [list(r) for r in references]

    def __call__(self, summaries: Sequence[tuple[int, ...]]) -> np.ndarray:
        return self.rouge.utility(summaries, self.references).mean(axis=0)


@dataclass(frozen=True)
class RewardScale:
    """The affine map of a reward onto [0, 10] over reference values (the candidates' rewards)."""

    low: float
    high: float

    @classmethod
    def of(cls, values: np.ndarray) -> RewardScale:
        v = np.asarray(values, dtype=np.float64)
        low, high = float(v.min()), float(v.max())
        return cls(low, high if high > low else low + 1.0)

    def __call__(self, values: np.ndarray) -> np.ndarray:
        return (np.asarray(values, dtype=np.float64) - self.low) * 10.0 / (self.high - self.low)
