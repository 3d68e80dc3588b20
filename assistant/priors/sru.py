"""The trained SRU encoder prior (IC 4.3); pooled MiniLM and BM25 are its siblings (``priors.minilm``,
``priors.bm25``).

All three score a query against *label documents* (``assistant.text.label_text``: name, description where fair,
characteristic tags from the agent's p_hat) and, where every label has training queries (FAQ, banking),
also against the centroid of the label's training queries. Each implements ``assistant.priors.base.Prior``
(``scores(texts)`` [N, Y] logits over all labels); the SRU and MiniLM priors also implement ``TagScorer``
(``tag_scores()`` [Q, R, Y] = S(tag#r, y), 0 on padded options).

How to get a prior for a domain::

    domain = KnowledgeBase.open("birds").load_domain()
    agent = simulation_protocol(domain).agent_domain
    prior = load_encoder_prior(domain, agent)     # ModelMissingError (how to fix) if absent or stale
    prior = run_job(load_or_train_encoder(domain))  # assistant.training.policy.encoder: trains and saves when needed
    minilm = MiniLMPrior.fit(agent)               # no training; embeddings cached under the models dir
    bm25 = BM25Prior.fit(agent)

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

import contextlib
import hashlib
import io
import math
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from assistant import paths
from assistant.errors import ModelMissingError, from_model_errors
from assistant.priors.base import check_texts, scatter_tag_scores
from assistant.priors.blend import PARTS as BLEND_PARTS
from assistant.priors.blend import PriorBlend, minilm_arrays, minilm_from_arrays
from assistant.priors.calibration import query_temperatures
from assistant.priors.sru_numpy import NumpySRUEncoder, load_or_store_vectors, numpy_route_possible, serving_key
from assistant.store import Domain
from assistant.text.label_text import LabelTextConfig, label_segments, tag_answer_texts
from models.checkpoint import data_hash, load_checkpoint, load_checkpoint_arrays, read_sidecar
from models.numpy_forward import minilm_sentence_vectors
from models.sru_config import SRUEncoderConfig

if TYPE_CHECKING:  # torch and sru only where the encoder is trained or runs as a torch module (issue 33)
    import torch

    from models.sru_encoder import SRUTextEncoder

ENCODER_CHECKPOINT = "encoder"


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
        import torch

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


def _embed_numpy(bank: LabelBank, encoder: NumpySRUEncoder) -> np.ndarray:
    """``LabelBank.embed`` of every label through the numpy encoder: the mean of each label's raw segment
    vectors, finished."""
    raw = encoder.encode_ids(bank.segment_ids, raw=True)
    weights = np.zeros((len(bank.members), len(bank.segments)), dtype=np.float32)
    for y, members in enumerate(bank.members):
        weights[y, members] = 1.0
    weights /= np.maximum(weights.sum(axis=1, keepdims=True), 1.0)
    return encoder.finish(weights @ raw)


class EncoderPrior:
    """The trained SRU prior: scores(texts) = enc(x) . (label vector + w * query centroid) / T, where T is
    ``short_temperature`` for queries of at most ``SHORT_QUERY_WORDS`` words (if set) and ``temperature``
    otherwise.

    ``domain`` is the agent's view the encoder was trained on; ``similarity`` gives S(x, y) itself (no
    temperature, no centroid), which is also what ``tag_scores`` returns for "tag # answer" texts.
    """

    name = "encoder"
    stale = False  # trained on other data than the domain holds now (still usable)

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
        blend: PriorBlend | None = None,
    ) -> None:
        self.domain = domain
        self.blend = blend  # retrieval blended in (assistant.priors.blend); None: the encoder alone
        self.encoder = encoder
        self.bank = bank
        self.config = config
        self.temperature = float(temperature)
        self.short_temperature = None if short_temperature is None else float(short_temperature)
        self.centroid_weight = float(centroid_weight)
        self._cache = {} if _cache is None else _cache

    # -- derived vectors (cached, shared between with_* copies) --
    def _inference(self) -> contextlib.AbstractContextManager:
        """``torch.no_grad()`` for a torch encoder; nothing for the numpy one (which must not import torch)."""
        if isinstance(self.encoder, NumpySRUEncoder):
            return contextlib.nullcontext()
        import torch

        return torch.no_grad()

    def label_vectors(self) -> np.ndarray:
        """[Y, D] float32 label vectors."""
        if "labels" not in self._cache:
            self.encoder.eval()
            if isinstance(self.encoder, NumpySRUEncoder):
                vectors = _embed_numpy(self.bank, self.encoder)
            else:
                with self._inference():
                    vectors = self.bank.embed(self.encoder).numpy()
            self._cache["labels"] = vectors.astype(np.float32)
        return self._cache["labels"]

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
        with self._inference():
            return np.asarray(_as_numpy(self.encoder.encode_ids(ids)), dtype=np.float32)

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
        """[N, Y] float32 logits: p(y | x) = softmax_y(scores); with a ``blend``, the encoder's blended with
        pooled MiniLM's and BM25's as tuned on dev."""
        texts = check_texts(texts)
        raw = self.raw_scores_from_ids(self.encoder.vectors.token_ids(texts, self.encoder.config.max_len))
        scores = (raw / query_temperatures(texts, self.temperature, self.short_temperature)).astype(np.float32)
        return scores if self.blend is None else self.blend.combine(scores, texts)

    def similarity(self, texts: Sequence[str]) -> np.ndarray:
        """[N, Y] S(x, y) = enc(x) . enc(y), without temperature or centroid."""
        ids = self.encoder.vectors.token_ids(check_texts(texts), self.encoder.config.max_len)
        return self._encode_ids(ids) @ self.label_vectors().T

    # -- TagScorer --
    def tag_scores(self) -> np.ndarray:
        """[Q, R, Y] float32 S(tag#r, y), 0 on padded options."""
        if "tags" not in self._cache:
            texts, slots = tag_answer_texts(self.domain)
            values = self.similarity(texts) if texts else np.zeros((0, self.domain.num_labels), np.float32)
            self._cache["tags"] = scatter_tag_scores(self.domain, slots, values)
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
            self.blend,
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
            self.blend,
        )

    def with_blend(self, blend: PriorBlend | None) -> EncoderPrior:
        """This prior blended with ``blend`` (None: the encoder alone); a stale encoder stays stale."""
        blended = EncoderPrior(
            self.domain,
            self.encoder,
            self.bank,
            self.config,
            self.temperature,
            self.centroid_weight,
            self._cache,
            self.short_temperature,
            blend,
        )
        blended.stale = self.stale
        return blended


