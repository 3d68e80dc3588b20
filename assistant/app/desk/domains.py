"""Domains as a person meets them: which ones there are, making one ready (build it and train what is
missing), opening it for conversations, and importing crowd files into it.

``open_domain`` is the job the GUI's domain picker runs (in a worker); ``prepare`` is `clarify prepare`.

Opening a prepared domain must not import the training stack (issue 33: `clarify ask` prints its first question
without torch): what builds, trains or installs models is imported by the functions that do it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any, TypeVar

from assistant import paths
from assistant.app.desk.listing import DomainEntry, available_domains, domain_stats
from assistant.app.desk.own_faq import is_own_faq
from assistant.app.lifecycle.calibration_jobs import calibration_missing
from assistant.app.lifecycle.model_sets import domain_lock
from assistant.app.lifecycle.prior_choice import chosen_text_prior
from assistant.app.lifecycle.registry import ModelRegistry
from assistant.errors import ConfigError, DomainNotFoundError
from assistant.paths import RELEASE_DIR
from assistant.progress import Progress
from assistant.sources.adapters import BUNDLED_DOMAINS, build_domain
from assistant.store import KnowledgeBase

__all__ = [
    "BUNDLED_DOMAINS",
    "DomainEntry",
    "DomainLoader",
    "available_domains",
    "build_job",
    "create_from_faq_job",
    "domain_stats",
    "open_domain",
    "prepare",
    "ready_registry",
    "release_job",
]


# The job that makes a domain ready and returns its ModelRegistry (``open_domain``, or a test's stand-in).
DomainLoader = Callable[[str], Generator[Progress, None, Any]]


def build_job(name: str) -> Generator[Progress, None, dict]:
    """`clarify domain build NAME`: (re)build a bundled domain; returns its stats. Waits for another Clarify
    that builds or prepares it (``model_sets.domain_lock``)."""
    release = yield from domain_lock(name)
    try:
        return (yield from build_domain(name))
    finally:
        release()


def prepare(
    name: str,
    candidate_settings: tuple[str, ...] | None = None,
    seed: int = 0,
    text_prior: str | None = None,
    use_release: bool = True,
    release_dir: Path = RELEASE_DIR,
) -> Generator[Progress, None, list[str]]:
    """Build the domain if needed, install the release models shipped with Clarify when they fit
    (``assistant.app.lifecycle.release``; ``use_release``), and train whatever is still missing; returns what was done
    ('release models', 'encoder', 'policy-all-learned-quick', ...). ``text_prior`` None: the domain's (SRU,
    or what the cold start chose). A domain made from a desk's FAQ that has no models yet takes the cold-start
    path (``assistant.app.desk.cold_start``: from the texts alone), and says so.

    Two programs preparing the same domain (two first launches) take turns (``model_sets.domain_lock``): the
    second then finds the domain built and the models there. A bundled domain whose first build was cut
    short (an empty knowledge base from a Clarify before builds were renamed into place) is built again."""
    release = yield from domain_lock(name)
    try:
        done = yield from _prepare(name, candidate_settings, seed, text_prior, use_release, release_dir)
        return done + (yield from _rebuild_a_damaged_cache(name, text_prior))
    finally:
        release()


def _rebuild_a_damaged_cache(name: str, text_prior: str | None) -> Generator[Progress, None, list[str]]:
    """The answers' vectors embedded again when their cache on disk is damaged (a truncated file): `ask` would
    read it as empty and embed them itself; ``prepare`` is where that waiting belongs, and it says so."""
    registry = ModelRegistry(name, text_prior=text_prior)
    if not registry.text_encoder.note:
        return []
    yield Progress(0, 0, registry.text_encoder.note)
    yield from registry.warm_up()
    return ["answer embeddings"]


def _prepare(
    name: str,
    candidate_settings: tuple[str, ...] | None,
    seed: int,
    text_prior: str | None,
    use_release: bool,
    release_dir: Path,
) -> Generator[Progress, None, list[str]]:
    from assistant.app.desk.cold_start import cold_start_prepare
    from assistant.app.lifecycle.calibration_jobs import calibrate_if_missing
    from assistant.app.lifecycle.model_jobs import train_model_job
    from assistant.app.lifecycle.release import check_release, install_release

    if not paths.domain_db_path(name).exists():
        if name not in BUNDLED_DOMAINS:
            raise DomainNotFoundError(f"domain {name!r} does not exist: import it first or pick a bundled one")
        yield from build_domain(name)
    elif name in BUNDLED_DOMAINS and _built_by_an_older_clarify(name):
        yield from build_domain(name)  # idempotent: keeps imports and sessions, adds what is new
    if text_prior is None and chosen_text_prior(name) is None and is_own_faq(name):
        from models.determinism import reproducible

        yield Progress(0, 0, f"{name} was made from a FAQ: preparing it from its texts alone (cold start)")
        # One torch thread throughout (issue 33), as its training stages already ran: the MiniLM passes over
        # thousands of held-out and calibration queries took 5x the wall time (and 4x the CPU, spinning) with
        # two threads on a shared two-core machine, and the result no longer depends on the core count.
        with reproducible():
            done = yield from cold_start_prepare(name, seed)
            calibrated = yield from calibrate_if_missing(ModelRegistry(name), seed)
        return ["cold start", *done, *calibrated]
    registry = ModelRegistry(name, text_prior=text_prior)
    if candidate_settings is None:
        has_uncaptioned = registry.domain.labels_with_queries("train").size < registry.domain.num_labels
        candidate_settings = ("all", "captioned") if has_uncaptioned else ("all",)
    trained = []
    todo = registry.missing(candidate_settings)
    if todo and use_release:
        usable, why = check_release(registry, release_dir)
        if why:
            yield Progress(0, 0, why if usable else f"training: {why}")
        if usable:
            # a model the registry could not use (damaged, stale) is replaced by the release's, not retrained
            replace = [t for t in todo if t == "encoder" or t.startswith("policy-")]
            unusable = [t for t in replace if (paths.models_dir(name) / f"{t}.pt").exists()]
            install_release(name, release_dir, replace=replace)
            if unusable:  # one line for what was there and could not be used, not for a fresh home's install
                yield Progress(0, 0, f"replaced by the release's (damaged or stale): {', '.join(unusable)}")
            registry = ModelRegistry(name, text_prior=text_prior)
            trained.append("release models")
            todo = registry.missing(candidate_settings)
    if "encoder" in todo:
        yield from train_model_job(registry, "encoder", seed)  # fits the prior on top of it too
        trained.append("encoder")
        todo = registry.missing(candidate_settings)
    trained += yield from _train_missing(registry, todo, name, seed)
    from assistant.app.lifecycle.updates import update_models_job

    plan = yield from update_models_job(registry, candidate_settings, seed)  # what is older than the data
    trained += [f"{u.model} ({u.mode})" for u in plan.updates]
    if plan.updates:  # the coverage and out-of-scope rules of a retrained policy are tuned for it now, not at
        # the first question after (learning from sessions left the first `ask` re-tuning for 100 s)
        trained += yield from _train_missing(registry, registry.missing(candidate_settings), name, seed)
    return trained + (yield from calibrate_if_missing(registry, seed))


def _train_missing(registry: ModelRegistry, todo: list[str], name: str, seed: int) -> Generator[Progress, None, list]:
    """Fit, train or tune each model of ``todo`` (``ModelRegistry.missing``'s order); returns them."""
    from assistant.app.desk.cold_start import cold_start_policy_config, policy_iterations_for
    from assistant.app.lifecycle.model_jobs import train_model_job

    for item in todo:  # the prior's fit, policies, then the rules tuned for them
        pace = item.rsplit("-", 1)[-1]
        # a FAQ's policies train as its cold start's
        config = None
        if item.startswith("policy-") and is_own_faq(name):
            entries = registry.domain.num_labels
            config = cold_start_policy_config(pace, policy_iterations_for(entries), entries)
        yield from train_model_job(registry, item, seed, config)
    return list(todo)


def create_from_faq_job(
    name: str, source: str | Path, fmt: str = "auto", title: str = "", seed: int = 0
) -> Generator[Progress, None, dict]:
    """*New domain from my FAQ*: create the domain from the FAQ (nothing written while it has a problem), then
    prepare it from its texts alone; returns {"report": FaqDomainReport, "prepared": what was done, "readiness":
    how well it is likely to do (``cold_start.readiness``)}."""
    from assistant.app.desk.own_faq import create_domain_job

    # one scale for both (creating: the first tenth), so that the wizard's bar never goes back to 0
    report = yield from _scaled(create_domain_job(name, source, fmt, title), 0.0, 0.1)
    prepared = yield from _scaled(prepare(name, seed=seed), 0.1, 1.0)
    from assistant.app.desk.cold_start import readiness

    return {"report": report, "prepared": prepared, "readiness": readiness(name)}


T = TypeVar("T")


def reload_job(name: str, seed: int = 0) -> Generator[Progress, None, ModelRegistry]:
    """Domain ``name``'s registry loaded afresh after its data changed (an import, an inbox entry), warmed up;
    stale models serve the new data until they are updated (``assistant.app.lifecycle.updates``). A pooled MiniLM
    prior that is no longer calibrated on the data (a new entry) cannot serve stale: it is fitted again first
    (seconds), instead of failing with "run clarify prepare"."""
    from assistant.errors import ModelMissingError

    yield Progress(0, 0, f"loading {name} with its new data")
    registry = ModelRegistry(name)
    if registry.text_prior == "minilm":
        try:
            registry.encoder  # noqa: B018 - loading is the check
        except ModelMissingError:
            from assistant.app.lifecycle.model_jobs import train_model_job

            yield Progress(0, 0, f"fitting the text prior of {name} to its new entries")
            yield from train_model_job(registry, "prior", seed)
            registry = ModelRegistry(name)
    yield from registry.warm_up()
    registry.stale()
    return registry


def _scaled(job: Generator[Progress, None, T], start: float, end: float) -> Generator[Progress, None, T]:
    """``job``'s records on the part [start, end] of a scale of 1000 (a record without a total stays as it is)."""
    try:
        while True:
            try:
                record = next(job)
            except StopIteration as stop:
                return stop.value
            if record.total > 0:
                where = start + (end - start) * min(1.0, record.step / record.total)
                record = Progress(round(1000 * where), 1000, record.message, record.metrics)
            yield record
    finally:
        job.close()  # cancelled from outside: the inner job's clean-up runs too


def _built_by_an_older_clarify(name: str) -> bool:
    """Whether bundled domain ``name`` needs building again: built before held-out answers were stored, or
    left empty by a first build that was cut short (kill, full disk) before builds were renamed into place."""
    with KnowledgeBase.open(name) as kb:
        return kb.lacks_heldout_answers() or (name in BUNDLED_DOMAINS and kb.is_empty())


def text_encoder_op() -> Generator[Progress, None, str]:
    """Make sure sru's compiled op is ready (normally built at installation; a build cut short by a killed
    process is detected and redone), reporting progress so that Cancel works while it builds; returns a
    one-line notice when Clarify has to run without it (slower), else ''."""
    from models.sru_loader import build_steps

    steps = build_steps()
    while True:
        try:
            message = next(steps)
        except StopIteration as done:
            status = done.value
            return "" if status.compiled else f"{status.notice}: the text encoder runs without it (slower)."
        yield Progress(0, 0, message)


def ready_registry(name: str, candidates: str = "all", text_prior: str | None = None) -> Generator[Progress, None, Any]:
    """The ``ModelRegistry`` of ``name`` with its models for ``candidates``, preparing the domain first when it
    is not built or lacks them (`clarify ask` on a fresh home).

    When the domain is built and the models are there, the registry that checked them is used as it is
    (``prepare`` would load them a second time).
    """
    exists = paths.domain_db_path(name).exists()
    registry = ModelRegistry(name, text_prior=text_prior) if exists and not _built_by_an_older_clarify(name) else None
    if registry is None or registry.missing((candidates,)) or calibration_missing(registry):
        yield from prepare(name, text_prior=text_prior)
        registry = ModelRegistry(name, text_prior=text_prior)
    return registry


def open_domain(name: str, candidates: str = "all") -> Generator[Progress, None, Any]:
    """Prepare ``name`` (build + install the release models or train what is missing), then load and warm up
    its models; returns the ready ``ModelRegistry`` (its ``notice`` says what runs in a slower way, if
    anything)."""
    yield Progress(0, 0, "getting ready to read questions (checking the text encoder)")
    notice = yield from text_encoder_op()
    yield Progress(0, 0, f"checking the models of {name}")
    registry = yield from ready_registry(name, candidates)
    yield from registry.warm_up(candidates)
    registry.notice = notice
    registry.stale((candidates,))  # found on loading: the app updates them in the background
    return registry


def release_job(name: str, release_dir: Path = RELEASE_DIR) -> Generator[Progress, None, dict]:
    """Train the models of bundled domain ``name`` from ``RELEASE_SEED`` in the current (fresh) home and write
    them with their manifest into ``release_dir/name``; returns the manifest."""
    from assistant.app.lifecycle.release import RELEASE_SEED, write_release

    if paths.models_dir(name).exists() and any(paths.models_dir(name).iterdir()):
        raise ConfigError(
            f"{paths.models_dir(name)} already holds models: build release models in a fresh CLARIFY_HOME "
            "(`make release-models` does)"
        )
    start = time.monotonic()
    done = yield from prepare(name, seed=RELEASE_SEED, use_release=False)
    yield from ModelRegistry(name).warm_up()  # writes text-embeddings.npz
    return write_release(name, release_dir, done, time.monotonic() - start)
