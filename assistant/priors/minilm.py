"""Pooled MiniLM as a text prior: no training, cosine similarity to label documents (and query centroids)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from assistant import paths
from assistant.priors.base import centroid_applicable, check_texts, scatter_tag_scores
from assistant.priors.calibration import query_temperatures, ranking_metrics, short_query_windows, tune_temperature
from assistant.store import Domain
from assistant.text.embeddings import CachingSentenceEncoder
from assistant.text.encoder import TextEncoder
from assistant.text.label_text import LabelTextConfig, label_documents, tag_answer_texts


def domain_sentence_embeddings(domain_name: str):
    """MiniLM embeddings of the domain's fixed texts (label documents, tags, queries), cached on disk in the
    domain's model folder (``assistant.text.embeddings.CachingSentenceEncoder``)."""
    return CachingSentenceEncoder(paths.models_dir(domain_name) / "minilm-prior-embeddings.npz")


QUERY_CACHE_SIZE = 100_000


# at most this many new texts at once go through the numpy forward pass (``query_encoder``)
NUMPY_BATCH_LIMIT = 16


class MiniLMPrior:
    """Pooled MiniLM prior: scores = cos(x, label document) [+ w * cos(x, query centroid)] / T.

    Needs no training; w (where every label has training queries) and T are tuned on the dev split, the
    short queries' T on windows of the dev queries (``short_query_windows``).
    ``tag_scores`` is cos("tag # answer", label document), for an answer model without a trained encoder.
    """

    name = "minilm"

    def __init__(
        self, domain: Domain, doc_vectors: np.ndarray, centroids: np.ndarray | None, weight: float, temperature: float
    ):
        self.domain = domain
        self.doc_vectors = doc_vectors
        self.centroids = centroids
        self.centroid_weight = weight
        self.temperature = temperature
        self.short_temperature: float | None = None
        self._tags: np.ndarray | None = None
        self._embeddings: TextEncoder | None = None
        self._query_cache: dict[str, np.ndarray] = {}
        # how queries are embedded: None = ``models.pretrained.SentenceEncoder`` (torch); serving may set the
        # numpy forward pass of the same model (``models.numpy_forward.minilm_sentence_vectors``)
        self.query_encoder: Callable[[list[str]], np.ndarray] | None = None

    @classmethod
    def build(cls, agent: Domain, text: LabelTextConfig | None = None, centroid: str = "auto") -> MiniLMPrior:
        """The prior of ``agent`` (the agent's view of a domain) before calibration: label documents and, where
        every label has training queries (``centroid`` "auto"), query centroids; weight 0, temperature 1."""
        docs = label_documents(agent, agent.p_hat(), text)
        embeddings = domain_sentence_embeddings(agent.name)
        doc_vectors = embeddings.encode(docs)
        centroids = None
        if centroid == "on" or (centroid == "auto" and centroid_applicable(agent)):
            train_texts, train_labels = agent.queries("train")
            emb = embeddings.encode(train_texts)
            sums = np.zeros_like(doc_vectors, dtype=np.float64)
            np.add.at(sums, train_labels, emb)
            norms = np.linalg.norm(sums, axis=1, keepdims=True)
            centroids = (sums / np.maximum(norms, 1e-9)).astype(np.float32)
        prior = cls(agent, doc_vectors, centroids, 0.0, 1.0)
        prior._embeddings = embeddings
        return prior

    @classmethod
    def fit(
        cls,
        agent: Domain,
        seed: int = 0,
        text: LabelTextConfig | None = None,
        centroid: str = "auto",
        calibration: tuple | None = None,
    ) -> MiniLMPrior:
        """Fit on ``agent``, the agent's view of a domain; ``seed`` draws the short-query windows.
        ``calibration``: ((long texts, labels), (short texts, labels)) to tune the two temperatures on (the
        vague first-query mix of the dev queries); default: the dev queries and 1-3 word windows of them."""
        prior = cls.build(agent, text, centroid)
        embeddings = prior._embeddings
        assert embeddings is not None  # build sets it
        dev_texts, dev_labels = agent.queries("dev")
        if len(dev_texts):
            dev = embeddings.encode(dev_texts)
            if prior.centroids is not None:
                best = -1.0
                for w in (0.0, 0.5, 1.0, 2.0, 4.0, 8.0):
                    m = ranking_metrics(prior._raw(dev, w), dev_labels)
                    if m["acc1"] + 0.5 * m["acc3"] > best + 1e-9:
                        best, prior.centroid_weight = m["acc1"] + 0.5 * m["acc3"], w
            if calibration is None:
                prior.temperature = tune_temperature(prior._raw(dev, prior.centroid_weight), dev_labels)
                short_texts, short_labels = short_query_windows(dev_texts, dev_labels, seed)
            else:
                (long_texts, long_labels), (short_texts, short_labels) = calibration
                if long_texts:
                    long = embeddings.encode(long_texts)
                    prior.temperature = tune_temperature(prior._raw(long, prior.centroid_weight), long_labels)
            if short_texts:
                short = embeddings.encode(short_texts)
                prior.short_temperature = tune_temperature(prior._raw(short, prior.centroid_weight), short_labels)
        return prior

    def calibration(self) -> dict:
        """What ``fit`` chose: the centroid weight and the two temperatures (``with_calibration`` restores them)."""
        return {
            "centroid_weight": self.centroid_weight,
            "temperature": self.temperature,
            "short_temperature": self.short_temperature,
        }

    def with_calibration(self, calibration: dict) -> MiniLMPrior:
        """This prior with a saved ``calibration`` (``calibration()`` of a fitted one); returns self."""
        self.centroid_weight = float(calibration["centroid_weight"])
        self.temperature = float(calibration["temperature"])
        short = calibration.get("short_temperature")
        self.short_temperature = None if short is None else float(short)
        return self

    def _raw(self, emb: np.ndarray, weight: float) -> np.ndarray:
        out = emb @ self.doc_vectors.T
        if self.centroids is not None and weight:
            out = out + weight * (emb @ self.centroids.T)
        return out

    def scores_from_embeddings(self, emb: np.ndarray, texts: Sequence[str] | None = None) -> np.ndarray:
        """[N, Y] float32 logits of embedded queries; with ``texts``, short ones get the short temperature."""
        temperature = (
            self.temperature if texts is None else query_temperatures(texts, self.temperature, self.short_temperature)
        )
        return (self._raw(emb, self.centroid_weight) / temperature).astype(np.float32)

    def scores(self, texts: Sequence[str]) -> np.ndarray:
        """[N, Y] float32 logits."""
        texts = check_texts(texts)
        return self.scores_from_embeddings(self.query_embeddings(texts), texts)

    def query_embeddings(self, texts: list[str]) -> np.ndarray:
        """[N, D] embeddings of queries, each distinct text encoded once per prior (kept in memory, at most
        ``QUERY_CACHE_SIZE``): policy training, the coverage rule and the out-of-scope tuning score the same
        thousands of vague dev queries again and again, many of them repeated (on two loaded cores, encoding
        them anew took two minutes per policy)."""
        cache = self._query_cache
        missing = list(dict.fromkeys(t for t in texts if t not in cache))
        if missing:
            # the numpy pass encodes one text at a time: right for a person's query, slow for the thousands of
            # dev queries a calibration or a policy scores; those go through torch's batches
            if self.query_encoder is None or len(missing) > NUMPY_BATCH_LIMIT:
                from models.pretrained import SentenceEncoder

                vectors = SentenceEncoder().encode(missing)
            else:
                vectors = self.query_encoder(missing)
            for text, vector in zip(missing, vectors):
                cache[text] = vector
            while len(cache) > QUERY_CACHE_SIZE:
                cache.pop(next(iter(cache)))
        return np.stack([cache[t] for t in texts]) if texts else np.zeros((0, self.doc_vectors.shape[1]), np.float32)

    def tag_scores(self) -> np.ndarray:
        """[Q, R, Y] float32 cos("tag # answer", label document), 0 on padded options."""
        if self._tags is None:
            texts, slots = tag_answer_texts(self.domain)
            embeddings = self._embeddings or domain_sentence_embeddings(self.domain.name)
            emb = embeddings.encode(texts)
            self._tags = scatter_tag_scores(self.domain, slots, emb @ self.doc_vectors.T)
        return self._tags
