"""DASL's second answer-selection architecture: a small trainable CNN over frozen word vectors.

Question and candidate answers go through the same encoder (Siamese): frozen word vectors [L, E] ->
trainable Linear(E, P) -> Conv1d(P, F, width) -> ReLU -> max over the real tokens -> [F]. A candidate is
scored from [c, q * c, |q - c|, cos(q, c)] by Linear-ReLU-Dropout-Linear, the same head shape as the
Siamese ranker of models/deep_ranker.py. Dropout (``MCDropout``) sits on the pooled vectors and in the
head, so MC dropout needs the (deterministic, costly) convolution only once: ``score`` repeats only the
dropout masks and the head for ``samples`` draws, which is the same distribution as that many full passes.

Shapes: token ids [N, L] long with mask [N, L] bool -> vectors [N, F]; ``score(q [B, F], c [N, F],
owner [N])`` -> scores [N], or [samples, N].
"""

from __future__ import annotations

import torch
from torch import nn

from models.deep_ranker import MCDropout


class CNNAnswerRanker(nn.Module):
    """See the module docstring. ``table``: the frozen word vectors [V, E] (a non-persistent buffer, so a
    state_dict holds only the trained weights)."""

    table: torch.Tensor  # the buffer, typed (nn.Module's attribute lookup cannot say it is a Tensor)

    def __init__(
        self,
        table: torch.Tensor,
        proj_dim: int = 64,
        filters: int = 100,
        width: int = 3,
        hidden: int = 128,
        dropout: float = 0.5,
    ) -> None:
        super().__init__()
        self.config = {
            "proj_dim": int(proj_dim),
            "filters": int(filters),
            "width": int(width),
            "hidden": int(hidden),
            "dropout": float(dropout),
        }
        self.register_buffer("table", table.detach().float(), persistent=False)
        self.proj = nn.Linear(table.shape[1], proj_dim)
        self.conv = nn.Conv1d(proj_dim, filters, width, padding=width // 2)
        self.layer1 = nn.Linear(3 * filters + 1, hidden)
        self.out = nn.Linear(hidden, 1)
        self.drop_text = MCDropout(dropout)
        self.drop_head = MCDropout(dropout)

    def encode(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """ids, mask [N, L] -> [N, F] max-pooled convolution features (deterministic)."""
        x = self.proj(self.table[ids])  # [N, L, P]
        h = torch.relu(self.conv(x.transpose(1, 2)))  # [N, F, L]
        h = h.masked_fill(~mask.unsqueeze(1), 0.0)  # ReLU outputs are >= 0, so 0 is a neutral pad for the max
        return h.max(dim=2).values

    def score(
        self,
        questions: torch.Tensor,
        candidates: torch.Tensor,
        owner: torch.Tensor,
        mc: bool = False,
        generator: torch.Generator | None = None,
        samples: int | None = None,
    ) -> torch.Tensor:
        """Scores [N] (or [samples, N]) of candidates [N, F] against their questions [B, F] (``owner`` [N])."""
        q = questions[owner]
        c = candidates
        if samples is not None:
            q = q.unsqueeze(0).expand(samples, *q.shape)
            c = c.unsqueeze(0).expand(samples, *c.shape)
        q = self.drop_text(q, mc, generator)
        c = self.drop_text(c, mc, generator)
        cos = nn.functional.cosine_similarity(q, c, dim=-1, eps=1e-8).unsqueeze(-1)
        h = torch.relu(self.layer1(torch.cat([c, q * c, (q - c).abs(), cos], dim=-1)))
        return self.out(self.drop_head(h, mc, generator)).squeeze(-1)
