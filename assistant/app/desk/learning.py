"""Learning from use: the product loop around DASL (the one module that touches the app's sessions).

What the session log of a domain gives (tables ``sessions``/``turns``, read through ``Session.list``):

- labelled pairs: a session that *finished* (the person accepted the final answer) -> (query, final label);
- negatives: a label the person rejected in a session (its "reject" entries) is not the
  query's; it is never offered as the query's pseudo-label and ranks last in its uncertainty;
- the unlabelled pool: queries of sessions that ended without an accepted answer (failed, abandoned,
  still active). Every query stored in the domain already has a label, so the pool holds only what people
  typed; texts already stored as queries (any split) are left out, and so are texts equal to a dev or
  test query, which must never become training data.

``suggest`` (the active step): T MC-dropout passes of the SRU text prior (its dropout on) over the pool;
the k queries with the highest expected ranking loss over the labels (assistant.learning.uncertainty) are
the ones whose labels would help most; each comes with the prior's top labels for a labelling task.

``update``: retrains the SRU text prior (assistant.training.encoder, the same training as
``ModelRegistry.train_encoder``) on the stored queries plus the accepted session queries (source
'session') and the self-paced pseudo-labels of the pool (source 'session-pseudo': pool queries whose
expected loss is under the pace's threshold for this update, labelled with the prior's own top label;
recomputed at every update, the previous ones replaced), all in the *train* split. The old encoder is kept
(and the store left unchanged) unless the new one has a higher dev Acc@1; the report gives the text
prior's Acc@1 before and after on the held-out test queries. The new encoder and the policies retrained
for it are written as a new set of models beside the serving one and switched to in one rename when kept
(``assistant.app.lifecycle.model_sets.ModelSetChange``): a kill at any moment leaves the old set serving or the new one.
If the policies' retraining is cancelled or killed, the old set keeps serving, older than the store's new
session queries (then updated like after an import). Labels imported from a labelling batch
(``clarify import mturk --kind queries``) are stored queries already and count as original data.

The research protocol (``clarify learn evaluate``) is re-exported from ``assistant.evaluation.learning``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from assistant import paths
from assistant.app.desk.domains import prepare
from assistant.app.lifecycle.model_sets import ModelSetChange, domain_lock
from assistant.app.lifecycle.registry import PROTOCOL_SEED, ModelRegistry
from assistant.app.session.events import Reject, read_event
from assistant.app.session.session import Session
from assistant.errors import ConfigError, ModelMissingError, UnknownLabelError
from assistant.evaluation.cqa.data import DATASETS
from assistant.evaluation.learning.plots import plot_learning_curves
from assistant.evaluation.learning.protocol import EvaluationConfig, summary_table
from assistant.evaluation.learning.protocol import evaluate as evaluate_learning
from assistant.learning.pace import SelfPacedPace
from assistant.learning.uncertainty import expected_ranking_loss
from assistant.paths import write_output_file
from assistant.priors.calibration import query_temperatures, ranking_metrics
from assistant.priors.sru import EncoderPrior, LabelBank, encoder_checkpoint_path, load_encoder_prior
from assistant.progress import Job, Progress
from assistant.settings import LEARN_AFTER_SESSIONS
from assistant.store import Domain, EntryKind, KnowledgeBase, SessionLog, SessionStatus
from assistant.store.agent_view import agent_view
from assistant.store.session_log import DamagedSessionError
from assistant.training.encoder import EncoderTrainConfig, train_encoder
from crowdsourcing.export import export_label_queries, mturk_layout
from models.checkpoint import load_checkpoint, read_sidecar

SESSION_SOURCE = "session"
PSEUDO_SOURCE = "session-pseudo"
UPDATES_META = "learning_updates"


@dataclass
class SessionData:
    """Labelled session queries [(text, label index)], the unlabelled pool [text] and negatives {text: labels}."""

    labelled: list[tuple[str, int]] = field(default_factory=list)
    pool: list[str] = field(default_factory=list)
    negatives: dict[str, set[int]] = field(default_factory=dict)
    held_out_skipped: int = 0
    damaged_skipped: int = 0  # sessions whose log is not JSON (edited or damaged files): nothing to learn from


def collect_sessions(kb: KnowledgeBase, domain: Domain) -> SessionData:
    """What the session log of ``kb`` holds for learning (see the module docstring)."""
    stored = set(domain.query_texts)
    held_out = {t for t, s in zip(domain.query_texts, domain.query_splits) if s != "train"}
    data = SessionData()
    log = SessionLog(kb)
    accepted: dict[str, int] = {}
    others: list[str] = []
    for summary in reversed(Session.saved(kb)):  # oldest first
        text = " ".join(summary.query.split())
        if not text:
            continue
        if text in held_out:
            data.held_out_skipped += 1
            continue
        label = _label_index(domain, summary.final_label)
        if summary.status == SessionStatus.FINISHED and label is not None:
            accepted.setdefault(text, label)
        else:
            try:
                rejected = _rejected_labels(log, summary.id, domain)
            except DamagedSessionError:
                data.damaged_skipped += 1
                continue
            for label in rejected:
                data.negatives.setdefault(text, set()).add(label)
            others.append(text)
    data.labelled = [(t, y) for t, y in accepted.items() if t not in stored]
    data.pool = list(dict.fromkeys(t for t in others if t not in stored and t not in accepted))
    return data


def _rejected_labels(log: SessionLog, session_id: int, domain: Domain) -> set[int]:
    """The labels the person rejected in a session ('reject' entries; an undone one counts too: it was said)."""
    rejects = (read_event(kind, payload) for kind, payload in log.entries(session_id) if kind == EntryKind.REJECT)
    found = (_label_index(domain, event.label) for event in rejects if isinstance(event, Reject))
    return {label for label in found if label is not None}


def _label_index(domain: Domain, key: str | None) -> int | None:
    if not key:
        return None
    try:
        return domain.label_index(key)
    except UnknownLabelError:  # a label deleted since the session: nothing to learn from it
        return None


@torch.no_grad()
def prior_mc_scores(prior: EncoderPrior, texts: list[str], samples: int = 20, seed: int = 0) -> np.ndarray:
    """[T, N, Y] logits of the text prior with its dropout on (word dropout and SRU dropout), seeded."""
    if samples < 2:
        raise ConfigError(f"MC dropout needs at least 2 samples, got {samples}")
    label_side = prior.label_vectors()
    if prior.centroid_weight:
        label_side = label_side + prior.centroid_weight * prior.centroids()
    encoder = prior.encoder
    ids = encoder.vectors.token_ids(texts, encoder.config.max_len)
    temperatures = query_temperatures(texts, prior.temperature, prior.short_temperature)
    out = np.zeros((samples, len(texts), label_side.shape[0]), dtype=np.float32)
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        encoder.train()
        try:
            for t in range(samples):
                out[t] = encoder.encode_ids(ids).numpy() @ label_side.T / temperatures
        finally:
            encoder.eval()
    return out


@dataclass(frozen=True)
class Suggestion:
    """A pool query to label: its expected ranking loss and the prior's top labels (best first)."""

    query: str
    loss: float
    labels: tuple[int, ...]


