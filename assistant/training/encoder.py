"""Training the SRU encoder prior (IC 4.3): softmax cross-entropy over labels on three kinds of pairs.

- (query, label): the training queries of the domain;
- (tag # answer, label): the text of a question's tag and one answer option, with the label sampled from
  the agent's p_hat (p(y | q, r) proportional to p_hat(r | q, y)), so S(tag#r, y) learns the answer model;
- pseudo-queries: a training query with a few of its label's characteristic tags appended, and "tag-only"
  pseudo-queries (a few tags of any label, also of labels without training queries), which tie the label
  documents of *every* label to the query space (birds: 150 of the 200 species have no captions).

Each step scores the batch against the label documents of all labels (or, above ``negatives`` labels,
against the batch's labels plus uniformly sampled negatives). Early stopping on the dev split; the best
weights are kept, the prior's temperature (and, where every label has training queries, the weight of the
label's query centroid) are tuned on dev afterwards; both temperatures are tuned on the vague first-query mix of the dev queries
(``assistant.simulation.queries``: short ones for the short temperature, the rest for the other). Everything the encoder sees comes from the agent's view
of the domain (``simulation_protocol(domain, protocol_seed).agent_domain``).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Generator
from dataclasses import asdict, dataclass, field, replace

import numpy as np
import torch

from assistant.errors import ConfigError, ModelMissingError
from assistant.priors.base import centroid_applicable
from assistant.priors.calibration import ranking_metrics
from assistant.priors.sru import (
    EncoderPrior,
    LabelBank,
    encoder_checkpoint_path,
    encoder_data_hash,
    load_encoder_prior,
    save_side,
)
from assistant.progress import Progress
from assistant.simulation.protocol import agent_view
from assistant.simulation.queries import training_queries
from assistant.store import Domain
from assistant.text.label_text import LabelTextConfig
from assistant.training.encoder_batches import PairSampler, label_subset
from assistant.training.encoder_tuning import calibrated_prior, fit_blend
from assistant.training.resume import clear_resume, load_resume, resume_path, save_resume
from models.checkpoint import data_hash, save_checkpoint
from models.determinism import reproducible
from models.sru_encoder import SRUEncoderConfig, SRUTextEncoder, resolve_vectors, word_vectors


@dataclass(frozen=True)
class EncoderTrainConfig:
    """Everything that defines a trained encoder (stored in the checkpoint's sidecar).

    Batch: ``batch_queries`` training queries, ``batch_tags`` tag#answer pairs and ``batch_pseudo``
    pseudo-queries per step (a fraction ``tag_only`` of them without a query); ``pseudo_tags``: at most this
    many tags are appended. The learning rate follows a cosine from ``lr`` down to ``lr * lr_floor`` at
    ``max_steps``. ``negatives``: labels scored per step besides the batch's own (all labels when
    the domain has fewer). Early stopping: evaluate every ``eval_every`` steps, stop after ``patience``
    evaluations without a better dev score, or at ``max_steps``. Never a wall-clock limit: a run cut by time
    depends on the machine and its load, so the same seed would not give the same weights.
    ``threads``: torch and BLAS threads while training (``models.determinism.reproducible``). One, because the
    recurrence is many small ops: on a loaded two-core machine two threads made a birds step 6x slower (4.0 s
    against 0.64 s).

    What people first type is vaguer than the crowd's paraphrases (``assistant.simulation.queries``):
    ``vague_share`` of the batch's training queries are replaced by vague versions of themselves, and with
    ``select_on_vague`` the best step is chosen on the crowd's dev queries and vague versions of them alike
    (birds dev Acc@1 on the crowd's queries: 0.325 with 1,500 steps and no vague queries; crowd / vague: 0.254 /
    0.161 with half of them vague, 0.368 / 0.204 with a quarter and 3,000 steps: 1,500 steps stopped training
    while it still improved). ``blend``: the prior
    blends the encoder with pooled MiniLM and BM25, weights tuned on vague dev queries
    (``assistant.priors.blend``).
    """

    model: SRUEncoderConfig = field(default_factory=SRUEncoderConfig)
    text: LabelTextConfig = field(default_factory=LabelTextConfig)
    batch_queries: int = 64
    batch_tags: int = 8
    batch_pseudo: int = 8
    tag_only: float = 0.5
    pseudo_tags: int = 4
    negatives: int = 255
    lr: float = 3e-3
    lr_floor: float = 0.1
    weight_decay: float = 1e-5
    max_steps: int = 3000
    eval_every: int = 100
    patience: int = 5
    centroid: str = "auto"
    protocol_seed: int = 0
    threads: int = 1
    vague_share: float = 0.25
    select_on_vague: bool = True
    blend: bool = True

    def __post_init__(self) -> None:
        if self.centroid not in ("auto", "on", "off"):
            raise ConfigError(f"centroid must be 'auto', 'on' or 'off', not {self.centroid!r}")
        if self.batch_queries + self.batch_tags + self.batch_pseudo < 1:
            raise ConfigError("the batch is empty: set batch_queries, batch_tags or batch_pseudo above 0")
        if self.max_steps < 1 or self.eval_every < 1:
            raise ConfigError("max_steps and eval_every must be at least 1")
        if not 0.0 <= self.vague_share <= 1.0:
            raise ConfigError(f"vague_share must be in [0, 1], got {self.vague_share}")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> EncoderTrainConfig:
        data = dict(data)
        data.pop("max_seconds", None)  # older checkpoints: training had a wall-clock safety net
        model = SRUEncoderConfig(**data.pop("model", {}))
        text = LabelTextConfig(**data.pop("text", {}))
        return cls(model=model, text=text, **data)


@dataclass
class EncoderResult:
    """What ``train_encoder`` returns: the prior, dev metrics, the learning curve and the time it took."""

    prior: EncoderPrior
    metrics: dict[str, float]
    history: list[dict[str, float]]
    seconds: float
    checkpoint: str | None


def _dev_metrics(
    prior: EncoderPrior,
    dev_ids: list[list[int]],
    dev_labels: np.ndarray,
    with_queries: np.ndarray,
    vague: tuple[list[list[int]], np.ndarray] | None = None,
) -> dict:
    """Dev Acc@1/@3 over all labels and over the labels that have training queries (birds: captioned); with
    ``vague`` (ids, labels of vague versions of the dev queries) the same as ``dev_vague_*``."""
    out = {}
    for prefix, (ids, labels) in (("dev", (dev_ids, dev_labels)), ("dev_vague", vague or ([], None))):
        if not len(ids):
            continue
        assert labels is not None  # only the missing vague part has no labels
        scores = prior.scores_from_ids(ids)
        out.update({f"{prefix}_{k}": v for k, v in ranking_metrics(scores, labels).items()})
        if len(with_queries) < scores.shape[1]:
            sub = ranking_metrics(scores, labels, candidates=with_queries)
            out.update({f"{prefix}_{k}_seen": v for k, v in sub.items()})
    return out


def _dev_score(metrics: dict) -> float:
    """Early-stopping criterion: Acc@1 averaged over both candidate sets (where they differ), Acc@3 as
    tie-break; with vague dev queries, the mean of that score on the crowd's and on the vague ones."""

    def score(prefix: str) -> float:
        acc1 = (metrics[f"{prefix}_acc1"] + metrics.get(f"{prefix}_acc1_seen", metrics[f"{prefix}_acc1"])) / 2
        acc3 = (metrics[f"{prefix}_acc3"] + metrics.get(f"{prefix}_acc3_seen", metrics[f"{prefix}_acc3"])) / 2
        return acc1 + 0.5 * acc3

    return (score("dev") + score("dev_vague")) / 2 if "dev_vague_acc1" in metrics else score("dev")


