"""Priors p(y | x0) from text: the trained SRU encoder (IC 4.3), pooled MiniLM, and BM25.

All three score a query against *label documents* (``assistant.label_text``: name, description where fair,
characteristic tags from the agent's p_hat) and, where every label has training queries (FAQ, banking),
also against the centroid of the label's training queries. Each implements ``assistant.prior.Prior``
(``scores(texts)`` [N, Y] logits over all labels); the SRU and MiniLM priors also implement ``TagScorer``
(``tag_scores()`` [Q, R, Y] = S(tag#r, y), 0 on padded options).

How to get a prior for a domain::

    domain = KnowledgeBase.open("birds").load_domain()
    prior = load_encoder_prior(domain)            # ModelMissingError (how to fix) if absent or stale
    prior = run_job(load_or_train_encoder(domain))  # trains and saves when needed (`clarify prepare`)
    minilm = MiniLMPrior.fit(domain)              # no training; embeddings cached under the models dir
    bm25 = BM25Prior.fit(domain)

Checkpoints: ``paths.models_dir(domain)/encoder.pt`` + ``encoder.json`` (config, seed, temperature,
centroid weight, dev metrics, data hash). The data hash covers the stored domain and the simulation
protocol seed, so a rebuilt or edited domain makes the checkpoint stale.

Known limit (birds, measured with ``python -m benchmarks.bench_prior --domains birds --zero-shot``): the
trained encoder does not transfer to species without captions. Trained without the captions of 10 of the
50 captioned species, it ranked those species' test captions at Acc@1 0.000 / Acc@3 0.000 over all 200
species, and at chance level even among the 160 species without captions; the top label is a captioned
species for 99.9% of queries. Over all 200 candidates the prior is therefore as accurate as over the 50
captioned ones, because every evaluation target is captioned; the 150 others gain mass only from answers.

Why centroids only where *every* label has training queries: in the birds "all 200 candidates" setting
only the 50 captioned species have captions; a centroid term for them alone would favour exactly the
species the evaluation draws its targets from, an artefact of the protocol rather than skill.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from assistant import paths
from assistant.domain import Domain
from assistant.errors import ConfigError, EmptyQueryError, ModelMissingError
from assistant.label_text import LabelTextConfig, label_documents, label_segments, tag_answer_texts
from assistant.progress import Progress
from models.checkpoint import data_hash, load_checkpoint, read_sidecar

ENCODER_CHECKPOINT = "encoder"


# ---- shared helpers ----------------------------------------------------------------------------------------


def agent_view(domain: Domain, protocol_seed: int = 0) -> Domain:
    """The part of ``domain`` the agent may learn from (birds: p_hat re-sampled from training images)."""
    from assistant.simulator import simulation_protocol

    return simulation_protocol(domain, protocol_seed).agent_domain


def centroid_applicable(domain: Domain) -> bool:
    """Whether every label has training queries (then a query-centroid term is fair for every label)."""
    return len(domain.labels_with_queries("train")) == domain.num_labels


def encoder_checkpoint_path(domain_name: str) -> Path:
    """models/<domain>/encoder (without suffix: the checkpoint adds .pt and .json)."""
    return paths.models_dir(domain_name) / ENCODER_CHECKPOINT


def encoder_data_hash(domain: Domain, protocol_seed: int = 0) -> str:
    """Hash of everything the encoder is trained from (the stored domain and the protocol seed)."""
    return data_hash(
        [
            "encoder-data-v1",
            domain.name,
            protocol_seed,
            [(lab.key, lab.name, lab.text, lab.answers) for lab in domain.labels],
            [(q.tag, q.kind, q.options) for q in domain.questions],
            domain.counts,
            tuple(domain.query_texts),
            domain.query_labels,
            domain.query_splits,
        ]
    )


def ranking_metrics(
    scores: np.ndarray, labels: np.ndarray, candidates: np.ndarray | None = None, ks: Sequence[int] = (1, 3)
) -> dict[str, float]:
    """Acc@k and mean NLL of ``scores`` [N, Y] for true ``labels`` [N], among ``candidates`` (None = all).

    A label tied with the true one counts as ranked above it (ties never flatter a prior: BM25 gives 0 to
    every label of a query without known words).
    """
    scores = np.asarray(scores, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.int64)
    if candidates is not None:
        candidates = np.asarray(candidates, dtype=np.int64)
        position = -np.ones(scores.shape[1], dtype=np.int64)
        position[candidates] = np.arange(len(candidates))
        keep = position[labels] >= 0
        scores, labels = scores[keep][:, candidates], position[labels[keep]]
    if len(labels) == 0:
        return {**{f"acc{k}": float("nan") for k in ks}, "nll": float("nan"), "n": 0.0}
    true = scores[np.arange(len(labels)), labels][:, None]
    rank = (scores > true).sum(axis=1) + (scores == true).sum(axis=1) - 1
    shifted = scores - scores.max(axis=1, keepdims=True)
    log_z = np.log(np.exp(shifted).sum(axis=1))
    nll = float(np.mean(log_z - shifted[np.arange(len(labels)), labels]))
    return {**{f"acc{k}": float(np.mean(rank < k)) for k in ks}, "nll": nll, "n": float(len(labels))}


def tune_temperature(scores: np.ndarray, labels: np.ndarray) -> float:
    """The T minimising dev NLL of softmax(scores / T) (a grid over 0.01..100; 1.0 without dev data)."""
    if len(labels) == 0:
        return 1.0
    grid = np.geomspace(0.01, 100.0, 161)
    nll = [ranking_metrics(scores / t, labels, ks=())["nll"] for t in grid]
    return float(grid[int(np.argmin(nll))])


# Queries of at most this many words get their own softmax temperature (see ``short_query_windows``).
SHORT_QUERY_WORDS = 3


def short_query_windows(texts: Sequence[str], labels: np.ndarray, seed: int = 0) -> tuple[list[str], np.ndarray]:
    """A window of 1 to ``SHORT_QUERY_WORDS`` consecutive words of each longer query, with its label.

    People type "cannot log in" or "red crest", shorter than the crowd's dev queries, and one temperature
    tuned on the dev queries is far too sharp for them (pooled MiniLM on FAQ: T at the grid's floor, 0.01,
    so that "gmail" gave one FAQ 100%). Short queries get a temperature tuned on these windows instead;
    longer ones keep the dev-tuned one, so that neither kind is miscalibrated for the other.
    """
    rng = np.random.default_rng(seed)
    out_texts, out_labels = [], []
    for text, label in zip(texts, labels):
        words = text.split()
        if len(words) > 1:
            size = int(rng.integers(1, min(SHORT_QUERY_WORDS, len(words) - 1) + 1))
            start = int(rng.integers(0, len(words) - size + 1))
            out_texts.append(" ".join(words[start : start + size]))
            out_labels.append(label)
    return out_texts, np.asarray(out_labels, dtype=np.int64)


def query_temperatures(texts: Sequence[str], temperature: float, short_temperature: float | None) -> np.ndarray:
    """[N, 1] the temperature of each query: ``short_temperature`` for queries of at most
    ``SHORT_QUERY_WORDS`` words (when set), ``temperature`` otherwise."""
    out = np.full((len(texts), 1), temperature, dtype=np.float64)
    if short_temperature is not None:
        short = np.array([len(t.split()) <= SHORT_QUERY_WORDS for t in texts], dtype=bool)
        out[short] = short_temperature
    return out


def _check_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise ConfigError("scores() takes a list of texts, not one string")
    texts = [str(t) for t in texts]
    if any(not t.strip() for t in texts):
        raise EmptyQueryError("a query is empty: type a few words describing what you are looking for")
    return texts


def _scatter_tag_scores(domain: Domain, slots: np.ndarray, values: np.ndarray) -> np.ndarray:
    """[K, Y] scores of (q, r) slots -> [Q, R, Y] float32, 0 on padded options."""
    out = np.zeros((domain.num_questions, domain.max_options, domain.num_labels), dtype=np.float32)
    if len(slots):
        out[slots[:, 0], slots[:, 1]] = values
    return out


# ---- SRU encoder prior -------------------------------------------------------------------------------------


@dataclass
class LabelBank:
    """The label side of S(x, y): each label's short texts (name, tags, ...), tokenised once.

    A label's vector is the encoder's raw vectors of its segments, averaged, then normalised like any
    text: short segments keep the CPU recurrence cheap (a 120-token document costs ~10x a 6-token phrase
    per step) and segments shared by many labels ("wing color black") are encoded once per step.
    """

    segments: list[str]
    segment_ids: list[list[int]]
    members: list[np.ndarray]  # per label: indices into ``segments``

    @classmethod
    def build(cls, agent: Domain, p_hat: np.ndarray, config: LabelTextConfig, vectors, max_len: int) -> LabelBank:
        per_label = label_segments(agent, p_hat, config)
        index: dict[str, int] = {}
        members = []
        for segs in per_label:
            members.append(np.array([index.setdefault(s, len(index)) for s in segs], dtype=np.int64))
        segments = list(index)
        return cls(segments, vectors.token_ids(segments, max_len), members)

    def embed(self, encoder, labels: np.ndarray | None = None) -> torch.Tensor:
        """[L, D] label vectors of ``labels`` (None = all), differentiable when gradients are on."""
        labels = np.arange(len(self.members)) if labels is None else np.asarray(labels)
        used = np.unique(np.concatenate([self.members[y] for y in labels]))
        local = -np.ones(len(self.segments), dtype=np.int64)
        local[used] = np.arange(len(used))
        raw = encoder.encode_ids([self.segment_ids[s] for s in used], raw=True) if not torch.is_grad_enabled() else None
        if raw is None:
            raw = encoder.raw_split([self.segment_ids[s] for s in used])
        rows = np.concatenate([np.full(len(self.members[y]), i) for i, y in enumerate(labels)])
        cols = np.concatenate([local[self.members[y]] for y in labels])
        weights = torch.zeros(len(labels), len(used))
        weights[torch.as_tensor(rows), torch.as_tensor(cols)] = 1.0
        weights = weights / weights.sum(dim=1, keepdim=True).clamp(min=1.0)
        return encoder.finish(weights @ raw)


class EncoderPrior:
    """The trained SRU prior: scores(texts) = enc(x) . (label vector + w * query centroid) / T, where T is
    ``short_temperature`` for queries of at most ``SHORT_QUERY_WORDS`` words (if set) and ``temperature``
    otherwise.

    ``domain`` is the agent's view the encoder was trained on; ``similarity`` gives S(x, y) itself (no
    temperature, no centroid), which is also what ``tag_scores`` returns for "tag # answer" texts.
    """

    name = "encoder"

    def __init__(
        self,
        domain: Domain,
        encoder,
        bank: LabelBank,
        config,
        temperature: float = 1.0,
        centroid_weight: float = 0.0,
        _cache: dict | None = None,
        short_temperature: float | None = None,
    ) -> None:
        self.domain = domain
        self.encoder = encoder
        self.bank = bank
        self.config = config
        self.temperature = float(temperature)
        self.short_temperature = None if short_temperature is None else float(short_temperature)
        self.centroid_weight = float(centroid_weight)
        self._cache = {} if _cache is None else _cache

    # -- derived vectors (cached, shared between with_* copies) --
    @torch.no_grad()
    def label_vectors(self) -> np.ndarray:
        """[Y, D] float32 label vectors."""
        if "labels" not in self._cache:
            self.encoder.eval()
            self._cache["labels"] = self.bank.embed(self.encoder).numpy().astype(np.float32)
        return self._cache["labels"]

    @torch.no_grad()
    def centroids(self) -> np.ndarray:
        """[Y, D] mean encoder vector of each label's training queries (0 for labels without any)."""
        if "centroids" not in self._cache:
            texts, labels = self.domain.queries("train")
            emb = self._encode_ids(self.encoder.vectors.token_ids(texts, self.encoder.config.max_len))
            sums = np.zeros((self.domain.num_labels, emb.shape[1]), dtype=np.float64)
            np.add.at(sums, labels, emb)
            counts = np.bincount(labels, minlength=self.domain.num_labels)[:, None]
            self._cache["centroids"] = (sums / np.maximum(counts, 1)).astype(np.float32)
        return self._cache["centroids"]

    def _encode_ids(self, ids: list[list[int]]) -> np.ndarray:
        self.encoder.eval()
        with torch.no_grad():
            return self.encoder.encode_ids(ids).numpy().astype(np.float32)

    def _label_side(self) -> np.ndarray:
        if self.centroid_weight == 0.0:
            return self.label_vectors()
        return self.label_vectors() + self.centroid_weight * self.centroids()

    # -- Prior --
    def raw_scores_from_ids(self, ids: list[list[int]]) -> np.ndarray:
        """[N, Y] float32 scores for pre-tokenised queries, before the temperature."""
        return self._encode_ids(ids) @ self._label_side().T

    def scores_from_ids(self, ids: list[list[int]]) -> np.ndarray:
        """[N, Y] float32 logits for pre-tokenised queries, all at ``temperature``."""
        return (self.raw_scores_from_ids(ids) / self.temperature).astype(np.float32)

    def scores(self, texts: Sequence[str]) -> np.ndarray:
        """[N, Y] float32 logits: p(y | x) = softmax_y(scores)."""
        texts = _check_texts(texts)
        raw = self.raw_scores_from_ids(self.encoder.vectors.token_ids(texts, self.encoder.config.max_len))
        return (raw / query_temperatures(texts, self.temperature, self.short_temperature)).astype(np.float32)

    def similarity(self, texts: Sequence[str]) -> np.ndarray:
        """[N, Y] S(x, y) = enc(x) . enc(y), without temperature or centroid."""
        ids = self.encoder.vectors.token_ids(_check_texts(texts), self.encoder.config.max_len)
        return self._encode_ids(ids) @ self.label_vectors().T

    # -- TagScorer --
    def tag_scores(self) -> np.ndarray:
        """[Q, R, Y] float32 S(tag#r, y), 0 on padded options."""
        if "tags" not in self._cache:
            texts, slots = tag_answer_texts(self.domain)
            values = self.similarity(texts) if texts else np.zeros((0, self.domain.num_labels), np.float32)
            self._cache["tags"] = _scatter_tag_scores(self.domain, slots, values)
        return self._cache["tags"]

    # -- variants --
    def with_temperature(self, temperature: float, short_temperature: float | None = None) -> EncoderPrior:
        return EncoderPrior(
            self.domain,
            self.encoder,
            self.bank,
            self.config,
            temperature,
            self.centroid_weight,
            self._cache,
            short_temperature,
        )

    def with_centroids(self, weight: float) -> EncoderPrior:
        return EncoderPrior(
            self.domain,
            self.encoder,
            self.bank,
            self.config,
            self.temperature,
            weight,
            self._cache,
            self.short_temperature,
        )


