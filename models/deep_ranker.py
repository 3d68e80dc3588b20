"""The BDL deep ranker head: a Siamese MLP scoring (question, candidate) pairs from frozen MiniLM embeddings.

Both sides of a comparison go through the same network (hence Siamese); training uses the margin ranking
loss max(0, m - (s_winner - s_loser)) with m = 0.1 (BDL). Dropout stays usable at prediction time: with
``mc=True`` every forward pass draws fresh masks from an explicit ``torch.Generator``, so T passes give T
samples of the scores (MC dropout) and the same generator seed gives the same samples.

Input features per candidate (``pair_features``), D_in = 3 * 384 + 1::

    [c, q * c, |q - c|, cos(q, c)]      q, c: L2-normalised MiniLM embeddings of question and candidate

Shapes: x [..., D_in] -> scores [...].
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import nn

from models.checkpoint import load_checkpoint, save_checkpoint
from models.errors import CheckpointError


def pair_features(question: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """[N, 3 * D + 1] float32 ranker inputs from a question embedding [D] and candidate embeddings [N, D]."""
    q = np.asarray(question, dtype=np.float32).reshape(1, -1)
    c = np.asarray(candidates, dtype=np.float32)
    cos = (c @ q.T) / np.maximum(np.linalg.norm(c, axis=1, keepdims=True) * np.linalg.norm(q), 1e-12)
    return np.concatenate([c, q * c, np.abs(q - c), cos], axis=1).astype(np.float32)


class MCDropout(nn.Module):
    """Dropout whose masks come from an optional explicit generator and that can stay on in eval mode."""

    def __init__(self, p: float) -> None:
        super().__init__()
        self.p = p

    def forward(self, x: torch.Tensor, mc: bool = False, generator: torch.Generator | None = None) -> torch.Tensor:
        if self.p == 0 or not (self.training or mc):
            return x
        keep = torch.rand(x.shape, generator=generator, dtype=x.dtype) >= self.p
        return x * keep / (1.0 - self.p)


class SiameseRanker(nn.Module):
    """Scores candidates: prior_weight * x[..., -1] + MLP(x), the MLP being Linear-ReLU-Dropout twice + Linear.

    The skip term on the last input feature (the question-candidate cosine of ``pair_features``) starts
    the ranker at the cosine prior, so that the MLP only has to learn corrections: with a few hundred
    training questions (instead of BDL's large cQA training sets) this is what keeps it as good as the prior.
    ``prior_weight`` is learned; 0 disables the skip.
    """

    def __init__(self, in_dim: int, hidden: int = 256, dropout: float = 0.2, prior_weight: float = 5.0) -> None:
        super().__init__()
        self.config = {
            "in_dim": int(in_dim),
            "hidden": int(hidden),
            "dropout": float(dropout),
            "prior_weight": float(prior_weight),
        }
        self.layer1 = nn.Linear(in_dim, hidden)
        self.layer2 = nn.Linear(hidden, hidden // 2)
        self.out = nn.Linear(hidden // 2, 1)
        self.drop1 = MCDropout(dropout)
        self.drop2 = MCDropout(dropout)
        self.prior_weight = nn.Parameter(torch.tensor(float(prior_weight)), requires_grad=prior_weight != 0)

    def forward(
        self, x: torch.Tensor, mc: bool = False, generator: torch.Generator | None = None, samples: int | None = None
    ) -> torch.Tensor:
        """x [..., in_dim] -> scores [...], or [samples, ...] with ``samples``. ``mc``: dropout on in eval mode.

        With ``samples`` the first layer (deterministic: dropout comes after it) runs once and only the
        dropout masks and later layers are repeated: the same distribution as ``samples`` separate passes.
        """
        h = torch.relu(self.layer1(x))
        skip = self.prior_weight * x[..., -1]
        if samples is not None:
            h = h.unsqueeze(0).expand(samples, *h.shape)
        h = self.drop1(h, mc, generator)
        h = self.drop2(torch.relu(self.layer2(h)), mc, generator)
        return self.out(h).squeeze(-1) + skip


def margin_ranking_loss(
    scores: torch.Tensor, pairs: torch.Tensor, outcomes: torch.Tensor, margin: float = 0.1
) -> torch.Tensor:
    """Mean loss over comparisons: scores [N], pairs [P, 2] long, outcomes [P] (1 first wins, 0 second, 0.5 tie).

    Wins: max(0, m - (s_winner - s_loser)). Ties: max(0, |s_a - s_b| - m), i.e. "within the margin".
    """
    diff = scores[pairs[:, 0]] - scores[pairs[:, 1]]
    sign = torch.where(outcomes > 0.5, 1.0, -1.0).to(scores.dtype)
    win = torch.clamp(margin - sign * diff, min=0.0)
    tie = torch.clamp(diff.abs() - margin, min=0.0)
    return torch.where((outcomes - 0.5).abs() < 1e-9, tie, win).mean()


def save_ranker(model: SiameseRanker, path: Path, meta: dict | None = None, data: str = "") -> None:
    """The head's weights and config (+ ``meta``) as a checkpoint (``models.checkpoint``, atomic); ``data``:
    the hash of what it was trained on."""
    save_checkpoint(path, model.state_dict(), {"net": model.config, "meta": meta or {}}, data)


def load_ranker(path: Path, expected_data: str | None = None) -> tuple[SiameseRanker, dict]:
    """(model in eval mode, meta) from ``save_ranker``'s checkpoint; CheckpointError if absent, or stale
    (trained on other data than ``expected_data``)."""
    state, sidecar = load_checkpoint(path, expected_data)
    try:
        model = SiameseRanker(**sidecar["config"]["net"])
        model.load_state_dict(state)
    except (KeyError, TypeError, ValueError, RuntimeError) as exc:  # a sidecar or .pt of something else
        raise CheckpointError(
            f"{path} is not a ranker checkpoint of this version ({exc}): delete it and retrain"
        ) from exc
    model.eval()
    meta = sidecar["config"].get("meta")
    return model, meta if isinstance(meta, dict) else {}
