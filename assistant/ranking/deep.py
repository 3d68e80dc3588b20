"""BDL's deep ranker as a preference model: pre-trained head, fine-tuned on the user's comparisons.

``pretrain_deep_ranker`` trains the Siamese head (models/deep_ranker.py) on training questions with the
margin ranking loss on pairs ordered by gold utility. During interaction, ``MCDropoutRanker.fit`` starts
from those weights, takes ``steps`` Adam steps on the comparisons so far (margin loss + L2 as weight decay),
and ``posterior`` runs T forward passes with dropout on: the mean and sample covariance of the T score
vectors (a rank <= T - 1 covariance). ``DeepRanker`` is the same network without the posterior (dropout
off, zero variance): the non-Bayesian deep ranker that BDL pairs with uncertainty sampling (UNC).
``SWAGRanker`` is the second posterior of BDL: SWAG moments collected after pre-training
(``collect_swag``), centred on the fine-tuned weights.

The model's own prediction is its prior, so the ``prior`` argument of ``fit`` is not used; the cosine of
question and candidate is one of its input features instead. Shapes: features [N, D_in] from
``models.deep_ranker.pair_features``.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from assistant.errors import ConfigError, check_fitted
from assistant.progress import Job, Progress, metrics_of
from assistant.ranking.base import (
    Comparisons,
    PointPosterior,
    Posterior,
    PreferenceModel,
    SamplePosterior,
    check_inputs,
)
from models.deep_ranker import SiameseRanker, margin_ranking_loss


@dataclass(frozen=True)
class RankingExample:
    """One training question: ranker inputs [N, D_in] and gold utilities [N]."""

    features: np.ndarray
    utilities: np.ndarray


def _training_pairs(
    utilities: np.ndarray, rng: np.random.Generator, count: int, best_fraction: float, min_gap: float
) -> torch.Tensor | None:
    """Up to ``count`` (winner, loser) index pairs [P, 2] whose gold utilities differ by more than ``min_gap``,
    or None if there is none. A share ``best_fraction`` puts the best candidate against another one: top-1
    accuracy is what counts."""
    g = np.asarray(utilities, dtype=np.float64)
    i = rng.integers(0, len(g), count * 2)
    i[rng.random(len(i)) < best_fraction] = int(np.argmax(g))
    j = rng.integers(0, len(g), count * 2)
    keep = np.abs(g[i] - g[j]) > min_gap
    i, j = i[keep][:count], j[keep][:count]
    if len(i) == 0:
        return None
    return torch.from_numpy(np.stack([np.where(g[i] > g[j], i, j), np.where(g[i] > g[j], j, i)], axis=1))


def pretrain_deep_ranker(
    examples: Sequence[RankingExample],
    seed: int = 0,
    epochs: int = 8,
    pairs_per_question: int = 64,
    hidden: int = 256,
    dropout: float = 0.2,
    margin: float = 0.1,
    lr: float = 1e-3,
    weight_decay: float = 1e-4,
    min_gap: float = 0.02,
    prior_weight: float = 5.0,
    best_fraction: float = 0.5,
) -> Job[SiameseRanker]:
    """Train the head on pairs (i, j) with g_i > g_j + ``min_gap`` of each example; yields Progress per epoch.

    ``prior_weight`` initialises the skip term on the cosine feature (see ``SiameseRanker``; 0 = none);
    ``best_fraction`` of the pairs pit the question's best candidate against a random other one.

    Pairs are drawn with an explicit numpy Generator and dropout masks with a seeded torch.Generator, so
    the same seed gives the same weights.
    """
    if not examples:
        raise ConfigError("pretraining the deep ranker needs at least one training question")
    rng = np.random.default_rng(seed)
    gen = torch.Generator().manual_seed(seed)
    in_dim = examples[0].features.shape[1]
    torch_state = torch.random.get_rng_state()
    torch.manual_seed(seed)  # only the initial weights; restored below so callers' global state is unchanged
    model = SiameseRanker(in_dim, hidden=hidden, dropout=dropout, prior_weight=prior_weight)
    torch.random.set_rng_state(torch_state)
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    feats = [torch.from_numpy(np.asarray(e.features, dtype=np.float32)) for e in examples]
    for epoch in range(epochs):
        model.train()
        total = 0.0
        for q in rng.permutation(len(examples)):
            pairs = _training_pairs(examples[q].utilities, rng, pairs_per_question, best_fraction, min_gap)
            if pairs is None:
                continue
            scores = model(feats[q], generator=gen)
            loss = margin_ranking_loss(scores, pairs, torch.ones(len(pairs)), margin)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach())
        yield Progress(epoch + 1, epochs, "pretraining the deep ranker", metrics_of(loss=total / len(examples)))
    model.eval()
    return model


class DeepRanker(PreferenceModel):
    """The deep ranker fine-tuned on the comparisons, as a point estimate (dropout off at prediction).

    Parameters
    ----------
    pretrained : the pre-trained head (copied, never modified).
    steps, lr, weight_decay, margin : fine-tuning on the comparisons (Adam; weight decay is the L2 term).
    seed : seeds the dropout masks of fine-tuning (and of MC sampling in ``MCDropoutRanker``).
    """

    name = "deep"
    bayesian = False

    def __init__(
        self,
        pretrained: SiameseRanker,
        steps: int = 30,
        lr: float = 1e-3,
        weight_decay: float = 1e-4,
        margin: float = 0.1,
        seed: int = 0,
        finetune: str = "all",
        anchor: float = 0.0,
    ) -> None:
        self.pretrained = pretrained
        self.steps = steps
        self.lr = lr
        self.weight_decay = weight_decay
        self.margin = margin
        self.seed = seed
        self.finetune = finetune
        self.anchor = anchor

    def fit(self, features: np.ndarray, prior: np.ndarray | None, comparisons: Comparisons) -> DeepRanker:
        if self.steps < 0 or self.lr <= 0 or self.weight_decay < 0 or self.margin < 0 or self.anchor < 0:
            raise ConfigError("deep ranker: steps >= 0, lr > 0, and weight_decay, margin, anchor >= 0 are required")
        if self.finetune not in ("all", "head"):
            raise ConfigError(f"deep ranker finetune must be 'all' or 'head', not {self.finetune!r}")
        x, _ = check_inputs(features, prior, comparisons)
        if x.shape[1] != self.pretrained.config["in_dim"]:
            raise ConfigError(
                f"deep ranker expects {self.pretrained.config['in_dim']} input features, got {x.shape[1]} "
                "(build them with models.deep_ranker.pair_features)"
            )
        self.x_ = torch.from_numpy(x.astype(np.float32))
        model = copy.deepcopy(self.pretrained)
        if len(comparisons) and self.steps:
            gen = torch.Generator().manual_seed(self.seed + 7919 * len(comparisons))
            items = np.unique(comparisons.pairs)
            local = np.searchsorted(items, comparisons.pairs)
            xs = self.x_[torch.from_numpy(items)]
            pairs = torch.from_numpy(local)
            outcomes = torch.from_numpy(comparisons.outcomes)
            # "head": only the output layer and the prior weight move (a stable last-layer update);
            # ``anchor`` adds an L2 pull towards the pre-trained weights, ``weight_decay`` one towards zero.
            names = {"out.weight", "out.bias", "prior_weight"} if self.finetune == "head" else None
            params = {n: p for n, p in model.named_parameters() if p.requires_grad and (names is None or n in names)}
            start = {n: p.detach().clone() for n, p in params.items()}
            opt = torch.optim.Adam(params.values(), lr=self.lr, weight_decay=self.weight_decay)
            model.train()
            for _ in range(self.steps):
                loss = margin_ranking_loss(model(xs, generator=gen), pairs, outcomes, self.margin)
                if self.anchor:
                    loss = loss + self.anchor * sum(((p - start[n]) ** 2).sum() for n, p in params.items())
                opt.zero_grad()
                loss.backward()
                opt.step()
        model.eval()
        self.model_ = model
        return self

    @torch.no_grad()
    def posterior(self) -> Posterior:
        check_fitted(self, "model_", "x_")
        return PointPosterior(self.model_(self.x_).double().numpy())


class MCDropoutRanker(DeepRanker):
    """BDL's Bayesian deep ranker: the fine-tuned network with dropout on at prediction, T samples.

    ``samples`` (T, default 20) forward passes give scores [T, N]; the posterior is their mean and sample
    covariance (``SamplePosterior``).
    """

    name = "mcd"
    bayesian = True

    def __init__(self, pretrained: SiameseRanker, samples: int = 20, **kwargs) -> None:
        super().__init__(pretrained, **kwargs)
        self.samples = samples

    @torch.no_grad()
    def posterior(self) -> Posterior:
        check_fitted(self, "model_", "x_")
        if self.samples < 2:
            raise ConfigError(f"MC dropout needs at least 2 samples, got {self.samples}")
        gen = torch.Generator().manual_seed(self.seed + 104729)
        draws = self.model_(self.x_, mc=True, generator=gen, samples=self.samples)  # [T, N], fresh masks per sample
        return SamplePosterior(draws.double().numpy())


# ---- SWAG (Maddox et al. 2019): a second posterior for the deep ranker ----------------------------------------
@dataclass(frozen=True)
class SWAGMoments:
    """SWAG's Gaussian over the flattened weights [P]: the SWA mean, the mean of squares, and K deviations [K, P]."""

    mean: torch.Tensor
    sq_mean: torch.Tensor
    deviations: torch.Tensor

    @property
    def variance(self) -> torch.Tensor:
        return torch.clamp(self.sq_mean - self.mean**2, min=1e-12)


