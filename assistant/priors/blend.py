"""The trained encoder's prior blended with retrieval: log p(y | x) = sum_i w_i log softmax(s_i(x)) + const over
the SRU encoder's scores, pooled MiniLM's and BM25's, with the weights w tuned on the dev queries as people
first type them (the vague mix, ``assistant.simulation.queries``): the mixture for accuracy, its scale for NLL.

Why: the encoder learns from the crowd's paraphrases, which name their answer; on short vague queries it
fell below BM25 and pooled MiniLM on every bundled domain (faq test vague Acc@1: SRU 0.517, BM25 0.581,
MiniLM 0.589). The three err differently (MiniLM knows words the crowd never used, BM25 matches rare words
exactly), so a log-linear blend beats each of them alone, and where one adds nothing its weight is 0: the
choice is made per domain on dev, never on test.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from assistant.priors.base import log_softmax
from assistant.priors.bm25 import BM25Prior
from assistant.priors.calibration import ranking_metrics
from assistant.priors.minilm import MiniLMPrior
from assistant.store import Domain

PARTS = ("sru", "minilm", "bm25")
BLEND_GRID = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5)


@dataclass
class PriorBlend:
    """The retrieval side of the blend and the weights: ``weights`` maps each of ``PARTS`` to w_i;
    ``minilm``/``bm25`` are None where their weight is 0 (not needed then)."""

    weights: dict[str, float]
    minilm: MiniLMPrior | None = None
    bm25: BM25Prior | None = None

    def combine(self, sru_scores: np.ndarray, texts: Sequence[str]) -> np.ndarray:
        """[N, Y] float32 blended logits from the encoder's scores [N, Y] of ``texts``."""
        parts = {"sru": sru_scores}
        if self.weights.get("minilm", 0.0) and self.minilm is not None:
            parts["minilm"] = self.minilm.scores(texts)
        if self.weights.get("bm25", 0.0) and self.bm25 is not None:
            parts["bm25"] = self.bm25.scores(texts)
        return blend_scores(parts, self.weights)

    def to_dict(self) -> dict[str, float]:
        return {k: float(self.weights.get(k, 0.0)) for k in PARTS}


def blend_scores(parts: Mapping[str, np.ndarray], weights: Mapping[str, float]) -> np.ndarray:
    """sum_i w_i log softmax(parts[i]) [N, Y] float32 (parts without a weight, or of weight 0, left out)."""
    out = None
    for name, scores in parts.items():
        w = float(weights.get(name, 0.0))
        if w == 0.0:
            continue
        term = w * log_softmax(np.asarray(scores, dtype=np.float64))
        out = term if out is None else out + term
    if out is None:
        raise ValueError("a blend needs at least one part with a positive weight")
    return out.astype(np.float32)


def fit_blend_weights(
    parts: Mapping[str, np.ndarray], labels: np.ndarray, grid: Sequence[float] = BLEND_GRID
) -> tuple[dict[str, float], float]:
    """The blend's weights for ``parts`` (name -> dev scores [N, Y]) and ``labels``, in two steps: the mixture
    (one weight per part from ``grid``) that ranks best, by Acc@1 + Acc@3 / 2 as the encoder's own early
    stopping (ties: fewer parts, then smaller weights), then one common scale, by dev NLL, so that the blend is
    as sure as it is right. Choosing the mixture by NLL alone traded accuracy for calibration (birds: crowd
    Acc@1 0.312 with the encoder alone, 0.277 with the NLL-best blend). Returns (weights, NLL)."""
    names = list(parts)
    logs = {n: log_softmax(np.asarray(parts[n], dtype=np.float64)) for n in names}
    best_key: tuple[float, int, float] | None = None
    mixture: tuple[float, ...] = ()
    for combo in itertools.product(grid, repeat=len(names)):
        if not any(combo):
            continue
        m = ranking_metrics(np.asarray(sum(w * logs[n] for n, w in zip(names, combo) if w)), labels)
        key = (-round(m["acc1"] + 0.5 * m["acc3"], 9), sum(1 for w in combo if w), sum(combo))
        if best_key is None or key < best_key:
            best_key, mixture = key, combo
    blended = sum(w * logs[n] for n, w in zip(names, mixture) if w)
    scales = np.geomspace(0.1, 10.0, 81)
    nll = [ranking_metrics(s * blended, labels, ks=())["nll"] for s in scales]
    scale = float(scales[int(np.argmin(nll))])
    return {n: float(w) * scale for n, w in zip(names, mixture)}, float(min(nll))


def fit_retrieval(agent: Domain, seed: int, calibration) -> tuple[MiniLMPrior, BM25Prior]:
    """Pooled MiniLM (calibrated on ``calibration``, the vague dev mix) and BM25 fitted on ``agent``."""
    return MiniLMPrior.fit(agent, seed, calibration=calibration), BM25Prior.fit(agent)


def minilm_arrays(prior: MiniLMPrior) -> dict[str, np.ndarray]:
    """What the blend needs of pooled MiniLM besides the model itself: the label vectors, the query centroids
    and their weight, the two temperatures (Y x 384 floats: kilobytes, not the embeddings of every query)."""
    centroids = prior.centroids if prior.centroids is not None else np.zeros((0, 0))
    short = np.nan if prior.short_temperature is None else prior.short_temperature
    return {
        "minilm_doc_vectors": prior.doc_vectors.astype(np.float32),
        "minilm_centroids": centroids.astype(np.float32),
        "minilm_settings": np.array([prior.centroid_weight, prior.temperature, short]),
    }


def minilm_from_arrays(arrays: Mapping[str, np.ndarray], agent: Domain) -> MiniLMPrior | None:
    """The MiniLM prior ``minilm_arrays`` saved; None when they are absent or cover other labels than ``agent``
    (a stale encoder: it serves without them)."""
    try:
        docs, centroids, settings = (arrays[k] for k in ("minilm_doc_vectors", "minilm_centroids", "minilm_settings"))
    except KeyError:
        return None
    if docs.shape[0] != agent.num_labels or (centroids.size and centroids.shape[0] != agent.num_labels):
        return None
    prior = MiniLMPrior(agent, docs, centroids if centroids.size else None, float(settings[0]), float(settings[1]))
    prior.short_temperature = None if np.isnan(settings[2]) else float(settings[2])
    return prior
