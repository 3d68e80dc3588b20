"""Out-of-scope jobs (issue 17): tune the out-of-scope hypothesis on dev, evaluate it on test.

``prepare`` tunes it for every learned policy of a domain that has out-of-scope dev queries (clinc); the
tuned settings live beside the coverage rule in the domain's stop settings (``ModelRegistry``).
"""

from __future__ import annotations

from collections.abc import Generator

import numpy as np

from assistant.app.lifecycle.registry import ModelRegistry, candidate_labels
from assistant.app.lifecycle.training_jobs import policy_prior, tuning_answer_model
from assistant.clarification.stopping import check_pace
from assistant.errors import ConfigError
from assistant.evaluation.out_of_scope import (
    OutOfScopeSetup,
    evaluate_out_of_scope,
    split_episodes,
    tune_out_of_scope,
    vague_split_episodes,
)
from assistant.priors.desk import desk_settings_of
from assistant.progress import Progress
from assistant.simulation.episodes import EpisodeSpec, episodes_from_file
from assistant.simulation.out_of_scope_person import OUT_OF_SCOPE_USER_ERROR
from models.determinism import reproducible

DEV_SEED_OFFSET = 1_000_003
QUERY_FILE_REPEATS = 20
# A desk's own FAQ tunes on at most this many in-scope dev episodes (issue 33): its dev split grows with the
# entries (about two synthesized queries each) and every rollout turn costs about entries x questions, so the
# tuning grew with the cube of the FAQ's size (a 1,000-entry FAQ: minutes per pace). A FAQ of up to about
# 450 entries keeps every episode, as before; the coverage rule is tuned on 1,000 dev episodes too.
OWN_FAQ_MAX_IN_SCOPE = 1000


def max_in_scope_of(registry: ModelRegistry) -> int | None:
    """The cap on in-scope dev episodes for the registry's domain: ``OWN_FAQ_MAX_IN_SCOPE`` for a desk's FAQ,
    None (all) for the bundled domains."""
    return OWN_FAQ_MAX_IN_SCOPE if registry.domain.meta.get("own_faq") == "true" else None


def out_of_scope_setup(
    registry: ModelRegistry, pace: str | None = None, user_error: float = OUT_OF_SCOPE_USER_ERROR
) -> OutOfScopeSetup:
    """The learned policy of ``pace`` over all labels, its coverage rule, the agent's prior and answer model."""
    pace = check_pace(pace or registry.default_pace)
    loaded = registry.load_policy("all", "learned", pace)
    if len(candidate_labels(registry.domain, "all")) != registry.domain.num_labels:
        raise ConfigError("out-of-scope evaluation runs over all labels")
    return OutOfScopeSetup(
        domain=registry.agent_domain,
        prior=policy_prior(registry),  # what the policy was trained on: an own FAQ's calibrated prior
        answer_model=tuning_answer_model(registry, loaded),
        policy=loaded.policy,
        user_answers=registry.protocol.user_answers,
        coverage=registry.coverage("all", pace),
        user_error=user_error,
        answer_lists=registry.answer_lists,
    )


def tune_out_of_scope_job(
    registry: ModelRegistry | str,
    candidates: str = "all",
    pace: str | None = None,
    seed: int = 0,
    max_in_scope: int | None = None,
) -> Generator[Progress, None, dict]:
    """Tune (and save) the out-of-scope hypothesis for a learned policy on the dev split and its
    out-of-scope queries, as people first type them (the vague-query mix the policy was trained on);
    returns what was chosen and its dev figures. ``max_in_scope``: at most this many in-scope dev episodes
    (a seeded draw, in their order; every out-of-scope one stays), None: all of them."""
    registry = registry if isinstance(registry, ModelRegistry) else ModelRegistry(registry)
    if candidates != "all":
        raise ConfigError("the out-of-scope hypothesis is tuned over all labels (--candidates all)")
    pace = check_pace(pace or registry.default_pace)
    setup = out_of_scope_setup(registry, pace)
    dev = at_most_in_scope(vague_split_episodes(setup.domain, "dev", seed + DEV_SEED_OFFSET), max_in_scope, seed)
    settings = desk_settings_of(registry.encoder)  # a desk's prior: fitted on other desks' people (issue 39)
    prior_fit = None if settings is None else (settings.out_of_scope_weights, settings.out_of_scope_bias)
    with reproducible():
        model, details = yield from tune_out_of_scope(setup, dev, prior_fit=prior_fit)
    registry.save_out_of_scope(candidates, pace, model, details)
    return {"model": model.to_dict(), **details}


def at_most_in_scope(episodes: list[EpisodeSpec], most: int | None, seed: int = 0) -> list[EpisodeSpec]:
    """``episodes`` with at most ``most`` in-scope ones (a draw seeded by ``seed``, kept in their order) and
    every out-of-scope one; all of them when there are no more (or ``most`` is None)."""
    in_scope = [i for i, e in enumerate(episodes) if e.kind == "in_scope"]
    if most is None or len(in_scope) <= most:
        return episodes
    drawn = np.random.default_rng(seed + DEV_SEED_OFFSET).choice(len(in_scope), size=most, replace=False)
    keep = {in_scope[int(i)] for i in drawn}
    return [e for i, e in enumerate(episodes) if e.kind != "in_scope" or i in keep]


def evaluate_out_of_scope_job(
    registry: ModelRegistry | str,
    pace: str | None = None,
    seed: int = 0,
    user_error: float = OUT_OF_SCOPE_USER_ERROR,
    queries: str | None = None,
    repeats: int = QUERY_FILE_REPEATS,
) -> Generator[Progress, None, dict]:
    """In-scope accuracy and out-of-scope recall/precision of every system on the whole test split and its
    out-of-scope queries (assistant.evaluation.out_of_scope); returns {"rows", "meta"}.

    ``queries``: a TSV file (label, query; label ``out_of_scope`` for a query no label answers) instead of
    the test split, e.g. hand-written desk queries; each row is played ``repeats`` times with different
    answer draws."""
    registry = registry if isinstance(registry, ModelRegistry) else ModelRegistry(registry)
    pace = check_pace(pace or registry.default_pace)
    model = registry.out_of_scope_model("all", pace)
    if model is None:
        raise ConfigError(
            f"the out-of-scope hypothesis of {registry.name!r} is not tuned: run `clarify prepare {registry.name}`"
        )
    setup = out_of_scope_setup(registry, pace, user_error)
    if queries is None:
        test = split_episodes(setup.domain, "test", seed)
    else:
        test = episodes_from_file(setup.domain, queries, None, seed, out_of_scope=True, repeats=repeats)
    dev = vague_split_episodes(setup.domain, "dev", seed + DEV_SEED_OFFSET)
    rows = yield from evaluate_out_of_scope(setup, model, test, dev)
    meta = {
        "domain": registry.name,
        "pace": pace,
        "seed": seed,
        "queries": "test split" if queries is None else f"{queries} (each row {repeats} times)",
        "out_of_scope_user_error": user_error,
        "model": model.to_dict(),
        "test_in_scope": sum(e.kind == "in_scope" for e in test),
        "test_out_of_scope": sum(e.kind == "out_of_scope" for e in test),
    }
    return {"rows": rows, "meta": meta}