def collect_swag(
    pretrained: SiameseRanker,
    examples: Sequence[RankingExample],
    seed: int = 0,
    epochs: int = 2,
    lr: float = 1e-3,
    rank: int = 20,
    pairs_per_question: int = 64,
    margin: float = 0.1,
    min_gap: float = 0.02,
    best_fraction: float = 0.5,
) -> Job[SWAGMoments]:
    """Continue training a copy of ``pretrained`` for ``epochs`` at a constant learning rate, recording the
    running first and second moments of the weights after every step and the last ``rank`` deviations."""
    if not examples or epochs < 1 or rank < 2:
        raise ConfigError("SWAG needs training questions, epochs >= 1 and rank >= 2")
    rng = np.random.default_rng(seed + 1)
    gen = torch.Generator().manual_seed(seed + 1)
    model = copy.deepcopy(pretrained)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    feats = [torch.from_numpy(np.asarray(e.features, dtype=np.float32)) for e in examples]
    count = 0
    mean = sq_mean = None
    deviations: list[torch.Tensor] = []
    for epoch in range(epochs):
        model.train()
        for q in rng.permutation(len(examples)):
            pairs = _training_pairs(examples[q].utilities, rng, pairs_per_question, best_fraction, min_gap)
            if pairs is None:
                continue
            loss = margin_ranking_loss(model(feats[q], generator=gen), pairs, torch.ones(len(pairs)), margin)
            opt.zero_grad()
            loss.backward()
            opt.step()
            with torch.no_grad():
                theta = torch.nn.utils.parameters_to_vector(model.parameters()).detach().clone()
                count += 1
                mean = theta if mean is None else mean + (theta - mean) / count
                sq_mean = theta**2 if sq_mean is None else sq_mean + (theta**2 - sq_mean) / count
                deviations = [*deviations[-(rank - 1) :], theta - mean]
        yield Progress(epoch + 1, epochs, "collecting SWAG moments")
    if mean is None or sq_mean is None or len(deviations) < 2:
        raise ConfigError("SWAG saw too few training steps: use more questions or epochs")
    return SWAGMoments(mean, sq_mean, torch.stack(deviations))


