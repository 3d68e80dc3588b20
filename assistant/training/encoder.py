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

import time
from collections.abc import Generator
from dataclasses import asdict, dataclass, field, replace

import numpy as np
import torch

from assistant.errors import ConfigError, ModelMissingError
from assistant.priors.base import centroid_applicable
from assistant.priors.sru import (
    EncoderPrior,
    encoder_checkpoint_path,
    encoder_data_hash,
    load_encoder_prior,
    save_side,
)
from assistant.progress import Progress
from assistant.simulation.protocol import agent_view
from assistant.store import Domain
from assistant.text.label_text import LabelTextConfig
from assistant.training.encoder_run import EncoderRun
from assistant.training.encoder_tuning import calibrated_prior, fit_blend
from assistant.training.resume import clear_resume, resume_path
from models.checkpoint import data_hash, save_checkpoint
from models.determinism import reproducible
from models.sru_encoder import SRUEncoderConfig, resolve_vectors


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
    """The training loop (``EncoderRun``: one step, one evaluation with early stopping, the point a cancelled
    run goes on from), then the calibration, the blend and the checkpoint (``_finish``)."""
    start = time.perf_counter()
    agent = agent_view(domain, config.protocol_seed)
    p_hat = agent.p_hat()
    if agent.num_labels < 2:
        raise ConfigError(f"domain {domain.name!r} has {agent.num_labels} label(s); the prior needs at least two")
    use_centroid = config.centroid == "on" or (config.centroid == "auto" and centroid_applicable(agent))
    rng = np.random.default_rng(seed)
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        run = EncoderRun(agent, p_hat, config, rng, start, start_from)
        if save:
            key = data_hash([encoder_data_hash(domain, config.protocol_seed), config.to_dict(), seed, start_tag])
            if run.resume_from(resume_path(encoder_checkpoint_path(domain.name)), key):
                yield Progress(
                    run.step, config.max_steps, f"going on from step {run.step} (saved when it was cancelled)"
                )
        first = run.step + 1
        try:
            for step in range(first, config.max_steps + 1):
                run.train_step(step)
                if step % config.eval_every == 0 or step == config.max_steps:
                    metrics, patience_spent = run.evaluate(step)
                    run.save_point()
                    yield Progress(step, config.max_steps, f"step {step}: loss {run.running:.3f}", metrics)
                    if patience_spent:
                        break
                elif step % 10 == 0:
                    yield Progress(
                        step, config.max_steps, f"step {step}: loss {run.running:.3f}", {"loss": run.running}
                    )
        except GeneratorExit:  # cancelled: keep what was trained for the next run
            run.save_point()
            raise
        run.keep_best()
    return (yield from _finish(run, domain, config, seed, save, start_tag, use_centroid))


def _finish(
    run: EncoderRun,
    domain: Domain,
    config: EncoderTrainConfig,
    seed: int,
    save: bool,
    start_tag: str,
    use_centroid: bool,
) -> Generator[Progress, None, EncoderResult]:
    """The trained encoder as a prior: calibrated, blended, measured on dev and saved (``save``)."""
    agent, encoder, step = run.agent, run.encoder, run.step
    dev_ids, dev_labels = run.dev_ids, run.dev_labels
    prior = EncoderPrior(agent, encoder, run.bank, config.to_dict(), temperature=1.0)
    centroids = (dev_ids, dev_labels) if use_centroid else None
    prior, temperature, short_temperature = calibrated_prior(prior, agent, run.vectors, config, centroids)
    final = run.dev_metrics(prior) if len(dev_ids) else {}
    blend = None
    if config.blend and len(dev_ids):
        yield Progress(step, step, "blending in pooled MiniLM and BM25 (weights tuned on vague dev queries)")
        blend, blend_metrics = fit_blend(agent, prior, config)
        prior = prior.with_blend(blend)
        final.update(blend_metrics)
    seconds = time.perf_counter() - run.start
    metrics = {
        **final,
        "best_step": float(run.best_metrics.get("step", step)),
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
        clear_resume(resume_path(encoder_checkpoint_path(domain.name)))
    yield Progress(step, step, f"done: dev Acc@1 {final.get('dev_acc1', float('nan')):.3f}", metrics)
    return EncoderResult(prior, metrics, run.history, seconds, None if path is None else str(path))


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
