"""Bringing a domain's models up to date after its data changed (an import), without surprises.

- ``update_plan`` says which models are older than the data, whether a small update catches them up and
  about how long it takes; ``import_impact`` says the same *before* an import, from its preview.
- ``update_models_job`` does it: for a small change (no new labels, a few new queries or annotations) a
  few epochs of fine-tuning from the current encoder and a short fine-tuning of each policy from the
  current one; otherwise a full training. The answer model needs no training: it reads the crowd's counts
  of the domain as they are now whenever the models are loaded.
- Meanwhile the old models keep serving (``ModelRegistry`` loads stale models); a cancelled training goes
  on from its last resume point the next time (``assistant.training.resume``).

Time estimates come from how long the domain's last trainings took (their sidecars), scaled by the steps.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from dataclasses import dataclass, field, replace

from assistant.app.lifecycle.model_sets import domain_lock
from assistant.app.lifecycle.registry import ModelRegistry, policy_path
from assistant.app.lifecycle.training_jobs import fit_prior_job, train_encoder_job, train_policy_job
from assistant.progress import Progress
from assistant.training.encoder import EncoderTrainConfig, data_sizes
from assistant.training.policy import PolicyConfig
from models.checkpoint import read_sidecar

# A change is small when it adds no label and at most this share of the queries and annotations.
SMALL_SHARE = 0.1
FINE_TUNE_EPOCHS = 3  # passes over the training queries when fine-tuning the encoder
FINE_TUNE_STEPS = (30, 300)
FINE_TUNE_LR = 0.3  # of the full training's learning rate
FINE_TUNE_ITERATIONS = 100  # policy iterations when fine-tuning (a full training runs 1000)
NAMES = {"encoder": "the text encoder", "policy": "the stop policy"}


@dataclass(frozen=True)
class ModelUpdate:
    """One stale model: 'encoder' or 'policy-<candidates>-<variant>-<pace>', how it is updated and in how long."""

    model: str
    mode: str  # 'fine-tune' | 'retrain'
    seconds: float


@dataclass(frozen=True)
class UpdatePlan:
    """What is older than the data (``updates``) and what changed since it was trained (``changes``)."""

    domain: str
    updates: tuple[ModelUpdate, ...] = ()
    changes: dict[str, int] = field(default_factory=dict)

    @property
    def seconds(self) -> float:
        return sum(u.seconds for u in self.updates)

    def describe(self) -> str:
        """One or two sentences for a person."""
        if not self.updates:
            return f"The models of {self.domain} are up to date."
        kinds = {u.model.split("-", 1)[0] for u in self.updates}
        models = [name for kind, name in NAMES.items() if kind in kinds]
        how = (
            "a few epochs of fine-tuning from the current models"
            if all(u.mode == "fine-tune" for u in self.updates)
            else "a new training"
        )
        return (
            f"{' and '.join(models).capitalize()} of {self.domain} are older than the data"
            f"{_changes_text(self.changes)}. Clarify keeps using them while it updates them in the background "
            f"({how}, about {duration(self.seconds)})."
        )


def _changes_text(changes: dict[str, int]) -> str:
    parts = [f"{n} new {what.replace('_', ' ')}" for what, n in changes.items() if n > 0]
    return f" ({', '.join(parts)})" if parts else ""


def duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(10, round(seconds / 10) * 10):.0f} s"
    return f"{math.ceil(seconds / 60):.0f} min"


def _changes(before: dict | None, now: dict[str, int]) -> dict[str, int] | None:
    """What grew since ``before`` (None: unknown, a model from before sizes were recorded)."""
    if not before:
        return None
    return {k: now[k] - int(before.get(k, 0)) for k in now}


def is_small(changes: dict[str, int] | None, now: dict[str, int]) -> bool:
    if changes is None or changes.get("labels", 0) != 0 or any(v < 0 for v in changes.values()):
        return False
    return all(changes.get(k, 0) <= max(20, SMALL_SHARE * now[k]) for k in ("train_queries", "annotations"))


def fine_tune_steps(sizes: dict[str, int], base: EncoderTrainConfig) -> int:
    """A few epochs over the training queries, within ``FINE_TUNE_STEPS``, and never more than a full training."""
    low, high = FINE_TUNE_STEPS
    epochs = FINE_TUNE_EPOCHS * math.ceil(sizes["train_queries"] / max(base.batch_queries, 1))
    return int(min(base.max_steps, high, max(low, epochs)))


def _encoder_update(
    registry: ModelRegistry, sizes: dict[str, int], small: bool | None = None
) -> tuple[ModelUpdate, dict[str, int] | None]:
    """How the encoder would be updated for data of ``sizes`` (``small``: decided by the caller, else from
    what it was trained on) and the changes since its training."""
    from assistant.priors.sru import encoder_checkpoint_path

    sidecar = read_sidecar(encoder_checkpoint_path(registry.name)) or {}
    config = sidecar.get("config", {})
    changes = _changes(config.get("trained_on"), sizes)
    metrics = sidecar.get("metrics", {})
    seconds, steps = float(metrics.get("train_seconds", 300.0)), max(float(metrics.get("steps", 1500.0)), 1.0)
    if is_small(changes, sizes) if small is None else small:
        base = EncoderTrainConfig.from_dict(config.get("train", {}))
        return ModelUpdate("encoder", "fine-tune", seconds * fine_tune_steps(sizes, base) / steps), changes
    return ModelUpdate("encoder", "retrain", seconds), changes


def _policy_update(
    registry: ModelRegistry, name: str, sizes: dict[str, int], small: bool, known: bool = False
) -> ModelUpdate:
    """How a policy would be updated (``known``: ``small`` is decided, else it also needs the policy's own
    record of what it was trained on to say so)."""
    _, candidates, variant, pace = name.split("-", 3)
    sidecar = read_sidecar(policy_path(registry.name, candidates, variant, registry.text_prior, pace)) or {}
    config = sidecar.get("config", {})
    seconds = float(config.get("seconds", 120.0))
    iterations = max(float(config.get("iterations", PolicyConfig().iterations)), 1.0)
    small = small and (known or is_small(_changes(config.get("trained_on"), sizes), sizes))
    if small:
        return ModelUpdate(name, "fine-tune", seconds * min(FINE_TUNE_ITERATIONS, iterations) / iterations)
    return ModelUpdate(name, "retrain", seconds * PolicyConfig().iterations / iterations)


def update_plan(registry: ModelRegistry, candidate_settings: tuple[str, ...] = ("all",)) -> UpdatePlan:
    """Which of the registry's models are older than the data, and how each would be brought up to date."""
    stale = registry.stale(candidate_settings)
    sizes = data_sizes(registry.domain)
    updates, changes = [], {}
    encoder_small = True
    if "encoder" in stale:
        update, found = _encoder_update(registry, sizes)
        updates.append(update)
        changes = found or {}
        encoder_small = update.mode == "fine-tune"
    for name in stale:
        if name.startswith("policy-"):
            updates.append(_policy_update(registry, name, sizes, encoder_small))
    return UpdatePlan(registry.name, tuple(updates), changes)


