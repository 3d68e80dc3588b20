"""Helpers for the crowdsourcing tests: a tiny banking domain, the fixture folder, database dumps."""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path

from assistant import paths
from assistant.store import KnowledgeBase, Label, Question

DATA = Path(__file__).resolve().parents[1] / "data" / "crowd"

LABELS = [
    Label("card_arrival", "Card arrival", "My new card has not arrived yet", ("Cards arrive within 5 working days.",)),
    Label("lost_or_stolen_card", "Lost or stolen card", "I lost my card or it was stolen"),
    Label("exchange_rate", "Exchange rate", "Which exchange rate do you use?"),
    Label("top_up_failed", "Top up failed", "My top-up did not go through"),
]
QUESTIONS = [
    Question("card delivery", "Is it about card delivery?", "binary", "card delivery", ("yes", "no"), induced=True),
    Question("foreign currency", "Is it about foreign currency?", "binary", "foreign currency", ("yes", "no"), True),
    Question("lost card", "Is it about a lost card?", "binary", "lost card", ("yes", "no")),
    Question("top up", "Is it about topping up?", "binary", "top up", ("yes", "no")),
    Question("card type", "Which card type is it?", "choice", "card type", ("visa", "mastercard")),
]
# (label key, tag, answer, count): induced pseudo-annotations for the two induced questions
INDUCED = [
    (label.key, tag, answer, count)
    for label in LABELS
    for tag in ("card delivery", "foreign currency")
    for answer, count in (("yes", 5.0), ("no", 5.0))
]
CROWD = [("lost_or_stolen_card", "lost card", "yes", 3.0), ("top_up_failed", "top up", "yes", 2.0)]
QUERIES = [
    ("card_arrival", "where is my card", "train"),
    ("card_arrival", "card still not delivered", "train"),
    ("lost_or_stolen_card", "i cannot find my card", "train"),
    ("exchange_rate", "what rate for euros", "train"),
    ("top_up_failed", "top up did not work", "test"),
]


def build_bank(name: str = "bank") -> str:
    """Create the tiny 'bank' domain: 4 labels, 4 binary (2 induced) + 1 choice question, a few queries."""
    with KnowledgeBase.create(name) as kb, kb.transaction():
        label_ids = kb.upsert_labels(LABELS, source="test")
        question_ids = kb.upsert_questions(QUESTIONS, source="test")
        kb.add_annotations((label_ids[k], question_ids[t], a, c, "induced", "", "") for k, t, a, c in INDUCED)
        kb.add_annotations((label_ids[k], question_ids[t], a, c, "bundled", "", "") for k, t, a, c in CROWD)
        kb.add_queries((label_ids[k], text, split, "bundled", "") for k, text, split in QUERIES)
        kb.set_meta(title="Tiny bank")
    return name


def dump(name: str) -> str:
    """The whole database of domain ``name`` as SQL text ('' when the domain file does not exist)."""
    path = paths.domain_db_path(name)
    if not path.exists():
        return ""
    with KnowledgeBase(path, name) as kb:
        return kb.dump()


MTURK_META = ["HITId", "HITTypeId", "Title", "AssignmentId", "WorkerId", "AssignmentStatus", "WorkTimeInSeconds"]


def simulate_mturk(
    tasks_csv: Path,
    out: Path,
    workers: list[str],
    answer: Callable[[str, dict[str, str]], dict[str, str]],
) -> Path:
    """Turn an exported task batch into MTurk-style batch results, the way the requester site does.

    Each input variable ``x`` becomes ``Input.x``; each worker answers every HIT; ``answer(worker, task)``
    returns the worker's form fields (e.g. {"selected": "a|b"}), which become ``Answer.*`` columns.
    """
    with tasks_csv.open(encoding="utf-8", newline="") as handle:
        tasks = list(csv.DictReader(handle))
    inputs = [f"Input.{name}" for name in tasks[0]]
    rows, answer_columns = [], []
    for h, task in enumerate(tasks):
        for w, worker in enumerate(workers):
            row = {
                "HITId": f"3HIT{h:026d}",
                "HITTypeId": "3TYPE00000000000000000000000",
                "Title": "Clarify task",
                "AssignmentId": f"3ASG{h:013d}{w:013d}",
                "WorkerId": worker,
                "AssignmentStatus": "Submitted",
                "WorkTimeInSeconds": "30",
            }
            row.update({f"Input.{k}": v for k, v in task.items()})
            fields = answer(worker, task)
            for key, value in fields.items():
                column = f"Answer.{key}"
                if column not in answer_columns:
                    answer_columns.append(column)
                row[column] = value
            rows.append(row)
    with out.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=MTURK_META + inputs + answer_columns, quoting=csv.QUOTE_ALL)
        writer.writeheader()
        writer.writerows(rows)
    return out