def _as_numpy(vectors) -> np.ndarray:
    return vectors if isinstance(vectors, np.ndarray) else vectors.numpy()


def load_encoder_prior(
    domain: Domain, agent: Domain, allow_stale: bool = False, numpy_forward: bool = False
) -> EncoderPrior:
    """The trained SRU prior of ``domain`` from its checkpoint; ``agent`` is the agent's view of ``domain``
    it was trained on (``assistant.simulation.protocol``).

    Raises ModelMissingError (saying how to fix it) when there is none, it is unreadable, or (unless
    ``allow_stale``) it was trained on other data than ``domain`` now holds. A stale encoder still works on
    the new data (new labels and tags get vectors from their texts); its ``stale`` attribute says so.
    ``numpy_forward``: for inference only, the encoder and pooled MiniLM's queries run in numpy
    (``assistant.priors.sru_numpy``): no sru op to build, no transformers model to load.
    """
    path = encoder_checkpoint_path(domain.name)
    sidecar = read_sidecar(path)
    if sidecar is None or "train" not in sidecar.get("config", {}):
        raise ModelMissingError(
            f"no trained encoder for domain {domain.name!r} at {path}.pt: run `clarify train encoder {domain.name}` "
            f"(or `clarify prepare {domain.name}`)"
        )
    saved = sidecar["config"]
    fix = f"domain {domain.name!r}: `clarify train encoder {domain.name}`"
    try:
        trained = dict(saved["train"])
        model_config = SRUEncoderConfig(**trained.get("model", {}))
        text_config = LabelTextConfig(**trained.get("text", {}))
        numpy_route = numpy_forward and numpy_route_possible(model_config)
        with from_model_errors(fix):
            expected = encoder_data_hash(domain, trained.get("protocol_seed", 0))
            load = load_checkpoint_arrays if numpy_route else load_checkpoint  # arrays: without torch
            state, _ = load(path, expected_data=None if allow_stale else expected)
        if numpy_route:
            encoder: SRUTextEncoder | NumpySRUEncoder = NumpySRUEncoder(model_config, state)
            vectors = encoder.vectors
        else:
            from models.sru_encoder import SRUTextEncoder, word_vectors

            with from_model_errors(fix):
                vectors = word_vectors(model_config.vectors)
            encoder = SRUTextEncoder(model_config, vectors)
            encoder.load_state_dict(state)
    except (KeyError, TypeError, ValueError, RuntimeError) as exc:  # a sidecar or .pt of something else
        raise ModelMissingError(
            f"{path}.pt does not fit this version's encoder ({type(exc).__name__}: {str(exc)[:120]}); retrain: "
            f"`clarify train encoder {domain.name}`"
        ) from exc
    encoder.eval()
    bank = LabelBank.build(agent, agent.p_hat(), text_config, vectors, model_config.max_len)
    try:
        temperature, centroid_weight = float(saved.get("temperature", 1.0)), float(saved.get("centroid_weight", 0.0))
        short = saved.get("short_temperature")  # None in checkpoints from before it existed
        short = None if short is None else float(short)
        temperatures = (temperature,) if short is None else (temperature, short)
        if not all(math.isfinite(t) and t > 0 for t in temperatures) or not math.isfinite(centroid_weight):
            raise ValueError(f"temperatures {temperatures}, centroid weight {centroid_weight:g}")
    except (TypeError, ValueError) as exc:
        raise ModelMissingError(
            f"{path}.json is damaged ({exc}); retrain: `clarify train encoder {domain.name}`"
        ) from exc
    prior = EncoderPrior(agent, encoder, bank, trained, temperature, centroid_weight, short_temperature=short)
    prior.stale = sidecar.get("data_hash") != expected
    side = _read_side(domain.name, saved.get("side_sha256"))
    if not prior.stale and side.get("centroids") is not None and side["centroids"].shape[0] == agent.num_labels:
        prior._cache["centroids"] = side["centroids"]  # saves encoding every training query on each start
    blend = _load_blend(saved.get("blend"), path, agent, side)
    if isinstance(encoder, NumpySRUEncoder):
        if blend is not None and blend.minilm is not None:
            blend.minilm.query_encoder = minilm_sentence_vectors
        if not prior.stale:  # label vectors and tag scores stored once, read on every later start
            key = serving_key(path.with_suffix(".pt"), expected)
            stored = load_or_store_vectors(
                path.parent, key, lambda: {"labels": prior.label_vectors(), "tags": prior.tag_scores()}
            )
            prior._cache.update(stored)
    return prior.with_blend(blend)


