"""A small FAQ domain with logged sessions, built with the simulator, for the product-loop tests."""

from __future__ import annotations

import csv
from dataclasses import replace
from pathlib import Path

import numpy as np

from assistant.app.lifecycle.registry import ModelRegistry
from assistant.app.lifecycle.training_jobs import base_answer_model, fit_prior_job
from assistant.app.session.session import Session, SessionConfig
from assistant.clarification.clarifier import Clarifier
from assistant.clarification.stopping import FixedTurns
from assistant.progress import run_job
from assistant.simulation.episodes import EpisodeSpec
from assistant.simulation.user import SimulatedUser
from assistant.sources.adapters import adapters
from assistant.sources.adapters.induced import heldout_answers, induced_questions
from assistant.store import DomainData, KnowledgeBase, write_domain
from assistant.text.label_text import LabelTextConfig
from assistant.training.encoder import EncoderTrainConfig, train_encoder
from models.sru_encoder import SRUEncoderConfig
from tests.support import HashingEncoder

NAME = "minibank"
SOURCE = "banking"
LABELS = 12
PER_LABEL_SESSIONS = 3
# A small encoder and short training: seconds instead of minutes, still clearly better with more queries. The
# encoder alone (no blend with MiniLM and BM25): on 8 intents pooled MiniLM dominates the blend, so that more
# queries barely move it and these tests could not see what the encoder learnt from the sessions.
TINY_ENCODER = EncoderTrainConfig(
    model=SRUEncoderConfig(proj_dim=32, hidden=32, out_dim=32, max_len=24),
    text=LabelTextConfig(max_tags=6),
    batch_queries=24,
    batch_tags=4,
    batch_pseudo=4,
    max_steps=80,
    eval_every=20,
    patience=2,
    blend=False,
)


def build_domain(name: str = NAME) -> dict[str, list[tuple[str, str]]]:
    """The first LABELS intents of BANKING77: per label 2 train, 2 dev and 2 test queries stored, and
    PER_LABEL_SESSIONS more held back as what users will type in sessions. Returns {"sessions": [(key, query)]}."""
    full = adapters()[SOURCE]()
    keys = [label.key for label in full.labels[:LABELS]]
    by_label: dict[str, list[str]] = {k: [] for k in keys}
    for key, text, _ in full.queries:
        if key in by_label:
            by_label[key].append(text)
    queries, held_back, train_texts = [], [], []
    for key in keys:
        texts = by_label[key]
        splits = ["train"] * 2 + ["dev"] * 2 + ["test"] * 2
        queries += [(key, t, s) for t, s in zip(texts, splits)]
        held_back += [(key, t) for t in texts[6 : 6 + PER_LABEL_SESSIONS]]
        train_texts.append(texts[:2])
    labels = full.labels[:LABELS]
    questions, annotations, meta = induced_questions(labels, train_texts)
    data = DomainData(
        NAME,
        "mini banking",
        "test",
        labels,
        questions,
        annotations,
        "induced",
        queries,
        heldout=heldout_answers(labels, questions, queries),
        meta=meta,
    )
    with KnowledgeBase.create(name) as kb:
        write_domain(kb, data)
    return {"sessions": held_back}


def train_tiny_encoder(name: str = NAME, max_steps: int = TINY_ENCODER.max_steps) -> dict:
    """Train the text encoder of ``name`` for a few steps and fit the prior on top of it (as prepare does)."""
    registry = ModelRegistry(name)
    config = replace(TINY_ENCODER, max_steps=max_steps, eval_every=min(max_steps, TINY_ENCODER.eval_every))
    metrics = run_job(train_encoder(registry.domain, config, seed=0, save=True)).metrics
    run_job(fit_prior_job(ModelRegistry(name)))
    return metrics


class SimulatedDesk:
    """What a Session needs from an app registry: the domain's trained prior, its answer model and one
    question per session (the stop policies are not needed to log sessions)."""

    text_prior = "sru"
    default_pace = "quick"

    def __init__(self, name: str = NAME) -> None:
        self.registry = ModelRegistry(name)
        self.name = name
        self.domain = self.registry.domain
        self.text_encoder = HashingEncoder(384)

    def clarifier(
        self, candidates: str = "all", pace: str | None = None, shortlist_size: int | None = None
    ) -> Clarifier:
        prior = self.registry.combined_prior(self.domain)
        return Clarifier(self.domain, prior, base_answer_model(self.registry, self.domain), FixedTurns(1))


def log_sessions(desk: SimulatedDesk, sessions: list[tuple[str, str]], seed: int = 0) -> dict[str, int]:
    """One session per (label, query): the simulated user answers the question and accepts the final answer
    when it is the label it had in mind, else rejects it; every third user leaves before the end."""
    user = SimulatedUser(desk.registry.protocol.user_answers, desk.domain.option_mask)
    config = SessionConfig(shortlist_size=3, ranking_budget=0)
    outcome = {"finished": 0, "failed": 0, "active": 0}
    rng = np.random.default_rng(seed)
    for number, (key, query) in enumerate(sessions):
        target = desk.domain.label_index(key)
        user.start(EpisodeSpec(target, query, int(rng.integers(2**31))))
        session = Session.start(desk, query, config)
        while session.phase == "clarifying":
            session.answer(user.answer(session.question.index))
        if number % 3 == 2:
            outcome["active"] += 1
        elif session.proposed.label_key == key:
            session.accept()
            outcome["finished"] += 1
        else:
            session.reject("not what I asked")
            session.give_up()
            outcome["failed"] += 1
    return outcome


def answer_batch(batch: Path, results: Path, truth: dict[str, str], workers: int = 1) -> int:
    """MTurk batch results for an exported labelling batch: each worker picks the true label when offered
    (else "none of the above"). Returns how many rows named the true label."""
    with batch.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    offered = 0
    with results.open("w", encoding="utf-8", newline="") as f:
        columns = ["HITId", "AssignmentId", "WorkerId"] + [f"Input.{c}" for c in rows[0]] + ["Answer.label"]
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        for h, row in enumerate(rows):
            keys = [v for c, v in row.items() if c.startswith("label_") and not c.startswith("label_name") and v]
            pick = truth[row["query"]] if truth[row["query"]] in keys else "none of the above"
            offered += pick != "none of the above"
            for w in range(workers):
                out = {"HITId": f"H{h}", "AssignmentId": f"A{h}-{w}", "WorkerId": f"W{w}", "Answer.label": pick}
                out.update({f"Input.{c}": v for c, v in row.items()})
                writer.writerow(out)
    return offered
