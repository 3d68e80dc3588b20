"""Tuning the trained SRU encoder prior on the agent's dev queries (assistant.training.encoder): the weight of
the label's query centroid, the two temperatures (on the vague first-query mix, long and short queries
apart) and the blend with pooled MiniLM and BM25."""

from __future__ import annotations

import numpy as np

from assistant.priors.blend import PriorBlend, blend_scores, fit_blend_weights, fit_retrieval
from assistant.priors.calibration import ranking_metrics, split_by_length, tune_temperature
from assistant.priors.sru import EncoderPrior
from assistant.simulation.queries import training_queries
from assistant.store import Domain


def calibrated_prior(
    prior: EncoderPrior, agent: Domain, vectors, config, centroids: tuple[list[list[int]], np.ndarray] | None
) -> tuple[EncoderPrior, float, float | None]:
    """The prior with its centroid weight (tuned on ``centroids``, the dev ids and labels; None: no centroid)
    and its temperatures, calibrated on the vague first-query mix of the dev queries (long and short apart);
    also those temperatures. ``config``: the EncoderTrainConfig."""
    if centroids is not None:
        prior = prior.with_centroids(tune_centroid_weight(prior, *centroids))
    temperature, short_temperature = 1.0, None
    (long_texts, long_labels), (short_texts, short_labels) = calibration_queries(agent, config.protocol_seed)
    if long_texts:
        long_ids = vectors.token_ids(long_texts, config.model.max_len)
        temperature = tune_temperature(prior.raw_scores_from_ids(long_ids), long_labels)
    if short_texts:
        short_ids = vectors.token_ids(short_texts, config.model.max_len)
        short_temperature = tune_temperature(prior.raw_scores_from_ids(short_ids), short_labels)
    return prior.with_temperature(temperature, short_temperature), temperature, short_temperature


# Vague versions of the dev queries the blend's weights are tuned on: a few per query, at most this many.
BLEND_TUNING_QUERIES = 2000


def fit_blend(agent: Domain, prior: EncoderPrior, config) -> tuple[PriorBlend, dict]:
    """The weights of the encoder, pooled MiniLM and BM25 in the blended prior (``assistant.priors.blend``),
    tuned by NLL on vague versions of the dev queries (not those the temperatures were tuned on), and the
    blend's dev figures."""
    minilm, bm25 = fit_retrieval(agent, config.protocol_seed, calibration_queries(agent, config.protocol_seed))
    copies = max(1, min(3, BLEND_TUNING_QUERIES // max(len(agent.queries("dev")[0]), 1)))
    texts, labels, _ = training_queries(agent, seed=config.protocol_seed + 2, copies=copies)
    parts = {"sru": prior.with_blend(None).scores(texts), "minilm": minilm.scores(texts), "bm25": bm25.scores(texts)}
    weights, nll = fit_blend_weights(parts, labels)
    blend = PriorBlend(weights, minilm if weights["minilm"] else None, bm25 if weights["bm25"] else None)
    alone = ranking_metrics(parts["sru"], labels)
    blended = ranking_metrics(blend_scores(parts, weights), labels)
    metrics = {
        "blend_sru": weights["sru"],
        "blend_minilm": weights["minilm"],
        "blend_bm25": weights["bm25"],
        "blend_tuning_queries": float(len(texts)),
        "blend_tuning_acc1_encoder": alone["acc1"],
        "blend_tuning_acc1": blended["acc1"],
        "blend_tuning_nll": nll,
    }
    return blend, metrics


def tune_centroid_weight(prior: EncoderPrior, dev_ids: list[list[int]], dev_labels: np.ndarray) -> float:
    """The weight of the label's training-query centroid that maximises dev Acc@1 (+ Acc@3/2)."""
    if not len(dev_ids):
        return 1.0
    best, best_weight = -1.0, 0.0
    for weight in (0.0, 0.25, 0.5, 1.0, 2.0, 4.0):
        m = ranking_metrics(prior.with_centroids(weight).scores_from_ids(dev_ids), dev_labels)
        score = m["acc1"] + 0.5 * m["acc3"]
        if score > best + 1e-9:
            best, best_weight = score, weight
    return best_weight


def calibration_queries(agent: Domain, seed: int) -> tuple[tuple[list[str], np.ndarray], tuple[list[str], np.ndarray]]:
    """((long texts, labels), (short texts, labels)): the vague mix of the dev queries (three versions of
    each), split at ``SHORT_QUERY_WORDS`` words, for the prior's two temperatures."""
    texts, labels, _ = training_queries(agent, seed=seed, copies=3)
    return split_by_length(texts, labels)