def train_encoder(
    domain: Domain,
    config: EncoderTrainConfig | None = None,
    seed: int = 0,
    save: bool = True,
    start_from: dict | None = None,
    start_tag: str = "",
) -> Generator[Progress, None, EncoderResult]:
    """Train the SRU encoder prior on ``domain`` (as stored; the agent's view is taken here).

    ``start_from``: the weights (a state_dict) to fine-tune instead of a fresh encoder, ``start_tag`` names
    them. With ``save``, a training that is cancelled (the job closed) leaves a resume point
    (``assistant.training.resume``) that the next run with the same data, settings, seed and start goes on
    from, with the same result as an uninterrupted run.

    Yields Progress every few steps (metrics ``loss``; at evaluations also ``dev_acc1``, ``dev_acc3`` and,
    for birds, ``dev_acc1_seen``/``dev_acc3_seen`` over the captioned species) and returns an
    ``EncoderResult``. With ``save`` the model is written to ``encoder_checkpoint_path(domain.name)``.
    Same seed, same model, on any machine with the same package versions: the whole job, calibration
    included, runs with ``config.threads`` threads and deterministic kernels (``models.determinism``).
    """
    config = config or EncoderTrainConfig()
    # record the concrete word vectors ('auto' depends on what is installed)
    config = replace(config, model=replace(config.model, vectors=resolve_vectors(config.model.vectors)))
    with reproducible(config.threads):
        return (yield from _train_encoder(domain, config, seed, save, start_from, start_tag))


