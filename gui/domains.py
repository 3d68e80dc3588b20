"""Which domains the picker offers, and the job that makes one ready for conversations.

``available_domains()`` lists the bundled domains (built or not) and every domain built or imported under
CLARIFY_HOME. ``open_domain`` is a job (run it in a worker): it builds and trains what is missing
(``assistant.agent.prepare``, cached on disk), then loads the agent and embeds the comparison texts
(``AgentFactory.warm_up``), and returns the ready ``AgentFactory``.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

from assistant.progress import Progress

DomainLoader = Callable[[str], Generator[Progress, None, Any]]


@dataclass(frozen=True)
class DomainEntry:
    name: str
    description: str
    built: bool


def available_domains() -> list[DomainEntry]:
    """Bundled domains first (in their usual order), then other built or imported ones."""
    from assistant.store import built_domains
    from crowdsourcing.adapters import BUNDLED_DOMAINS

    built = set(built_domains())
    entries = [DomainEntry(name, text, name in built) for name, text in BUNDLED_DOMAINS.items()]
    entries += [DomainEntry(name, "built or imported domain", True) for name in sorted(built - set(BUNDLED_DOMAINS))]
    return entries


def open_domain(name: str, candidates: str = "all") -> Generator[Progress, None, Any]:
    """Prepare ``name`` (build + train what is missing), then load and warm up its agent.

    When the domain is built and the models for ``candidates`` are there, the factory that checked them
    is used as it is (``prepare`` would load them a second time).
    """
    from assistant import paths
    from assistant.agent import AgentFactory, prepare

    yield Progress(0, 0, f"checking the models of {name}")
    factory = AgentFactory(name) if paths.domain_db_path(name).exists() else None
    if factory is None or factory.missing((candidates,)):
        yield from prepare(name)
        factory = AgentFactory(name)
    yield from factory.warm_up(candidates)
    return factory