def update_models_job(
    registry: ModelRegistry | str, candidate_settings: tuple[str, ...] = ("all",), seed: int = 0
) -> Generator[Progress, None, UpdatePlan]:
    """Bring the stale models up to date (see the module docstring); returns the plan it carried out. Waits
    for another Clarify preparing or updating the same domain (``model_sets.domain_lock``)."""
    release = yield from domain_lock(registry if isinstance(registry, str) else registry.name)
    try:
        return (yield from _update_models(registry, candidate_settings, seed))
    finally:
        release()


def _update_models(
    registry: ModelRegistry | str, candidate_settings: tuple[str, ...], seed: int
) -> Generator[Progress, None, UpdatePlan]:
    yield Progress(0, 0, "checking what is older than the data")
    registry = ModelRegistry(registry) if isinstance(registry, str) else registry
    plan = update_plan(registry, candidate_settings)
    yield Progress(0, 0, plan.describe())
    for update in plan.updates:
        if update.model == "encoder":
            yield from _update_encoder(registry, update.mode, seed)
    for update in plan.updates:
        if update.model.startswith("policy-"):
            _, candidates, variant, pace = update.model.split("-", 3)
            config = _policy_config(registry, candidates, variant, pace, update.mode)
            yield from train_policy_job(
                registry, candidates, variant, config, seed, pace=pace, fine_tune=update.mode == "fine-tune"
            )
    return plan


