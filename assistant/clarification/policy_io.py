"""Checkpoints of the learned STOP/ASK policy together with the answer-model parameters (lambda, w, b) that
were fine-tuned with it: what the policy learned to read is the posterior under those parameters.

Saving is training's (torch); loading reads the checkpoint's arrays without torch (issue 33: a conversation's
first question needs no training stack) and decides in numpy (``LearnedPolicy.from_weights``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from assistant.clarification.stopping import LearnedPolicy, PolicyWeights
from assistant.errors import ModelMissingError, from_model_errors
from models.checkpoint import load_checkpoint_arrays, save_checkpoint

if TYPE_CHECKING:
    from models.policy_net import StopPolicyNet


@dataclass
class LoadedPolicy:
    """A trained policy, its answer-model parameters and the metrics recorded when it was trained."""

    policy: LearnedPolicy
    lam: float
    w: float
    b: np.ndarray
    metrics: dict


def save_policy(
    path: str | Path, net: StopPolicyNet, lam: float, w: float, b: np.ndarray, config: dict, data: str, metrics: dict
) -> None:
    """Write the policy network and (lambda, w, b) as one checkpoint; ``config`` is the training's summary."""
    import torch

    state = {f"net.{k}": v for k, v in net.state_dict().items()}
    state["lam"] = torch.tensor(lam)
    state["w"] = torch.tensor(w)
    state["b"] = torch.from_numpy(np.asarray(b, dtype=np.float32))
    save_checkpoint(path, state, {"net": net.config(), **config}, data, metrics)


def load_policy(path: str | Path, data: str | None = None, fix: str = "") -> LoadedPolicy:
    """The policy saved at ``path``; ModelMissingError (with ``fix``) if absent, unreadable or trained on
    other data than ``data`` describes."""
    with from_model_errors(fix):
        state, sidecar = load_checkpoint_arrays(path, data)
    try:
        config = sidecar["config"]["net"]
        layers = [state[f"net.layers.{i}.{part}"] for i in (0, 2) for part in ("weight", "bias")]  # nn.Sequential's
        weights = PolicyWeights.from_linear(*layers)
        if (weights.top_k, weights.hidden) != (int(config["top_k"]), int(config["hidden"])):
            raise ValueError(f"layers of {weights.top_k} inputs and {weights.hidden} hidden units, not {config}")
        lam, w, b = float(state["lam"]), float(state["w"]), np.asarray(state["b"], dtype=np.float32)
    except (KeyError, TypeError, ValueError) as exc:  # a sidecar or .pt of something else
        raise ModelMissingError(
            f"{Path(path).with_suffix('.pt')} is not a STOP/ASK policy of this version ({type(exc).__name__}: "
            f"{str(exc)[:120]}): delete it and retrain" + (f" ({fix})" if fix else "")
        ) from exc
    if not (0.0 <= lam <= 1.0 and math.isfinite(w)):  # the .pt's tensors are finite (load_checkpoint)
        raise ModelMissingError(
            f"{Path(path).with_suffix('.pt')} is damaged (lambda {lam:g} outside [0, 1] or w {w:g}): delete it and "
            "retrain" + (f" ({fix})" if fix else "")
        )
    metrics = sidecar.get("metrics")
    return LoadedPolicy(LearnedPolicy.from_weights(weights), lam, w, b, metrics if isinstance(metrics, dict) else {})