def load_encoder_prior(domain: Domain) -> EncoderPrior:
    """The trained SRU prior of ``domain`` from its checkpoint.

    Raises ModelMissingError (saying how to fix it) when there is none, it is unreadable, or it was trained
    on other data than ``domain`` now holds.
    """
    from assistant.encoder_training import EncoderTrainConfig
    from models.sru_encoder import SRUTextEncoder, word_vectors

    path = encoder_checkpoint_path(domain.name)
    sidecar = read_sidecar(path)
    if sidecar is None or "train" not in sidecar.get("config", {}):
        raise ModelMissingError(
            f"no trained encoder for domain {domain.name!r} at {path}.pt: run `clarify train encoder {domain.name}` "
            f"(or `clarify prepare {domain.name}`)"
        )
    saved = sidecar["config"]
    config = EncoderTrainConfig.from_dict(saved["train"])
    try:
        state, _ = load_checkpoint(path, expected_data=encoder_data_hash(domain, config.protocol_seed))
    except ModelMissingError as exc:
        raise ModelMissingError(f"{exc} (domain {domain.name!r}: `clarify train encoder {domain.name}`)") from exc
    vectors = word_vectors(config.model.vectors)
    encoder = SRUTextEncoder(config.model, vectors)
    try:
        encoder.load_state_dict(state)
    except RuntimeError as exc:
        raise ModelMissingError(
            f"{path}.pt does not fit this version's encoder ({exc}); retrain: `clarify train encoder {domain.name}`"
        ) from exc
    encoder.eval()
    agent = agent_view(domain, config.protocol_seed)
    bank = LabelBank.build(agent, agent.p_hat(), config.text, vectors, config.model.max_len)
    return EncoderPrior(
        agent,
        encoder,
        bank,
        config,
        saved.get("temperature", 1.0),
        saved.get("centroid_weight", 0.0),
        short_temperature=saved.get("short_temperature"),  # None in checkpoints from before it existed
    )


