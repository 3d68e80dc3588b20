"""Helpers shared by the benchmarks."""

from __future__ import annotations

from assistant.store import Domain


def bundled_domain(name: str) -> Domain:
    """The bundled domain ``name`` from $CLARIFY_HOME, built there first if it is not yet."""
    from assistant.app.registry import load_domain
    from assistant.progress import run_job
    from assistant.store import built_domains
    from crowdsourcing.adapters import build_domain

    if name not in built_domains():
        run_job(build_domain(name))
    return load_domain(name)