def score_pool(
    prior: EncoderPrior, data: SessionData, samples: int, seed: int, top: int = 5
) -> tuple[np.ndarray, np.ndarray, list[tuple[int, ...]]]:
    """(expected losses [P], pseudo-labels [P], top labels per query) of the pool under ``prior``."""
    if not data.pool:
        return np.zeros(0), np.zeros(0, dtype=np.int64), []
    draws = prior_mc_scores(prior, data.pool, samples, seed)  # [T, P, Y]
    for i, text in enumerate(data.pool):
        for y in data.negatives.get(text, ()):
            draws[:, i, y] = -1e9  # the person rejected it: never the answer
    losses = np.array([expected_ranking_loss(draws[:, i, :]) for i in range(len(data.pool))])
    mean = draws.mean(axis=0)
    order = np.argsort(-mean, axis=1, kind="stable")
    return losses, order[:, 0], [tuple(int(y) for y in row[:top]) for row in order]


def suggest(domain_name: str, k: int = 50, samples: int = 20, seed: int = 0, top: int = 5) -> Job[list[Suggestion]]:
    """The ``k`` pool queries whose labels would help the text prior most (highest expected ranking loss)."""
    if k < 1:
        raise ConfigError(f"--k must be at least 1, got {k}")
    yield Progress(0, 2, f"reading the sessions of {domain_name}")
    registry = ModelRegistry(domain_name)
    with KnowledgeBase.open(domain_name) as kb:
        data = collect_sessions(kb, registry.domain)
    if not data.pool:
        raise ConfigError(
            f"domain {domain_name!r} has no unlabelled session queries (sessions without an accepted answer): "
            "nothing to suggest yet"
        )
    prior = _previous_prior(registry.domain)
    yield Progress(1, 2, f"{samples} MC-dropout passes over {len(data.pool)} queries")
    losses, _, tops = score_pool(prior, data, samples, seed, top)
    chosen = np.argsort(-losses, kind="stable")[:k]
    yield Progress(2, 2, f"chose {len(chosen)} of {len(data.pool)} queries")
    return [Suggestion(data.pool[i], float(losses[i]), tops[i]) for i in chosen]


