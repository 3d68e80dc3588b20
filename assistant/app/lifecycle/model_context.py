"""The seam between a domain's loaded models and the code that checks and fits them.

The model kinds (``assistant.app.lifecycle.components``) and the calibration jobs
(``assistant.app.lifecycle.calibration_jobs``) read a domain's models through the registry that loads them;
the registry (``assistant.app.lifecycle.registry``) imports both, so they cannot import it back. They take a
``ModelContext`` instead, as a conversation takes ``DomainModels`` (``assistant.app.session.domain_models``):
the members they call, which the type checker holds ``ModelRegistry`` to wherever one is passed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # names for the checker: the seam itself loads nothing
    from pathlib import Path

    from assistant.clarification.policy_io import LoadedPolicy
    from assistant.priors.combined import CombinedPrior
    from assistant.store import Domain


class ModelContext(Protocol):
    """What the model kinds and the calibration jobs need of a domain's models (see the module docstring)."""

    @property
    def name(self) -> str:
        """The domain's name (its knowledge base and its models folder)."""
        ...

    @property
    def text_prior(self) -> str:
        """The text prior's name ("sru", "minilm", ...)."""
        ...

    @property
    def domain(self) -> Domain:
        """The whole domain as stored."""
        ...

    @property
    def agent_domain(self) -> Domain:
        """What the models were trained on: the agent's view of the domain."""
        ...

    @property
    def encoder(self) -> object:
        """The text prior, loaded (raises ``ModelMissingError`` when it cannot be)."""
        ...

    @property
    def has_out_of_scope_queries(self) -> bool:
        """Whether the domain has out-of-scope dev queries to fit the out-of-scope hypothesis on."""
        ...

    def encoder_hash(self) -> str:
        """What the text prior was fitted to: the models fitted on it are stale when it changes."""
        ...

    def mention_weight(self) -> float:
        """The fitted weight of the prior's tag mentions (raises ``ModelMissingError`` before it is fitted)."""
        ...

    def combined_prior(self, domain: Domain | None = None) -> CombinedPrior:
        """The text prior combined with the tag mentions, over ``domain`` (None: the agent's)."""
        ...

    def forget_models(self, prior: bool = True) -> None:
        """Drop the loaded models so that the next use loads them again (``prior``: the text prior too)."""
        ...

    def required_policies(self, candidate_settings: tuple[str, ...] = ("all",)) -> list[tuple[str, str, str]]:
        """(candidates, variant, pace) of every policy the domain needs for ``candidate_settings``."""
        ...

    def load_policy(self, candidates: str = "all", variant: str = "learned", pace: str | None = None) -> LoadedPolicy:
        """A trained policy, loaded (raises ``ModelMissingError`` when it is missing)."""
        ...

    def policy_checkpoint(
        self, candidates: str = "all", variant: str = "learned", pace: str | None = None
    ) -> tuple[Path, str]:
        """(path, hash of what it is trained on) of a policy checkpoint."""
        ...

    def stop_key(self, candidates: str, pace: str) -> str:
        """The key of a fitted stop rule in the stop settings."""
        ...

    def stop_settings(self) -> dict:
        """The fitted stop rules (coverage rule, out-of-scope hypothesis) by key."""
        ...
