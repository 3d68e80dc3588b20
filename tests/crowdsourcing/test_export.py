"""Task export: relevance ranking, the MTurk input CSV, and the export -> MTurk -> import round trip."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from assistant.errors import ConfigError
from assistant.progress import run_job
from assistant.store import KnowledgeBase
from crowdsourcing.export import export_tasks, mturk_layout, tag_columns, tag_tasks
from crowdsourcing.importing import import_file
from crowdsourcing.scoring import BM25Scorer, label_queries_text, rank
from tests.support.crowd import simulate_mturk


def load(domain):
    with KnowledgeBase.open(domain) as kb:
        return kb.load_domain()


def read_rows(path):
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        return reader.fieldnames, list(reader)


def test_bm25_ranks_matching_tags_first():
    tags = ["exchange rate", "card delivery", "lost card", "top up"]
    documents = ["My new card has not arrived, is delivery late?", "What exchange rate do you use for euros?", "hello"]
    scores = BM25Scorer()(documents, tags)
    assert scores.shape == (3, 4)
    assert scores[0].argmax() == 1 and scores[1].argmax() == 0
    assert not scores[2].any()  # no shared word: all zero
    assert rank(scores, top=2) == [[1, 2], [0, 1], [0, 1]]  # ties keep the tags' order
    allowed = np.ones((3, 4), dtype=bool)
    allowed[0, 1] = False
    assert rank(scores, allowed, top=1)[0] == [2]
    with pytest.raises(ConfigError):
        BM25Scorer(b=2.0)


def test_label_documents_use_name_text_and_training_queries(bank):
    documents = label_queries_text(load(bank))
    assert documents[0].splitlines() == [
        "Card arrival",
        "My new card has not arrived yet",
        "where is my card",
        "card still not delivered",
    ]
    assert "top up did not work" not in documents[3]  # a test query stays out


def test_tag_tasks_layout_and_pluggable_scorer(bank, tmp_path):
    domain = load(bank)
    binary = [q.tag for q in domain.questions if q.kind == "binary"]

    def reverse_alphabetical(documents, tags):
        order = np.argsort(np.argsort(tags))
        return np.tile(order.astype(float), (len(documents), 1))

    rows = tag_tasks(domain, per_label=3, per_task=2, scorer=reverse_alphabetical, skip_annotated=False)
    assert len(rows) == 2 * domain.num_labels  # 3 tags per label, 2 per task -> 2 rows
    assert [rows[0]["tag_1"], rows[0]["tag_2"], rows[1]["tag_1"], rows[1]["tag_2"]] == [
        *sorted(binary, reverse=True)[:3],
        "",
    ]
    # crowd-annotated pairs (lost_or_stolen_card / lost card) are left out by default
    rows = tag_tasks(domain, per_label=50, scorer=reverse_alphabetical)
    lost = [r for r in rows if r["label"] == "lost_or_stolen_card"]
    assert "lost card" not in {v for r in lost for v in r.values()}
    with pytest.raises(ConfigError, match="returned shape"):
        tag_tasks(domain, scorer=lambda documents, tags: np.zeros((1, 1)))

    summary = export_tasks(domain, tmp_path / "tags.csv", "tags", per_label=50)
    header, written = read_rows(tmp_path / "tags.csv")
    assert header == tag_columns() == ["label", "label_name", "label_text"] + [f"tag_{i}" for i in range(1, 11)]
    assert summary["tasks"] == len(written) == domain.num_labels  # 4 binary tags fit in one HIT per label
    assert summary["scorer"] == "bm25"
    assert 'name="selected"' in mturk_layout("tags") and "${tag_10}" in mturk_layout("tags")
    with pytest.raises(ConfigError, match="does not exist"):
        export_tasks(domain, tmp_path / "missing" / "tags.csv")
    with pytest.raises(ConfigError, match="unknown task kind"):
        export_tasks(domain, tmp_path / "x.csv", "pictures")


def test_export_import_round_trip_for_tags(bank, tmp_path):
    export_tasks(load(bank), tmp_path / "tags.csv", "tags", per_label=50, skip_annotated=False)
    _, tasks = read_rows(tmp_path / "tags.csv")
    offered = sum(1 for task in tasks for k, v in task.items() if k.startswith("tag_") and v)

    def answer(worker, task):
        tags = [v for k, v in task.items() if k.startswith("tag_") and v]
        chosen = [t for t in tags if t.split()[0] in task["label_name"].lower()]  # e.g. "card ..." for Card arrival
        return {"selected": "|".join(chosen) or "none of the above"}

    results = simulate_mturk(tmp_path / "tags.csv", tmp_path / "results.csv", ["W1", "W2", "W3"], answer)
    report = run_job(import_file(results, bank, "mturk"))
    assert report.kind == "tags"
    assert report.added["annotations"] == 3 * offered
    assert report.added["questions"] == 0 and report.merged_tags == []
    assert report.agreement["overall"]["binary"]["observed_agreement"] == 1.0  # identical simulated workers
    assert report.induced_replaced["count"] == 2


def test_export_import_round_trip_for_choices_and_queries(bank, tmp_path):
    export_tasks(load(bank), tmp_path / "choices.csv", "choices")
    header, tasks = read_rows(tmp_path / "choices.csv")
    assert header == ["label", "label_name", "label_text", "question", "question_text", "options"]
    assert {t["options"] for t in tasks} == {"visa|mastercard"}
    results = simulate_mturk(
        tmp_path / "choices.csv",
        tmp_path / "choice_results.csv",
        ["W1", "W2"],
        lambda worker, task: {"choice": "visa" if worker == "W1" else "not applicable"},
    )
    report = run_job(import_file(results, bank, "mturk"))
    assert report.added["annotations"] == len(tasks)
    assert report.skipped["not_applicable"] == len(tasks)

    export_tasks(load(bank), tmp_path / "queries.csv", "queries")
    results = simulate_mturk(
        tmp_path / "queries.csv",
        tmp_path / "query_results.csv",
        ["W1"],
        lambda worker, task: {"query": f"question about {task['label_name'].lower()}"},
    )
    report = run_job(import_file(results, bank, "mturk"))
    assert report.kind == "queries" and report.added["queries"] == 4
    assert 'name="query"' in mturk_layout("queries") and 'name="choice"' in mturk_layout("choices")


def test_escape_sequences_from_a_query_never_reach_an_exported_csv(tmp_path):
    """Issue 41: a query's raw ESC and OSC (a title change, a hyperlink, colours) reached the CSV of handed-on
    queries, and from there any terminal that shows it."""
    from crowdsourcing.export import write_csv

    hostile = (
        "card \x1b]0;owned\x07lost \x1b]8;;https://evil.example\x1b\\here\x1b]8;;\x1b\\ \x1b[31mred\x1b[0m\x9b2J\r!"
    )
    out = write_csv([{"query": hostile, "note": "tab\tand\nnewline"}], ["query", "note"], tmp_path / "queries.csv")
    text = out.read_text(encoding="utf-8")
    assert not any(c in text for c in "\x1b\x07\x9b\r")
    assert "card lost here red!" in text and '"tab\tand\nnewline"' in text