def _previous_prior(domain: Domain) -> EncoderPrior:
    """The domain's saved SRU prior, also when the store changed since it was trained (imported labels make
    it stale by design: it is the model to beat)."""
    try:
        return load_encoder_prior(domain, agent_view(domain, PROTOCOL_SEED))
    except ModelMissingError:
        path = encoder_checkpoint_path(domain.name)
        sidecar = read_sidecar(path)
        if sidecar is None or "train" not in sidecar.get("config", {}):
            raise
    from models.sru_encoder import SRUTextEncoder, word_vectors

    saved = sidecar["config"]
    config = EncoderTrainConfig.from_dict(saved["train"])
    state, _ = load_checkpoint(path)
    vectors = word_vectors(config.model.vectors)
    encoder = SRUTextEncoder(config.model, vectors)
    encoder.load_state_dict(state)
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
        short_temperature=saved.get("short_temperature"),
    )


def _accuracy(prior: EncoderPrior, domain: Domain, split: str) -> float:
    texts, labels = domain.queries(split)
    return ranking_metrics(prior.scores(texts), labels)["acc1"] if texts else float("nan")


def update(
    domain_name: str,
    seed: int = 0,
    samples: int = 20,
    pace: SelfPacedPace | None = None,
    train_config: EncoderTrainConfig | None = None,
    retrain_policies: bool = True,
) -> Job[dict]:
    """Retrain the text prior on original + session data; keep it only if dev Acc@1 improves (a job)."""
    pace = pace or SelfPacedPace()
    yield Progress(0, 0, f"reading the sessions of {domain_name}")
    with KnowledgeBase.open(domain_name) as kb:
        domain = kb.load_domain()
        data = collect_sessions(kb, domain)
        sources = kb.query_sources()
        round_index = int(kb.get_meta().get(UPDATES_META, "0"))
    old = _previous_prior(domain)
    before = {"dev_acc1": _accuracy(old, domain, "dev"), "test_acc1": _accuracy(old, domain, "test")}
    losses, pseudo_labels, _ = score_pool(old, data, samples, seed)
    threshold = pace.threshold(round_index)
    pseudo = [(data.pool[i], int(pseudo_labels[i])) for i in pace.select(losses, round_index)]
    keep = np.array([source != PSEUDO_SOURCE for source in sources], dtype=bool)
    added = data.labelled + pseudo
    candidate = dataclasses.replace(
        domain,
        query_texts=[t for t, k in zip(domain.query_texts, keep) if k] + [t for t, _ in added],
        query_labels=np.concatenate([domain.query_labels[keep], np.array([y for _, y in added], dtype=np.int64)]),
        query_splits=np.concatenate([domain.query_splits[keep], np.array(["train"] * len(added), dtype="<U5")]),
    )
    release = yield from domain_lock(domain_name)  # one update or preparation of this domain at a time
    try:
        # the new encoder (and its policies) go into a new set of models beside the serving one, which
        # switches to it in one rename once it is kept: a kill at any moment leaves the old set or the new one
        with ModelSetChange(domain_name) as change:
            result = yield from train_encoder(candidate, train_config, seed=seed, save=True)
            paths.fault_point("learn-update:trained")
            after = {
                "dev_acc1": _accuracy(result.prior, candidate, "dev"),
                "test_acc1": _accuracy(result.prior, candidate, "test"),
            }
            kept = after["dev_acc1"] > before["dev_acc1"]
            report: dict[str, Any] = {
                "domain": domain_name,
                "kept": "new" if kept else "old",
                "before": before,
                "after": after,
                "labelled_sessions": len(data.labelled),
                "pseudo_labelled": len(pseudo),
                "pool": len(data.pool),
                "held_out_sessions_skipped": data.held_out_skipped,
                "damaged_sessions_skipped": data.damaged_skipped,
                "threshold": threshold,
                "update": round_index,
            }
            if kept:  # else (worse, failed or cancelled) the set is dropped: models and store stay as they were
                _commit(domain_name, data.labelled, pseudo, round_index + 1)
                if retrain_policies:  # for the new encoder, in the new set (the old set serves meanwhile)
                    report["retrained"] = yield from prepare(domain_name)
                change.commit()
    finally:
        release()
    return report