def _train_encoder(
    domain: Domain, config: EncoderTrainConfig, seed: int, save: bool, start_from: dict | None, start_tag: str
) -> Generator[Progress, None, EncoderResult]:
    start = time.perf_counter()
    agent = agent_view(domain, config.protocol_seed)
    p_hat = agent.p_hat()
    if agent.num_labels < 2:
        raise ConfigError(f"domain {domain.name!r} has {agent.num_labels} label(s); the prior needs at least two")
    dev_texts, dev_labels = agent.queries("dev")
    with_queries = agent.labels_with_queries("train")
    use_centroid = config.centroid == "on" or (config.centroid == "auto" and centroid_applicable(agent))

    rng = np.random.default_rng(seed)
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        vectors = word_vectors(config.model.vectors)
        encoder = SRUTextEncoder(config.model, vectors)
        bank = LabelBank.build(agent, p_hat, config.text, vectors, config.model.max_len)
        sampler = PairSampler(agent, p_hat, config, rng)
        dev_ids = vectors.token_ids(dev_texts, config.model.max_len)
        dev_vague = None
        if config.select_on_vague and len(dev_texts):
            vague_texts, vague_labels, _ = training_queries(agent, seed=config.protocol_seed + 1)
            dev_vague = (vectors.token_ids(vague_texts, config.model.max_len), vague_labels)
        optimizer = torch.optim.AdamW(
            [p for p in encoder.parameters() if p.requires_grad], lr=config.lr, weight_decay=config.weight_decay
        )
        floor = config.lr_floor
        schedule = torch.optim.lr_scheduler.LambdaLR(
            optimizer,
            lambda i: floor + (1 - floor) * 0.5 * (1 + np.cos(np.pi * min(i, config.max_steps) / config.max_steps)),
        )
        if start_from is not None:
            encoder.load_state_dict(start_from)
        history: list[dict[str, float]] = []
        best_score, best_state, best_metrics, since_best = -1.0, None, {}, 0
        running = 0.0
        step = 0
        resume = resume_path(encoder_checkpoint_path(domain.name)) if save else None
        key = data_hash([encoder_data_hash(domain, config.protocol_seed), config.to_dict(), seed, start_tag])
        found = load_resume(resume, key) if resume is not None else None
        if found is not None:
            tensors, saved = found
            encoder.load_state_dict(tensors["model"])
            optimizer.load_state_dict(tensors["optimizer"])
            schedule.load_state_dict(tensors["schedule"])
            torch.set_rng_state(tensors["torch_rng"])
            best_state = tensors.get("best")
            rng.bit_generator.state = saved["rng"]
            step, running, history = saved["step"], saved["running"], saved["history"]
            best_score, best_metrics, since_best = saved["best_score"], saved["best_metrics"], saved["since_best"]
            start -= saved["seconds"]
            yield Progress(step, config.max_steps, f"going on from step {step} (saved when it was cancelled)")

        def keep_going_point() -> None:
            assert resume is not None  # called only where there is a resume point
            tensors = {
                "model": encoder.state_dict(),
                "optimizer": optimizer.state_dict(),
                "schedule": schedule.state_dict(),
                "torch_rng": torch.get_rng_state(),
                "best": best_state,
            }
            state = {
                "step": step,
                "running": running,
                "history": history,
                "best_score": best_score,
                "best_metrics": best_metrics,
                "since_best": since_best,
                "seconds": time.perf_counter() - start,
                "rng": rng.bit_generator.state,
            }
            save_resume(resume, key, tensors, state)

        first = step + 1
        try:
            for step in range(first, config.max_steps + 1):
                encoder.train()
                texts, labels = sampler.batch()
                subset = label_subset(labels, agent.num_labels, config.negatives, rng)
                position = -np.ones(agent.num_labels, dtype=np.int64)
                position[subset] = np.arange(len(subset))
                queries = encoder.finish(encoder.raw_split(vectors.token_ids(texts, config.model.max_len)))  # [B, D]
                labels_emb = bank.embed(encoder, subset)  # [L, D]
                logits = queries @ labels_emb.T  # [B, L]
                loss = torch.nn.functional.cross_entropy(logits, torch.as_tensor(position[labels]))
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(encoder.parameters(), 5.0)
                optimizer.step()
                schedule.step()
                running = loss.item() if step == 1 else 0.95 * running + 0.05 * loss.item()
                if step % config.eval_every == 0 or step == config.max_steps:
                    prior = EncoderPrior(agent, encoder, bank, config.to_dict(), temperature=1.0)
                    metrics = _dev_metrics(prior, dev_ids, dev_labels, with_queries, dev_vague) if len(dev_ids) else {}
                    metrics = {"step": step, "loss": running, "seconds": time.perf_counter() - start, **metrics}
                    history.append(metrics)
                    score = _dev_score(metrics) if len(dev_ids) else -running
                    if score > best_score:
                        best_score, best_state, best_metrics, since_best = (
                            score,
                            copy.deepcopy(encoder.state_dict()),
                            metrics,
                            0,
                        )
                    else:
                        since_best += 1
                    if resume is not None:
                        keep_going_point()
                    yield Progress(step, config.max_steps, f"step {step}: loss {running:.3f}", metrics)
                    if since_best >= config.patience:
                        break
                elif step % 10 == 0:
                    yield Progress(step, config.max_steps, f"step {step}: loss {running:.3f}", {"loss": running})
        except GeneratorExit:  # cancelled: keep what was trained for the next run
            if resume is not None:
                keep_going_point()
            raise
        if best_state is not None:
            encoder.load_state_dict(best_state)
        encoder.eval()

    prior = EncoderPrior(agent, encoder, bank, config.to_dict(), temperature=1.0)
    centroids = (dev_ids, dev_labels) if use_centroid else None
    prior, temperature, short_temperature = calibrated_prior(prior, agent, vectors, config, centroids)
    final = _dev_metrics(prior, dev_ids, dev_labels, with_queries, dev_vague) if len(dev_ids) else {}
    blend = None
    if config.blend and len(dev_ids):
        yield Progress(step, step, "blending in pooled MiniLM and BM25 (weights tuned on vague dev queries)")
        blend, blend_metrics = fit_blend(agent, prior, config)
        prior = prior.with_blend(blend)
        final.update(blend_metrics)
    seconds = time.perf_counter() - start
    metrics = {
        **final,
        "best_step": float(best_metrics.get("step", step)),
        "steps": float(step),
        "train_seconds": seconds,
        "temperature": temperature,
        "short_temperature": short_temperature,
        "centroid_weight": prior.centroid_weight,
    }
    path = None
    if save:
        path = encoder_checkpoint_path(domain.name)
        side_sha256 = save_side(domain.name, prior)  # before the checkpoint, which records its digest
        save_checkpoint(
            path,
            encoder.state_dict(),
            {
                "train": config.to_dict(),
                "trained_on": data_sizes(domain),
                "fine_tuned_from": start_tag or None,
                "seed": seed,
                "temperature": temperature,
                "short_temperature": short_temperature,
                "centroid_weight": prior.centroid_weight,
                "blend": None if blend is None else blend.to_dict(),
                "side_sha256": side_sha256,
            },
            data=encoder_data_hash(domain, config.protocol_seed),
            metrics=metrics,
        )
    if save:
        clear_resume(resume_path(encoder_checkpoint_path(domain.name)))
    yield Progress(step, step, f"done: dev Acc@1 {final.get('dev_acc1', float('nan')):.3f}", metrics)
    return EncoderResult(prior, metrics, history, seconds, None if path is None else str(path))


def data_sizes(domain: Domain) -> dict[str, int]:
    """How much a model was trained on (recorded in its sidecar): after an import, the difference says
    whether a few epochs of fine-tuning catch up or a new training is needed."""
    return {
        "labels": int(domain.num_labels),
        "questions": int(domain.num_questions),
        "train_queries": int((np.asarray(domain.query_splits) == "train").sum()),
        "annotations": round(float(np.asarray(domain.counts).sum())),
    }


def load_or_train_encoder(
    domain: Domain, config: EncoderTrainConfig | None = None, seed: int = 0
) -> Generator[Progress, None, EncoderPrior]:
    """The domain's encoder prior: loaded if a current checkpoint exists, else trained (and saved)."""
    protocol_seed = (config or EncoderTrainConfig()).protocol_seed
    try:
        prior = load_encoder_prior(domain, agent_view(domain, protocol_seed))
        yield Progress(1, 1, f"encoder for {domain.name!r} is up to date")
        return prior
    except ModelMissingError:
        pass
    result = yield from train_encoder(domain, config, seed=seed, save=True)
    return result.prior
