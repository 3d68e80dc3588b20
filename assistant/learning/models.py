"""The two answer-selection models DASL compares, behind one interface, and their training.

- ``DeepSelector`` ("deep"): BDL's Siamese MC-dropout ranker head (models/deep_ranker.py) over frozen
  MiniLM sentence embeddings, ``pair_features`` as inputs, its cosine skip term included.
- ``EncoderSelector`` ("encoder"): DASL's trainable text encoder, a CNN over frozen MiniLM word-piece
  vectors (models/answer_cnn.py), trained end to end.

Both train on (question, graded targets) pairs with the margin ranking loss on every candidate pair whose
targets differ (a labelled question gives its grades; a pseudo-labelled one 1 for the model's own top
answer, 0 elsewhere). Training: Adam, ``batch_questions`` questions per step, an epoch covers the training
questions (at least ``min_questions_per_epoch`` draws), early stopping on dev MRR with ``patience``; the
best epoch's weights are kept. Same seed, same weights (explicit numpy and torch generators).

``mc_samples`` gives the T stochastic score vectors of each question (dropout on), ``scores`` the
deterministic ones, ``embed`` the question representation Core-Set spreads its picks over (deep: the frozen
MiniLM question vector the head reads; encoder: the trained CNN's question vector).
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from assistant.errors import ConfigError
from assistant.learning.problems import LearningProblem, mrr
from assistant.progress import Job, Progress, metrics_of
from models.answer_cnn import CNNAnswerRanker
from models.deep_ranker import SiameseRanker, margin_ranking_loss, pair_features

MODELS = ("deep", "encoder")


@dataclass(frozen=True)
class TrainConfig:
    """Training of either model (``hidden``/``dropout``: the head; DASL's dropout is 0.5). ``margin`` 0.5
    beat BDL's 0.1 on the dev split of SemEval seed 0 (dev MRR 0.806 against 0.782, all pool labels)."""

    epochs: int = 30
    patience: int = 4
    batch_questions: int = 16
    min_questions_per_epoch: int = 128
    lr: float = 1e-3
    weight_decay: float = 1e-4
    margin: float = 0.5
    hidden: int = 256
    dropout: float = 0.5
    max_tokens: int = 48

    def __post_init__(self) -> None:
        if min(self.epochs, self.batch_questions, self.min_questions_per_epoch, self.max_tokens) < 1:
            raise ConfigError("epochs, batch_questions, min_questions_per_epoch and max_tokens must be >= 1")
        if not 0 <= self.dropout < 1 or self.lr <= 0 or self.margin < 0:
            raise ConfigError("dropout must lie in [0, 1), lr > 0 and margin >= 0")


def target_pairs(targets: np.ndarray) -> np.ndarray:
    """[P, 2] (better, worse) index pairs of one question's targets [N]."""
    t = np.asarray(targets)
    i, j = np.nonzero(t[:, None] > t[None, :])
    return np.stack([i, j], axis=1).astype(np.int64)


class AnswerSelector(ABC):
    """Constructors store; ``fit`` validates and trains (a job); the rest predicts."""

    name = "selector"

    def __init__(self, config: TrainConfig | None = None, seed: int = 0) -> None:
        self.config = config or TrainConfig()
        self.seed = seed
        self.net: torch.nn.Module | None = None

    # -- hooks --
    @abstractmethod
    def _new_net(self) -> torch.nn.Module: ...

    @abstractmethod
    def _forward(
        self, problems: Sequence[LearningProblem], mc: bool, generator: torch.Generator | None, samples: int | None
    ) -> torch.Tensor:
        """Flat scores [sum N] (or [samples, sum N]) of the problems' candidates, in order."""

    @abstractmethod
    def embed(self, problems: Sequence[LearningProblem]) -> np.ndarray:
        """[Q, D] question representations (for Core-Set)."""

    # -- training --
    def fit(
        self,
        problems: Sequence[LearningProblem],
        targets: Sequence[np.ndarray],
        dev: Sequence[LearningProblem] = (),
    ) -> Job[dict]:
        """Train a fresh network on ``problems`` with ``targets`` [N_q] each; early stopping on ``dev`` MRR."""
        if len(problems) != len(targets):
            raise ConfigError(f"{len(problems)} training questions but {len(targets)} target vectors")
        cfg = self.config
        usable = [(p, pairs) for p, t in zip(problems, targets) if len(pairs := target_pairs(t))]
        rng = np.random.default_rng(self.seed)
        gen = torch.Generator().manual_seed(self.seed)
        with torch.random.fork_rng():
            torch.manual_seed(self.seed)
            self.net = self._new_net()
        if not usable:
            self.net.eval()
            return {"epochs": 0, "best_epoch": 0, "dev_mrr": self.dev_mrr(dev)}
        opt = torch.optim.Adam(
            [p for p in self.net.parameters() if p.requires_grad], lr=cfg.lr, weight_decay=cfg.weight_decay
        )
        best = (-1.0, 0, copy.deepcopy(self.net.state_dict()))
        since_best = 0
        epoch = 0
        for epoch in range(1, cfg.epochs + 1):
            self.net.train()
            draws = max(len(usable), cfg.min_questions_per_epoch)
            order = np.concatenate([rng.permutation(len(usable)) for _ in range(-(-draws // len(usable)))])[:draws]
            total = 0.0
            for start in range(0, draws, cfg.batch_questions):
                batch = [usable[i] for i in order[start : start + cfg.batch_questions]]
                offsets = np.cumsum([0] + [len(p.texts) for p, _ in batch[:-1]])
                batch_pairs = torch.from_numpy(np.concatenate([pr + off for (_, pr), off in zip(batch, offsets)]))
                scores = self._forward([p for p, _ in batch], False, gen, None)
                loss = margin_ranking_loss(scores, batch_pairs, torch.ones(len(batch_pairs)), cfg.margin)
                opt.zero_grad()
                loss.backward()
                opt.step()
                total += float(loss.detach())
            score = self.dev_mrr(dev) if dev else -total
            if score > best[0]:
                best, since_best = (score, epoch, copy.deepcopy(self.net.state_dict())), 0
            else:
                since_best += 1
            yield Progress(epoch, cfg.epochs, f"training the {self.name} model", metrics_of(loss=total, dev_mrr=score))
            if dev and since_best >= cfg.patience:
                break
        self.net.load_state_dict(best[2])
        self.net.eval()
        return {"epochs": epoch, "best_epoch": best[1], "dev_mrr": best[0] if dev else float("nan")}

    # -- prediction --
    def _need_net(self) -> torch.nn.Module:
        if self.net is None:
            raise ConfigError(f"the {self.name} model is used before fit()")
        return self.net

    @torch.no_grad()
    def scores(self, problems: Sequence[LearningProblem], chunk: int = 256) -> list[np.ndarray]:
        """Deterministic scores [N_q] of each question's candidates (dropout off)."""
        self._need_net().eval()
        out: list[np.ndarray] = []
        for start in range(0, len(problems), chunk):
            part = problems[start : start + chunk]
            flat = self._forward(part, False, None, None).double().numpy()
            out.extend(np.split(flat, np.cumsum([len(p.texts) for p in part])[:-1]))
        return out

    @torch.no_grad()
    def mc_samples(
        self, problems: Sequence[LearningProblem], samples: int = 100, seed: int = 0, chunk: int = 128
    ) -> list[np.ndarray]:
        """[T, N_q] MC-dropout score samples of each question (fresh masks per sample, seeded)."""
        if samples < 2:
            raise ConfigError(f"MC dropout needs at least 2 samples, got {samples}")
        self._need_net().eval()
        gen = torch.Generator().manual_seed(int(seed) + 104729)
        out: list[np.ndarray] = []
        for start in range(0, len(problems), chunk):
            part = problems[start : start + chunk]
            flat = self._forward(part, True, gen, samples).double().numpy()  # [T, sum N]
            out.extend(np.split(flat, np.cumsum([len(p.texts) for p in part])[:-1], axis=1))
        return out

    def dev_mrr(self, dev: Sequence[LearningProblem]) -> float:
        return mrr(self.scores(dev), dev) if dev else float("nan")


class DeepSelector(AnswerSelector):
    name = "deep"

    def __init__(self, config: TrainConfig | None = None, seed: int = 0, prior_weight: float = 5.0) -> None:
        super().__init__(config, seed)
        self.prior_weight = prior_weight
        self._features: dict[int, torch.Tensor] = {}

    def _x(self, problem: LearningProblem) -> torch.Tensor:
        key = id(problem)
        if key not in self._features:
            self._features[key] = torch.from_numpy(pair_features(problem.question_embedding, problem.embeddings))
        return self._features[key]

    def _new_net(self) -> torch.nn.Module:
        return SiameseRanker(3 * 384 + 1, self.config.hidden, self.config.dropout, self.prior_weight)

    def _forward(self, problems, mc, generator, samples):
        x = torch.cat([self._x(p) for p in problems])
        if x.shape[1] != 3 * 384 + 1:
            raise ConfigError(f"the deep model needs 384-d sentence embeddings, got inputs of {x.shape[1]}")
        return self._need_net()(x, mc=mc, generator=generator, samples=samples)

    def embed(self, problems: Sequence[LearningProblem]) -> np.ndarray:
        return np.stack([p.question_embedding for p in problems]).astype(np.float64)


class EncoderSelector(AnswerSelector):
    name = "encoder"

    def __init__(self, config: TrainConfig | None = None, seed: int = 0, vectors=None) -> None:
        super().__init__(config, seed)
        self._vectors = vectors
        self._ids: dict[int, tuple[list[int], list[list[int]]]] = {}

    @property
    def vectors(self):
        if self._vectors is None:
            from models.sru_encoder import word_vectors

            self._vectors = word_vectors("minilm")
        return self._vectors

    def _tokens(self, problem: LearningProblem) -> tuple[list[int], list[list[int]]]:
        key = id(problem)
        if key not in self._ids:
            ids = self.vectors.token_ids([problem.question, *problem.texts], self.config.max_tokens)
            self._ids[key] = (ids[0], ids[1:])
        return self._ids[key]

    def _cnn(self) -> CNNAnswerRanker:
        net = self._need_net()
        assert isinstance(net, CNNAnswerRanker)  # _new_net builds one
        return net

    def _new_net(self) -> torch.nn.Module:
        return CNNAnswerRanker(self.vectors.table, hidden=self.config.hidden // 2, dropout=self.config.dropout)

    @staticmethod
    def _pad(ids: list[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
        longest = max(len(x) for x in ids)
        out = torch.zeros((len(ids), longest), dtype=torch.long)
        for row, x in enumerate(ids):
            out[row, : len(x)] = torch.as_tensor(x, dtype=torch.long)
        return out, out != 0

    def _vectors_of(self, problems) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        net = self._cnn()
        tokens = [self._tokens(p) for p in problems]
        questions = net.encode(*self._pad([q for q, _ in tokens]))
        candidates = net.encode(*self._pad([c for _, cs in tokens for c in cs]))
        owner = torch.as_tensor(np.repeat(np.arange(len(problems)), [len(cs) for _, cs in tokens]))
        return questions, candidates, owner

    def _forward(self, problems, mc, generator, samples):
        questions, candidates, owner = self._vectors_of(problems)
        return self._cnn().score(questions, candidates, owner, mc=mc, generator=generator, samples=samples)

    @torch.no_grad()
    def embed(self, problems: Sequence[LearningProblem]) -> np.ndarray:
        net = self._cnn()
        net.eval()
        ids = [self._tokens(p)[0] for p in problems]
        return net.encode(*self._pad(ids)).double().numpy()


def make_selector(name: str, config: TrainConfig | None = None, seed: int = 0) -> AnswerSelector:
    """The answer-selection model called ``name`` ('deep' or 'encoder')."""
    if name == "deep":
        return DeepSelector(config, seed)
    if name == "encoder":
        return EncoderSelector(config, seed)
    raise ConfigError(f"unknown answer-selection model {name!r}: use one of {', '.join(MODELS)}")