class SWAGRanker(DeepRanker):
    """The deep ranker with a SWAG posterior: fine-tune the SWA mean weights on the comparisons, then draw
    ``samples`` weight vectors theta_ft + scale * (sqrt(diag) z1 / sqrt(2) + D^T z2 / sqrt(2 (K - 1))) and
    score the candidates with each (dropout off)."""

    name = "swag"
    bayesian = True

    def __init__(
        self, pretrained: SiameseRanker, moments: SWAGMoments, samples: int = 20, scale: float = 1.0, **kwargs
    ):
        swa = copy.deepcopy(pretrained)
        torch.nn.utils.vector_to_parameters(moments.mean.clone(), swa.parameters())
        super().__init__(swa, **kwargs)
        self.moments = moments
        self.samples = samples
        self.scale = scale

    @torch.no_grad()
    def posterior(self) -> Posterior:
        check_fitted(self, "model_", "x_")
        if self.samples < 2 or self.scale < 0:
            raise ConfigError("SWAG needs samples >= 2 and scale >= 0")
        gen = torch.Generator().manual_seed(self.seed + 15485863)
        center = torch.nn.utils.parameters_to_vector(self.model_.parameters()).detach()
        sd = self.moments.variance.sqrt()
        dev = self.moments.deviations
        k = dev.shape[0]
        scratch = copy.deepcopy(self.model_)
        draws = []
        for _ in range(self.samples):
            z1 = torch.randn(center.shape, generator=gen)
            z2 = torch.randn(k, generator=gen)
            theta = center + self.scale * (sd * z1 / np.sqrt(2.0) + dev.T @ z2 / np.sqrt(2.0 * (k - 1)))
            torch.nn.utils.vector_to_parameters(theta, scratch.parameters())
            draws.append(scratch(self.x_))
        return SamplePosterior(torch.stack(draws).double().numpy())
