"""The seam between a live conversation and the models it runs on.

A ``Session`` (and the GUI's session thread) needs five things of a domain's models: the domain, its name,
the text prior's name and default pace (recorded in the session's config), a clarifier built for the
session's settings, and the text encoder of the comparison phase. ``ModelRegistry`` provides them from the
trained models on disk; the tests' ``TinyAgents`` provides them from a hand-made domain. Both are held to
this Protocol: the type checker checks ``ModelRegistry`` wherever a Session is started with one, and
tests/architecture/test_seams.py checks ``TinyAgents`` member by member.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from assistant.clarification.clarifier import Clarifier
from assistant.settings import SHORTLIST_SIZE
from assistant.store import Domain
from assistant.text.encoder import TextEncoder


@runtime_checkable
class DomainModels(Protocol):
    """What a live conversation needs from a domain's models (see the module docstring)."""

    @property
    def name(self) -> str:
        """The domain's name (its knowledge base and its models folder)."""
        ...

    @property
    def domain(self) -> Domain:
        """The whole domain a conversation runs on (labels, questions, crowd answers)."""
        ...

    @property
    def text_prior(self) -> str:
        """The name of the text prior the clarifier starts from ("sru", "minilm", ...), logged with a session."""
        ...

    @property
    def default_pace(self) -> str:
        """The pace ("quick" or "thorough") a session uses unless its config names one."""
        ...

    @property
    def text_encoder(self) -> TextEncoder:
        """The encoder of the comparison phase's candidate features."""
        ...

    def clarifier(
        self, candidates: str = "all", pace: str | None = None, shortlist_size: int = SHORTLIST_SIZE
    ) -> Clarifier:
        """The clarifier for ``candidates`` ("all" or a setting's name), ``pace`` (None: the default) and a
        shortlist of ``shortlist_size`` labels."""
        ...
