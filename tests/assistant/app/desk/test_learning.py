"""The product loop end to end on a small banking domain: sessions logged with the simulator -> suggest ->
MTurk labels imported -> update; the old model stays when the new one is not better on dev."""

from __future__ import annotations

import csv
from dataclasses import replace

import pytest
from click.testing import CliRunner

from assistant.app.desk.learning import PSEUDO_SOURCE, SESSION_SOURCE, collect_sessions, update
from assistant.app.lifecycle.registry import ModelRegistry
from assistant.cli import main
from assistant.priors.sru import encoder_checkpoint_path
from assistant.progress import collect
from assistant.store import KnowledgeBase
from tests.support.product import (
    NAME,
    TINY_ENCODER,
    SimulatedDesk,
    answer_batch,
    build_domain,
    log_sessions,
    train_tiny_encoder,
)

pytestmark = pytest.mark.slow


def stored_queries():
    with KnowledgeBase.open(NAME) as kb:
        return list(
            kb.db.execute("SELECT q.text, l.key, q.split, q.source FROM queries q JOIN labels l ON l.id = q.label_id")
        )


def test_sessions_suggest_import_update(tmp_path):
    truth = build_domain()
    train_tiny_encoder(max_steps=20)  # a prior that session data can improve on
    outcome = log_sessions(SimulatedDesk(), truth["sessions"])
    assert outcome["finished"] and outcome["failed"] + outcome["active"] >= 8
    with KnowledgeBase.open(NAME) as kb:
        data = collect_sessions(kb, kb.load_domain())
    assert len(data.labelled) == outcome["finished"] and len(data.pool) == outcome["failed"] + outcome["active"]
    assert sum(len(v) for v in data.negatives.values()) == outcome["failed"]

    # the active step: an MTurk labelling batch of the most uncertain pool queries
    batch, layout = tmp_path / "tasks.csv", tmp_path / "layout.html"
    args = ["learn", "suggest", NAME, "--k", "6", "--out", str(batch), "--samples", "5", "--layout", str(layout)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(batch.open(encoding="utf-8")))
    assert len(rows) == 6 and {r["query"] for r in rows} <= set(data.pool)
    assert rows[0]["label_1"] and rows[0]["label_name_1"] and 'name="label"' in layout.read_text()

    # workers answer, and the existing importer reads the picks back as labelled training queries
    results = tmp_path / "results.csv"
    truth_of = {query: key for key, query in truth["sessions"]}
    offered = answer_batch(batch, results, truth_of, workers=1)
    imported = CliRunner().invoke(main, ["import", "mturk", str(results), "--domain", NAME, "--kind", "queries"])
    assert imported.exit_code == 0, imported.output
    crowd = [q for q in stored_queries() if q[0] in truth_of]
    assert len(crowd) == offered and all(split == "train" and truth_of[text] == key for text, key, split, _ in crowd)

    # a model that is not better on dev changes nothing: neither the checkpoint nor the store
    path = encoder_checkpoint_path(NAME)
    weights, before_store = path.with_suffix(".pt").read_bytes(), stored_queries()
    _, report = collect(
        update(NAME, train_config=replace(TINY_ENCODER, max_steps=1, eval_every=1), retrain_policies=False)
    )
    assert report["kept"] == "old" and report["after"]["dev_acc1"] <= report["before"]["dev_acc1"]
    assert path.with_suffix(".pt").read_bytes() == weights and stored_queries() == before_store

    # the real update: better on dev, so kept; session queries stored for training only
    records, report = collect(update(NAME, train_config=TINY_ENCODER, retrain_policies=False))
    assert records and report["kept"] == "new", report
    assert report["after"]["dev_acc1"] > report["before"]["dev_acc1"]
    assert 0 <= report["after"]["test_acc1"] <= 1 and report["labelled_sessions"] == outcome["finished"]
    rows = stored_queries()
    learned = [q for q in rows if q[3] in (SESSION_SOURCE, PSEUDO_SOURCE)]
    assert len(learned) == report["labelled_sessions"] + report["pseudo_labelled"]
    assert all(split == "train" for _, _, split, _ in learned)
    held_out = {text for text, _, split, _ in rows if split != "train"}
    assert not held_out & {text for text, *_ in learned}
    registry = ModelRegistry(NAME)
    assert registry.encoder is not None  # the new checkpoint matches the store: not stale
    assert registry.domain.meta["learning_updates"] == "1"
