"""Train -> a job that yields Progress, per kind of model (``assistant.app.lifecycle.components``): ``prepare``
trains each missing model with ``train_model_job``, in the order ``ModelRegistry.missing`` gives."""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

from assistant.app.lifecycle.components import component_of, split_name
from assistant.app.lifecycle.out_of_scope_jobs import max_in_scope_of, tune_out_of_scope_job
from assistant.app.lifecycle.registry import ModelRegistry
from assistant.app.lifecycle.training_jobs import fit_prior_job, train_encoder_job, train_policy_job, tune_coverage_job
from assistant.progress import Progress
from assistant.training.policy import PolicyConfig

Job = Generator[Progress, None, Any]


def _encoder(registry: ModelRegistry, parts: list[str], seed: int, policy: PolicyConfig | None) -> Job:
    return train_encoder_job(registry, seed)  # fits the prior on top of it too


def _prior(registry: ModelRegistry, parts: list[str], seed: int, policy: PolicyConfig | None) -> Job:
    return fit_prior_job(registry, seed)


def _policy(registry: ModelRegistry, parts: list[str], seed: int, policy: PolicyConfig | None) -> Job:
    candidates, variant, pace = parts
    return train_policy_job(registry, candidates, variant, policy, seed=seed, pace=pace)


def _coverage(registry: ModelRegistry, parts: list[str], seed: int, policy: PolicyConfig | None) -> Job:
    candidates, pace = parts
    return tune_coverage_job(registry, candidates, pace, seed=seed)


def _out_of_scope(registry: ModelRegistry, parts: list[str], seed: int, policy: PolicyConfig | None) -> Job:
    candidates, pace = parts
    return tune_out_of_scope_job(registry, candidates, pace, seed=seed, max_in_scope=max_in_scope_of(registry))


TRAIN_JOBS: dict[str, Callable[[ModelRegistry, list[str], int, PolicyConfig | None], Job]] = {
    "encoder": _encoder,
    "prior": _prior,
    "policy": _policy,
    "coverage": _coverage,
    "oos": _out_of_scope,
}


def train_model_job(
    registry: ModelRegistry, name: str, seed: int = 0, policy_config: PolicyConfig | None = None
) -> Job:
    """The job that trains (or fits, or tunes) model ``name`` ("encoder", "policy-all-learned-quick", ...);
    ``policy_config``: a policy's settings instead of its pace's (a desk's own FAQ trains as its cold start)."""
    kind = component_of(name).kind
    return TRAIN_JOBS[kind](registry, split_name(name)[1], seed, policy_config)
