"""The labels-only protocol's domains: built from the label texts alone, with the real test queries attached
apart (never trained or tuned on), and simulated confirmed sessions from the training queries."""

from __future__ import annotations

import pytest

from assistant.app.research.labels_only import (
    REAL_TEST_SOURCE,
    build_labels_only_job,
    confirmed_sessions,
    protocol_entries,
)
from assistant.errors import ConfigError
from assistant.progress import run_job
from assistant.store import KnowledgeBase


@pytest.mark.slow
def test_faq_from_its_titles_and_answers_keeps_its_real_test_queries_apart():
    stats = run_job(build_labels_only_job("faq"))
    assert (
        stats["name"] == "faq-texts"
        and stats["labels"] == 125
        and stats["annotations_by_source"] == {"induced": stats["annotations"]}
    )
    with KnowledgeBase.open("faq-texts") as kb:
        sources = dict(kb.db.execute("SELECT source || '/' || split, COUNT(*) FROM queries GROUP BY 1").fetchall())
        oos = dict(
            kb.db.execute("SELECT source || '/' || split, COUNT(*) FROM out_of_scope_queries GROUP BY 1").fetchall()
        )
    assert set(sources) == {"synthesized/train", "synthesized/dev", f"{REAL_TEST_SOURCE}/test"}
    assert sources[f"{REAL_TEST_SOURCE}/test"] == 375  # faq's crowd test queries, played by `clarify evaluate`
    assert set(oos) == {"synthesized/dev", f"{REAL_TEST_SOURCE}/test"}
    assert confirmed_sessions("faq-texts", "faq", 50) == 50
    with KnowledgeBase.open("faq-texts") as kb:
        rows = kb.db.execute("SELECT split, COUNT(*) FROM queries WHERE source = 'session' GROUP BY split").fetchall()
    assert rows == [("train", 50)]


def test_banking_with_five_examples_per_intent():
    entries, queries, out_of_scope = protocol_entries("banking", k=5)
    assert len(entries) == 77 and all(len(e.description.split("\n")) == 5 for e in entries)
    train = {(key, text) for key, text, split in queries if split == "train"}
    assert all((e.key, t) in train for e in entries for t in e.description.split("\n"))
    assert {s for _t, s in out_of_scope} == {"dev", "test"}
    with pytest.raises(ConfigError, match="--k 5"):
        protocol_entries("banking")