def load_or_train_encoder(domain: Domain, config=None, seed: int = 0) -> Generator[Progress, None, EncoderPrior]:
    """The domain's encoder prior: loaded if a current checkpoint exists, else trained (and saved)."""
    try:
        prior = load_encoder_prior(domain)
        yield Progress(1, 1, f"encoder for {domain.name!r} is up to date")
        return prior
    except ModelMissingError:
        pass
    from assistant.encoder_training import train_encoder

    result = yield from train_encoder(domain, config, seed=seed, save=True)
    return result.prior


# ---- MiniLM sentence-encoder prior ------------------------------------------------------------------------


def domain_sentence_embeddings(domain_name: str):
    """MiniLM embeddings of the domain's fixed texts (label documents, tags, queries), cached on disk in the
    domain's model folder (``models.pretrained.CachingSentenceEncoder``)."""
    from models.pretrained import CachingSentenceEncoder

    return CachingSentenceEncoder(paths.models_dir(domain_name) / "minilm-prior-embeddings.npz")


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
        self._embeddings = None

    @classmethod
    def fit(
        cls,
        domain: Domain,
        protocol_seed: int = 0,
        text: LabelTextConfig | None = None,
        centroid: str = "auto",
    ) -> MiniLMPrior:
        agent = agent_view(domain, protocol_seed)
        docs = label_documents(agent, agent.p_hat(), text)
        embeddings = domain_sentence_embeddings(domain.name)
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
        dev_texts, dev_labels = agent.queries("dev")
        if len(dev_texts):
            dev = embeddings.encode(dev_texts)
            if centroids is not None:
                best = -1.0
                for w in (0.0, 0.5, 1.0, 2.0, 4.0, 8.0):
                    m = ranking_metrics(prior._raw(dev, w), dev_labels)
                    if m["acc1"] + 0.5 * m["acc3"] > best + 1e-9:
                        best, prior.centroid_weight = m["acc1"] + 0.5 * m["acc3"], w
            prior.temperature = tune_temperature(prior._raw(dev, prior.centroid_weight), dev_labels)
            short_texts, short_labels = short_query_windows(dev_texts, dev_labels, protocol_seed)
            if short_texts:
                short = embeddings.encode(short_texts)
                prior.short_temperature = tune_temperature(prior._raw(short, prior.centroid_weight), short_labels)
        return prior

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
        from models.pretrained import SentenceEncoder

        texts = _check_texts(texts)
        return self.scores_from_embeddings(SentenceEncoder().encode(texts), texts)

    def tag_scores(self) -> np.ndarray:
        """[Q, R, Y] float32 cos("tag # answer", label document), 0 on padded options."""
        if self._tags is None:
            texts, slots = tag_answer_texts(self.domain)
            embeddings = self._embeddings or domain_sentence_embeddings(self.domain.name)
            emb = embeddings.encode(texts)
            self._tags = _scatter_tag_scores(self.domain, slots, emb @ self.doc_vectors.T)
        return self._tags