def _commit(domain_name: str, labelled: list[tuple[str, int]], pseudo: list[tuple[str, int]], updates: int) -> None:
    """Write the session queries into the store (train split), replacing the previous pseudo-labels."""
    with KnowledgeBase.open(domain_name) as kb, kb.transaction():
        ids = list(kb.label_ids().values())
        kb.delete_queries(PSEUDO_SOURCE)
        kb.add_queries([(ids[y], t, "train", SESSION_SOURCE, "") for t, y in labelled])
        kb.add_queries([(ids[y], t, "train", PSEUDO_SOURCE, "") for t, y in pseudo])
        kb.set_meta(**{UPDATES_META: updates})


# Accepted sessions that make a training round worth it (a desk's domain learns from use; issue 25):
# ``assistant.settings.LEARN_AFTER_SESSIONS``.


def pending_sessions(domain_name: str) -> int:
    """How many accepted sessions' queries are not training queries yet (``collect_sessions``' labelled)."""
    with KnowledgeBase.open(domain_name) as kb:
        return len(collect_sessions(kb, kb.load_domain()).labelled)


def learn_from_use_job(domain_name: str, min_new: int = LEARN_AFTER_SESSIONS, seed: int = 0) -> Job[dict]:
    """Learning from use, the simple way: once at least ``min_new`` accepted sessions are new, store each as a
    (query, entry) training pair (source ``SESSION_SOURCE``, train split; never a dev or test text), which
    makes the models older than the data, and bring them up to date with ``prepare`` (what no longer fits
    the data is fitted again, what is merely stale is fine-tuned: ``assistant.app.lifecycle.updates``); a conversation
    keeps the models it started with meanwhile. Returns {"stored", "pending", "updated"}."""
    yield Progress(0, 0, f"reading the accepted sessions of {domain_name}")
    with KnowledgeBase.open(domain_name) as kb, kb.transaction():
        data = collect_sessions(kb, kb.load_domain())
        stored = 0
        if data.labelled and len(data.labelled) >= min_new:
            ids = list(kb.label_ids().values())
            stored = kb.add_queries([(ids[y], t, "train", SESSION_SOURCE, "") for t, y in data.labelled])
    if not stored:
        return {"stored": 0, "pending": len(data.labelled), "updated": []}
    yield Progress(0, 0, f"{stored} accepted sessions became training pairs: updating the models")
    updated = yield from prepare(domain_name, seed=seed)
    return {"stored": stored, "pending": 0, "updated": updated}


def suggest_batch_job(
    domain: str, out: Path, k: int = 50, labels: int = 5, samples: int = 20, seed: int = 0, layout: Path | None = None
) -> Job[dict]:
    """``clarify learn suggest`` (and the Lab's Suggest): the ``k`` queries ``suggest`` chooses, written as an
    MTurk labelling batch ``out`` (CSV; ``layout``: also the HIT layout). Returns the export summary and
    ``queries`` [(query, expected loss)], highest loss first."""
    if Path(out).suffix.lower() != ".csv":
        raise ConfigError(f"--out {out}: give a .csv file name (an MTurk batch input file)")
    chosen = yield from suggest(domain, k, samples, seed, labels)
    with KnowledgeBase.open(domain) as kb:
        loaded = kb.load_domain()
    summary = export_label_queries(loaded, [(s.query, s.labels) for s in chosen], out, labels)
    if layout is not None:
        text = mturk_layout("label_queries", labels)
        write_output_file(layout, lambda tmp: tmp.write_text(text, encoding="utf-8"), "--layout")
    return {**summary, "queries": [(s.query, s.loss) for s in chosen]}


__all__ = [
    "DATASETS",
    "LEARN_AFTER_SESSIONS",
    "PSEUDO_SOURCE",
    "SESSION_SOURCE",
    "EncoderTrainConfig",
    "EvaluationConfig",
    "collect_sessions",
    "evaluate_learning",
    "learn_from_use_job",
    "pending_sessions",
    "plot_learning_curves",
    "suggest",
    "suggest_batch_job",
    "summary_table",
    "update",
]
