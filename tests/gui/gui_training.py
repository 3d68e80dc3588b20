"""Train the bundled domains' models with tiny budgets, for the end-to-end GUI tests.

The models are real (the SRU encoder and the STOP/ASK policies of ``assistant.app.lifecycle.registry``), only trained for a
few steps, so that ``prepare`` finds nothing missing and the app runs its real code path. The comparison
phase's text-embedding cache is filled with hashed vectors instead of MiniLM's (see ``prefill_text_cache``).
"""

from __future__ import annotations

import time

from assistant.app.lifecycle.out_of_scope_jobs import tune_out_of_scope_job
from assistant.app.lifecycle.registry import ModelRegistry
from assistant.app.lifecycle.training_jobs import fit_prior_job, train_policy_job, tune_coverage_job
from assistant.clarification.stopping import PACES
from assistant.progress import run_job
from assistant.ranking.ranking_session import candidate_texts
from assistant.training.policy import PolicyConfig
from tests.support import HashingEncoder

ENCODER_STEPS = 40  # enough for a prior that is not flat: the out-of-scope hypothesis is tuned on it
POLICY_ITERATIONS = 5
COVERAGE_EPISODES = 20
TEXT_DIM = 384  # MiniLM's width: the cache's vectors must match the query's


def prefill_text_cache(registry: ModelRegistry) -> None:
    """Embed every candidate text the comparisons may show with ``HashingEncoder`` into the registry's
    on-disk cache, so that the app's warm-up finds them all (MiniLM on 600 FAQ answers takes a minute on two
    busy cores). The query is embedded with the same hashed words (tests/gui/conftest.py)."""
    from assistant import paths
    from assistant.text.embeddings import CachingSentenceEncoder

    texts = [text for label in registry.domain.labels for text in candidate_texts(label)]
    cache = CachingSentenceEncoder(paths.models_dir(registry.name) / "text-embeddings.npz", HashingEncoder(TEXT_DIM))
    cache.warm(texts)


def train_tiny_encoder(registry: ModelRegistry) -> None:
    from assistant.training.encoder import EncoderTrainConfig, train_encoder

    config = EncoderTrainConfig(
        max_steps=ENCODER_STEPS,
        eval_every=ENCODER_STEPS,
        patience=1,
        batch_queries=8,
        batch_tags=4,
        batch_pseudo=4,
        negatives=15,
    )
    run_job(train_encoder(registry.domain, config, seed=0, save=True))


def train_tiny_models(name: str) -> float:
    """Train the encoder, the policies (both paces) of ``name`` (candidates 'all') and tune their coverage
    rules and out-of-scope hypotheses; returns the seconds taken."""
    start = time.perf_counter()
    registry = ModelRegistry(name)
    if "encoder" in registry.missing():
        train_tiny_encoder(registry)
        registry = ModelRegistry(name)
    if "prior" in registry.missing():
        run_job(fit_prior_job(registry))
    config = PolicyConfig(iterations=POLICY_ITERATIONS, batch_size=32)
    for candidates, variant, pace in registry.required_policies(("all",)):
        run_job(train_policy_job(registry, candidates, variant, config, seed=0, pace=pace))
    for pace in PACES:
        run_job(tune_coverage_job(registry, "all", pace, episodes=COVERAGE_EPISODES))
    for pace in PACES:  # faq and banking carry out-of-scope queries: the hypothesis is tuned on their dev split
        if f"oos-all-{pace}" in registry.missing(("all",)):
            run_job(tune_out_of_scope_job(registry, "all", pace))
    assert registry.missing(("all",)) == [], registry.missing(("all",))
    prefill_text_cache(registry)
    return time.perf_counter() - start