# ---- BM25 prior -------------------------------------------------------------------------------------------------


class BM25Prior:
    """The "no interaction (BM25)" baseline (bm25s): label documents [+ the label's training queries] as the
    corpus, BM25 scores / T as logits (T tuned on dev NLL)."""

    name = "bm25"

    def __init__(self, retriever, num_labels: int, temperature: float = 1.0) -> None:
        self.retriever = retriever
        self.num_labels = num_labels
        self.temperature = temperature

    @classmethod
    def fit(
        cls, domain: Domain, protocol_seed: int = 0, text: LabelTextConfig | None = None, centroid: str = "auto"
    ) -> BM25Prior:
        import bm25s

        agent = agent_view(domain, protocol_seed)
        docs = label_documents(agent, agent.p_hat(), text)
        if centroid == "on" or (centroid == "auto" and centroid_applicable(agent)):
            extra: list[list[str]] = [[] for _ in docs]
            for t, y in zip(*agent.queries("train")):
                extra[y].append(t)
            docs = [" ".join([d, *e]) for d, e in zip(docs, extra)]
        retriever = bm25s.BM25()
        retriever.index(bm25s.tokenize(docs, show_progress=False), show_progress=False)
        prior = cls(retriever, agent.num_labels)
        dev_texts, dev_labels = agent.queries("dev")
        if len(dev_texts):
            prior.temperature = tune_temperature(prior.scores(dev_texts), dev_labels)
        return prior

    def scores(self, texts: Sequence[str]) -> np.ndarray:
        """[N, Y] float32 logits (0 for every label when no query word is in the corpus)."""
        import bm25s

        texts = _check_texts(texts)
        tokens = bm25s.tokenize(texts, return_ids=False, show_progress=False)
        out = np.zeros((len(texts), self.num_labels), dtype=np.float32)
        for i, words in enumerate(tokens):
            if words:
                out[i] = self.retriever.get_scores(words)
        return out / self.temperature
