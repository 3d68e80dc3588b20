"""Train the bundled domains' models with tiny budgets, for the end-to-end GUI tests.

The models are real (the SRU encoder and the STOP/ASK policies of ``assistant.agent``), only trained for a
few steps, so that ``prepare`` finds nothing missing and the app runs its real code path. The comparison
phase's text-embedding cache is filled with hashed vectors instead of MiniLM's (see ``prefill_text_cache``).
"""

from __future__ import annotations

import time

from assistant.agent import VARIANTS, AgentFactory
from assistant.progress import run_job
from assistant.ranking.session import candidate_texts
from assistant.training import PolicyConfig
from tests.support import HashingEncoder

ENCODER_STEPS = 1
POLICY_ITERATIONS = 5
TEXT_DIM = 384  # MiniLM's width: the cache's vectors must match the query's


def prefill_text_cache(factory: AgentFactory) -> None:
    """Embed every candidate text the comparisons may show with ``HashingEncoder`` into the factory's
    on-disk cache, so that the app's warm-up finds them all (MiniLM on 600 FAQ answers takes a minute on two
    busy cores). Only the user's query is then embedded by the real MiniLM."""
    from assistant import paths
    from models.pretrained import CachingSentenceEncoder

    texts = [text for label in factory.domain.labels for text in candidate_texts(label)]
    cache = CachingSentenceEncoder(paths.models_dir(factory.name) / "text-embeddings.npz", HashingEncoder(TEXT_DIM))
    cache.warm(texts)


def train_tiny_encoder(factory: AgentFactory) -> None:
    from assistant.encoder_training import EncoderTrainConfig, train_encoder

    config = EncoderTrainConfig(
        max_steps=ENCODER_STEPS,
        eval_every=ENCODER_STEPS,
        patience=1,
        batch_queries=8,
        batch_tags=4,
        batch_pseudo=4,
        negatives=15,
        max_seconds=60.0,
    )
    run_job(train_encoder(factory.domain, config, seed=0, save=True))


def train_tiny_models(name: str) -> float:
    """Train the encoder and both policy variants of ``name`` (candidates 'all'); returns the seconds taken."""
    start = time.perf_counter()
    factory = AgentFactory(name)
    if "encoder" in factory.missing():
        train_tiny_encoder(factory)
        factory = AgentFactory(name)
    config = PolicyConfig(iterations=POLICY_ITERATIONS, batch_size=32)
    for variant in VARIANTS:
        run_job(factory.train_policy("all", variant, config, seed=0))
    assert factory.missing(("all",)) == [], factory.missing(("all",))
    prefill_text_cache(factory)
    return time.perf_counter() - start
