"""Checkpoints of the learned STOP/ASK policy together with the answer-model parameters (lambda, w, b) that
were fine-tuned with it: what the policy learned to read is the posterior under those parameters."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from assistant.clarification.stopping import LearnedPolicy
from assistant.errors import ModelMissingError, from_model_errors
from models.checkpoint import load_checkpoint, save_checkpoint
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
    state = {f"net.{k}": v for k, v in net.state_dict().items()}
    state["lam"] = torch.tensor(lam)
    state["w"] = torch.tensor(w)
    state["b"] = torch.from_numpy(np.asarray(b, dtype=np.float32))
    save_checkpoint(path, state, {"net": net.config(), **config}, data, metrics)


def load_policy(path: str | Path, data: str | None = None, fix: str = "") -> LoadedPolicy:
    """The policy saved at ``path``; ModelMissingError (with ``fix``) if absent, unreadable or trained on
    other data than ``data`` describes."""
    with from_model_errors(fix):
        state, sidecar = load_checkpoint(path, data)
    try:
        config = sidecar["config"]["net"]
        net = StopPolicyNet(int(config["top_k"]), int(config["hidden"]))
        net.load_state_dict({k.removeprefix("net."): v for k, v in state.items() if k.startswith("net.")})
        lam, w, b = float(state["lam"]), float(state["w"]), state["b"].numpy()
    except (KeyError, TypeError, ValueError, RuntimeError) as exc:  # a sidecar or .pt of something else
        raise ModelMissingError(
            f"{Path(path).with_suffix('.pt')} is not a STOP/ASK policy of this version ({type(exc).__name__}: "
            f"{str(exc)[:120]}): delete it and retrain" + (f" ({fix})" if fix else "")
        ) from exc
    if not (0.0 <= lam <= 1.0 and math.isfinite(w)):  # the .pt's tensors are finite (load_checkpoint)
        raise ModelMissingError(
            f"{Path(path).with_suffix('.pt')} is damaged (lambda {lam:g} outside [0, 1] or w {w:g}): delete it and "
            "retrain" + (f" ({fix})" if fix else "")
        )
    net.eval()
    metrics = sidecar.get("metrics")
    return LoadedPolicy(LearnedPolicy(net), lam, w, b, metrics if isinstance(metrics, dict) else {})