def _policy_config(registry: ModelRegistry, candidates: str, variant: str, pace: str, mode: str) -> PolicyConfig | None:
    """The settings the policy was trained with (a fine-tuning runs at most ``FINE_TUNE_ITERATIONS`` of them)."""
    path = policy_path(registry.name, candidates, variant, registry.text_prior, pace)
    saved = (read_sidecar(path) or {}).get("config", {})
    known = {k: v for k, v in saved.items() if k in PolicyConfig.__dataclass_fields__}
    try:
        config = PolicyConfig(**known)
    except (TypeError, ValueError):
        config = PolicyConfig()
    if mode == "fine-tune":
        return replace(config, iterations=min(FINE_TUNE_ITERATIONS, config.iterations))
    return replace(config, iterations=PolicyConfig().iterations)


def _update_encoder(registry: ModelRegistry, mode: str, seed: int) -> Generator[Progress, None, None]:
    from assistant.priors.sru import encoder_checkpoint_path
    from assistant.training.encoder import train_encoder

    if mode == "retrain":
        yield from train_encoder_job(registry, seed)
        return
    sidecar = read_sidecar(encoder_checkpoint_path(registry.name)) or {}
    base = EncoderTrainConfig.from_dict(sidecar.get("config", {}).get("train", {}))
    steps = fine_tune_steps(data_sizes(registry.domain), base)
    config = replace(base, max_steps=steps, eval_every=max(10, steps // 3), patience=3, lr=base.lr * FINE_TUNE_LR)
    weights = {k: v.clone() for k, v in registry.encoder.encoder.state_dict().items()}
    tag = f"fine-tune of the encoder of {sidecar.get('created_at', '?')}"
    yield from train_encoder(registry.domain, config, seed=seed, save=True, start_from=weights, start_tag=tag)
    registry.forget_models()
    yield from fit_prior_job(registry, seed)


def import_impact(domain: str, added: dict[str, int]) -> str:
    """Before an import: what it will make older than the data and how long the update takes (for the
    import wizard), from what the import would add (``ImportReport.added``)."""
    if not any(added.get(k, 0) for k in ("labels", "queries", "annotations", "questions")):
        return "This import changes nothing the models were trained on."
    try:
        registry = ModelRegistry(domain)
        if registry.missing(("all",)):
            return f"The models of {domain} are not trained yet: they are trained the first time you ask a question."
    except Exception:  # a domain that does not exist yet, or no models: nothing to make stale
        return f"The models of {domain} are not trained yet: they are trained the first time you ask a question."
    sizes = data_sizes(registry.domain)
    after = {
        "labels": sizes["labels"] + added.get("labels", 0),
        "questions": sizes["questions"] + added.get("questions", 0),
        "train_queries": sizes["train_queries"] + added.get("queries", 0),
        "annotations": sizes["annotations"] + added.get("annotations", 0),
    }
    change = {k: after[k] - sizes[k] for k in sizes}
    small = is_small(change, after)
    encoder, _ = _encoder_update(registry, after, small)
    policies = [
        _policy_update(registry, f"policy-all-{v}-{p}", after, small, known=True)
        for _, v, p in registry.required_policies(("all",))
    ]
    plan = UpdatePlan(domain, (encoder, *policies), change)
    return (
        f"Importing it makes {NAMES['encoder']} and {NAMES['policy']} of {domain} older than the data"
        f"{_changes_text(change)}. Clarify keeps answering with them while it updates them in the background: "
        f"{'a few epochs of fine-tuning' if small else 'a new training'}, about {duration(plan.seconds)}."
    )