def _load_blend(weights: object, path: Path, agent: Domain, side: dict) -> PriorBlend | None:
    """The retrieval blend recorded with the encoder (None for encoders trained without one)."""
    if not isinstance(weights, dict):
        return None
    try:
        weights = {k: float(weights.get(k, 0.0)) for k in BLEND_PARTS}
    except (TypeError, ValueError) as exc:
        raise ModelMissingError(
            f"{path}.json is damaged ({exc}); retrain: `clarify train encoder {agent.name}`"
        ) from exc
    minilm = bm25 = None
    if weights["minilm"]:
        if "minilm_doc_vectors" not in side:
            raise ModelMissingError(
                f"{side_path(agent.name)} is missing or does not belong to {path}.pt; retrain: "
                f"`clarify train encoder {agent.name}` (or `clarify prepare {agent.name}`)"
            )
        minilm = minilm_from_arrays(side, agent)
        if minilm is None:  # a stale encoder's, of other labels: it serves without this part
            weights["minilm"] = 0.0
    if weights["bm25"]:
        from assistant.priors.bm25 import BM25Prior

        bm25 = BM25Prior.fit(agent)
    return PriorBlend(weights, minilm, bm25)


def side_path(domain_name: str) -> Path:
    """models/<domain>/encoder-side.npz: what the encoder's prior would otherwise compute on every start (the
    centroids of the training queries) and pooled MiniLM's label side of its blend."""
    return paths.models_dir(domain_name) / f"{ENCODER_CHECKPOINT}-side.npz"


def save_side(domain_name: str, prior: EncoderPrior) -> str:
    """Write ``side_path`` for a freshly trained ``prior`` (atomically, before its checkpoint); returns its
    SHA-256, which the checkpoint's sidecar records so that a side file of another training is never used."""
    from models.checkpoint import write_npz_atomic

    arrays: dict[str, np.ndarray] = {}
    if prior.centroid_weight:
        arrays["centroids"] = prior.centroids().astype(np.float32)
    if prior.blend is not None and prior.blend.minilm is not None and prior.blend.weights.get("minilm"):
        arrays.update(minilm_arrays(prior.blend.minilm))
    path = side_path(domain_name)
    write_npz_atomic(path, **arrays)
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _read_side(domain_name: str, expected_sha256: object) -> dict[str, np.ndarray]:
    """The arrays of ``side_path`` ({} when missing, damaged or not the file the encoder was saved with)."""
    path = side_path(domain_name)
    try:
        raw = path.read_bytes()
        if hashlib.sha256(raw).hexdigest() != expected_sha256:
            return {}
        with np.load(io.BytesIO(raw), allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return {}
