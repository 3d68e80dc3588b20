"""The kinds of trained model a domain has, each a small component (Rasa's GraphComponent is the anchor):
what it is called, which models of the kind a domain needs, whether one is missing, and what it was fitted
to (its fingerprint: when that changes, the model is stale). The registry (``ModelRegistry``) is a lookup
that loads them; ``missing`` and ``stale`` loop over ``COMPONENTS`` in order, and ``prepare`` trains each
missing model with its kind's job (``assistant.app.lifecycle.model_jobs``).

Names, in order: ``encoder`` (the SRU text encoder; the pooled MiniLM prior needs none), ``prior`` (its
fitted settings, prior.json), ``policy-<candidates>-<variant>-<pace>``, ``coverage-<candidates>-<pace>``
(the coverage rule of a learned policy) and ``oos-<candidates>-<pace>`` (the out-of-scope hypothesis, for
domains with out-of-scope dev queries). A model is missing when an upstream one is (the prior, the
policies and the rules need the text prior; a rule needs its policy). The components read the registry
they are given through its ``ModelContext`` (the registry imports them: they cannot import it back).
"""

from __future__ import annotations

from typing import Protocol

from assistant.app.lifecycle.model_context import ModelContext
from assistant.errors import ModelMissingError


class ModelComponent(Protocol):
    """One kind of trained model (module docstring)."""

    kind: str

    def names(self, registry: ModelContext, candidate_settings: tuple[str, ...]) -> list[str]:
        """The models of this kind the domain needs."""
        ...

    def missing(self, registry: ModelContext, name: str, upstream_missing: list[str]) -> bool:
        """Whether model ``name`` has no usable version (``upstream_missing``: what is missing before it)."""
        ...

    def fingerprint(self, registry: ModelContext, name: str) -> str:
        """What model ``name`` must have been fitted to (a hash; a different one: stale)."""
        ...


def text_prior_loads(registry: ModelContext) -> bool:
    """Whether the text prior loads (every other model is fitted on top of it)."""
    try:
        registry.encoder  # noqa: B018 - loading is the check
    except ModelMissingError:
        return False
    return True


def split_name(name: str) -> tuple[str, list[str]]:
    """("policy", ["all", "learned", "quick"]) of "policy-all-learned-quick"."""
    kind, _, rest = name.partition("-")
    return kind, rest.split("-", 2) if rest else []


class Encoder:
    kind = "encoder"

    def names(self, registry: ModelContext, candidate_settings: tuple[str, ...]) -> list[str]:
        return ["encoder"] if registry.text_prior == "sru" else []

    def missing(self, registry: ModelContext, name: str, upstream_missing: list[str]) -> bool:
        return not text_prior_loads(registry)

    def fingerprint(self, registry: ModelContext, name: str) -> str:
        return registry.encoder_hash()


class PriorSettings:
    kind = "prior"

    def names(self, registry: ModelContext, candidate_settings: tuple[str, ...]) -> list[str]:
        return ["prior"]

    def missing(self, registry: ModelContext, name: str, upstream_missing: list[str]) -> bool:
        if not text_prior_loads(registry):
            return True
        try:
            registry.mention_weight()
        except ModelMissingError:
            return True
        return False

    def fingerprint(self, registry: ModelContext, name: str) -> str:
        return registry.encoder_hash()  # fitted to the text prior


class Policy:
    kind = "policy"

    def names(self, registry: ModelContext, candidate_settings: tuple[str, ...]) -> list[str]:
        return [f"policy-{c}-{v}-{p}" for c, v, p in registry.required_policies(candidate_settings)]

    def missing(self, registry: ModelContext, name: str, upstream_missing: list[str]) -> bool:
        if not text_prior_loads(registry):
            return True
        try:
            registry.load_policy(*split_name(name)[1])
        except ModelMissingError:
            return True
        return False

    def fingerprint(self, registry: ModelContext, name: str) -> str:
        return registry.policy_checkpoint(*split_name(name)[1])[1]


class StopRule:
    """The rules tuned on dev for a learned policy: its coverage rule ("coverage") and, where the domain has
    out-of-scope dev queries, its out-of-scope hypothesis ("oos", tuned after the coverage rule)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.suffix = "/out_of_scope" if kind == "oos" else ""

    def names(self, registry: ModelContext, candidate_settings: tuple[str, ...]) -> list[str]:
        if self.kind == "oos" and not registry.has_out_of_scope_queries:
            return []
        needed = registry.required_policies(candidate_settings)
        return [f"{self.kind}-{c}-{p}" for c, v, p in needed if v == "learned"]

    def missing(self, registry: ModelContext, name: str, upstream_missing: list[str]) -> bool:
        if not text_prior_loads(registry):
            return True
        c, p = split_name(name)[1]
        if f"policy-{c}-learned-{p}" in upstream_missing or f"coverage-{c}-{p}" in upstream_missing:
            return True
        return self.fingerprint(registry, name) not in registry.stop_settings()

    def fingerprint(self, registry: ModelContext, name: str) -> str:
        c, p = split_name(name)[1]
        return registry.stop_key(c, p) + self.suffix


COMPONENTS: tuple[ModelComponent, ...] = (Encoder(), PriorSettings(), Policy(), StopRule("coverage"), StopRule("oos"))


def component_of(name: str) -> ModelComponent:
    kind = split_name(name)[0]
    for component in COMPONENTS:
        if component.kind == kind:
            return component
    raise KeyError(f"no model kind {kind!r} (of {name!r}): use one of {', '.join(c.kind for c in COMPONENTS)}")


def missing_models(registry: ModelContext, candidate_settings: tuple[str, ...]) -> list[str]:
    """What has no usable model, in the order of ``COMPONENTS`` (the order ``prepare`` trains them in)."""
    todo: list[str] = []
    for component in COMPONENTS:
        for name in component.names(registry, candidate_settings):
            if component.missing(registry, name, todo):
                todo.append(name)
    return todo
