"""The STOP/ASK policy network (IC 4.5): a 2-layer MLP on the sorted top-k posterior probabilities, the
belief's entropy, the best remaining question's information gain, the shortlist's probability mass and the
turn number. Output logits
[..., 2]: index 0 = ASK, 1 = STOP."""

from __future__ import annotations

import torch
from torch import nn

from models.policy_actions import ASK, EXTRA_INPUTS, STOP

__all__ = ["ASK", "EXTRA_INPUTS", "STOP", "StopPolicyNet"]


class StopPolicyNet(nn.Module):
    """MLP(top_k + 4 -> hidden -> 2). Input [..., top_k + 4]: top-k probabilities, entropy / log Y, best
    information gain (bits), the shortlist's probability mass, turn / max_turns (``assistant.clarification.stopping.policy_features``)."""

    def __init__(self, top_k: int = 20, hidden: int = 32) -> None:
        super().__init__()
        self.top_k = top_k
        self.hidden = hidden
        self.layers = nn.Sequential(nn.Linear(top_k + EXTRA_INPUTS, hidden), nn.Tanh(), nn.Linear(hidden, 2))

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        return self.layers(features)

    def config(self) -> dict:
        return {"top_k": self.top_k, "hidden": self.hidden}

    @property
    def hidden_layer(self) -> nn.Linear:
        """The first Linear (inputs -> hidden), typed (indexing an nn.Sequential gives a plain Module)."""
        layer = self.layers[0]
        assert isinstance(layer, nn.Linear)
        return layer

    @property
    def output_layer(self) -> nn.Linear:
        """The last Linear (hidden -> the ASK and STOP logits), typed."""
        layer = self.layers[2]
        assert isinstance(layer, nn.Linear)
        return layer
