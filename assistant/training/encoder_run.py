"""One run of the SRU encoder's training (``assistant.training.encoder``), split the way stable-baselines3
splits ``learn()``: what a run holds (the encoder, its label bank, the pair sampler, the optimizer and its
schedule, built in the seeded order), one gradient step, one evaluation on dev with early stopping, and the
point a cancelled run goes on from (``assistant.training.resume``). The loop that calls them, and the
calibration and checkpoint after it, are ``train_encoder``'s.
"""

from __future__ import annotations

import copy
import time
from pathlib import Path

import numpy as np
import torch

from assistant.priors.calibration import ranking_metrics
from assistant.priors.sru import EncoderPrior, LabelBank
from assistant.simulation.queries import training_queries
from assistant.store import Domain
from assistant.training.encoder_batches import PairSampler, label_subset
from assistant.training.resume import load_resume, save_resume
from models.sru_encoder import SRUTextEncoder, word_vectors


class EncoderRun:
    """See the module docstring. Build it inside the caller's ``torch.random.fork_rng`` after seeding it:
    the order of what is built here is the order the seed's numbers are drawn in. ``config``: the training's
    ``EncoderTrainConfig`` (which imports this module, as ``PairSampler`` takes it)."""

    def __init__(
        self,
        agent: Domain,
        p_hat: np.ndarray,
        config,
        rng: np.random.Generator,
        start: float,
        start_from: dict | None,
    ) -> None:
        self.agent, self.config, self.rng, self.start = agent, config, rng, start
        self.dev_texts, self.dev_labels = agent.queries("dev")
        self.with_queries = agent.labels_with_queries("train")
        self.vectors = word_vectors(config.model.vectors)
        self.encoder = SRUTextEncoder(config.model, self.vectors)
        self.bank = LabelBank.build(agent, p_hat, config.text, self.vectors, config.model.max_len)
        self.sampler = PairSampler(agent, p_hat, config, rng)
        self.dev_ids = self.vectors.token_ids(self.dev_texts, config.model.max_len)
        self.dev_vague = None
        if config.select_on_vague and len(self.dev_texts):
            vague_texts, vague_labels, _ = training_queries(agent, seed=config.protocol_seed + 1)
            self.dev_vague = (self.vectors.token_ids(vague_texts, config.model.max_len), vague_labels)
        self.optimizer = torch.optim.AdamW(
            [p for p in self.encoder.parameters() if p.requires_grad], lr=config.lr, weight_decay=config.weight_decay
        )
        floor = config.lr_floor
        self.schedule = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer,
            lambda i: floor + (1 - floor) * 0.5 * (1 + np.cos(np.pi * min(i, config.max_steps) / config.max_steps)),
        )
        if start_from is not None:
            self.encoder.load_state_dict(start_from)
        self.history: list[dict[str, float]] = []
        self.best_score, self.since_best = -1.0, 0  # the best evaluation, and how many came after it
        self.best_state: dict | None = None
        self.best_metrics: dict = {}
        self.running = 0.0
        self.step = 0
        self.resume: Path | None = None  # where a cancelled run keeps its state (None: it keeps none)
        self.key = ""

    def resume_from(self, resume: Path, key: str) -> bool:
        """Keep the run's state at ``resume`` from now on, and go on from what a cancelled run of the same data,
        settings and seed (``key``) kept there, if it did (True)."""
        self.resume, self.key = resume, key
        found = load_resume(resume, key)
        if found is None:
            return False
        tensors, saved = found
        self.encoder.load_state_dict(tensors["model"])
        self.optimizer.load_state_dict(tensors["optimizer"])
        self.schedule.load_state_dict(tensors["schedule"])
        torch.set_rng_state(tensors["torch_rng"])
        self.best_state = tensors.get("best")
        self.rng.bit_generator.state = saved["rng"]
        self.step, self.running, self.history = saved["step"], saved["running"], saved["history"]
        self.best_score, self.best_metrics = saved["best_score"], saved["best_metrics"]
        self.since_best = saved["since_best"]
        self.start -= saved["seconds"]
        return True

    def save_point(self) -> None:
        """Keep the run's state where a cancelled run goes on from (nothing without a resume point)."""
        if self.resume is None:
            return
        tensors = {
            "model": self.encoder.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "schedule": self.schedule.state_dict(),
            "torch_rng": torch.get_rng_state(),
            "best": self.best_state,
        }
        state = {
            "step": self.step,
            "running": self.running,
            "history": self.history,
            "best_score": self.best_score,
            "best_metrics": self.best_metrics,
            "since_best": self.since_best,
            "seconds": time.perf_counter() - self.start,
            "rng": self.rng.bit_generator.state,
        }
        save_resume(self.resume, self.key, tensors, state)

    def train_step(self, step: int) -> None:
        """One gradient step on a batch of (query, label) pairs against a subset of negative labels."""
        config, encoder, agent = self.config, self.encoder, self.agent
        self.step = step
        encoder.train()
        texts, labels = self.sampler.batch()
        subset = label_subset(labels, agent.num_labels, config.negatives, self.rng)
        position = -np.ones(agent.num_labels, dtype=np.int64)
        position[subset] = np.arange(len(subset))
        queries = encoder.finish(encoder.raw_split(self.vectors.token_ids(texts, config.model.max_len)))  # [B, D]
        labels_emb = self.bank.embed(encoder, subset)  # [L, D]
        logits = queries @ labels_emb.T  # [B, L]
        loss = torch.nn.functional.cross_entropy(logits, torch.as_tensor(position[labels]))
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(encoder.parameters(), 5.0)
        self.optimizer.step()
        self.schedule.step()
        self.running = loss.item() if step == 1 else 0.95 * self.running + 0.05 * loss.item()

    def evaluate(self, step: int) -> tuple[dict, bool]:
        """The dev metrics now (kept in the history; the best state kept), and whether the patience is spent."""
        prior = EncoderPrior(self.agent, self.encoder, self.bank, self.config.to_dict(), temperature=1.0)
        found = self.dev_metrics(prior) if len(self.dev_ids) else {}
        metrics = {"step": step, "loss": self.running, "seconds": time.perf_counter() - self.start, **found}
        self.history.append(metrics)
        score = dev_score(metrics) if len(self.dev_ids) else -self.running
        if score > self.best_score:
            self.best_score, self.best_state, self.best_metrics, self.since_best = (
                score,
                copy.deepcopy(self.encoder.state_dict()),
                metrics,
                0,
            )
        else:
            self.since_best += 1
        return metrics, self.since_best >= self.config.patience

    def dev_metrics(self, prior: EncoderPrior) -> dict:
        return dev_metrics(prior, self.dev_ids, self.dev_labels, self.with_queries, self.dev_vague)

    def keep_best(self) -> None:
        """The encoder as its best evaluation left it, for inference."""
        if self.best_state is not None:
            self.encoder.load_state_dict(self.best_state)
        self.encoder.eval()


def dev_metrics(
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


def dev_score(metrics: dict) -> float:
    """Early-stopping criterion: Acc@1 averaged over both candidate sets (where they differ), Acc@3 as
    tie-break; with vague dev queries, the mean of that score on the crowd's and on the vague ones."""

    def score(prefix: str) -> float:
        acc1 = (metrics[f"{prefix}_acc1"] + metrics.get(f"{prefix}_acc1_seen", metrics[f"{prefix}_acc1"])) / 2
        acc3 = (metrics[f"{prefix}_acc3"] + metrics.get(f"{prefix}_acc3_seen", metrics[f"{prefix}_acc3"])) / 2
        return acc1 + 0.5 * acc3

    return (score("dev") + score("dev_vague")) / 2 if "dev_vague_acc1" in metrics else score("dev")
