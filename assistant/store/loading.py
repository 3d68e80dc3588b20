"""Reading a whole knowledge base into the in-memory ``Domain`` (labels, questions, annotation counts as a
[Q, R, Y] array, queries, held-out answers) in a handful of queries, checking what the engine relies on:
every answer is an option of its question, and every count is finite and non-negative."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from assistant.errors import StoreError
from assistant.store.domain import Domain, Label, Question
from assistant.store.reviews import read_reviews, reviewed, visible


class DomainSource(Protocol):
    """What ``read_domain`` needs of a ``KnowledgeBase``."""

    name: str
    db: Any

    def labels(self) -> list[Label]: ...

    def questions(self) -> list[Question]: ...

    def get_meta(self) -> dict[str, str]: ...


def read_domain(kb: DomainSource, reviewed: bool = True) -> Domain:
    """``kb``'s whole domain (see the module docstring); StoreError, saying what to do, for what cannot be used.
    ``reviewed``: as the desk's review wants it (hidden questions left out, texts and options as reworded;
    assistant.store.reviews); False: every stored question as stored (crowd exports and imports)."""
    labels = kb.labels()
    questions = kb.questions()
    if not labels:
        raise StoreError(
            f"domain {kb.name!r} has no labels: build it with `clarify domain build {kb.name}` or import labels first"
        )
    label_pos = {lid: i for i, (lid,) in enumerate(kb.db.execute("SELECT id FROM labels ORDER BY position"))}
    q_rows = list(kb.db.execute("SELECT id FROM questions ORDER BY position"))
    question_pos = {qid: i for i, (qid,) in enumerate(q_rows)}
    # (question id, answer) -> (question, option): one lookup per row (a large FAQ has millions of rows, issue 33)
    slot = {(qid, opt): (q, r) for qid, q in question_pos.items() for r, opt in enumerate(questions[q].options)}
    r_max = max((len(q.options) for q in questions), default=2)
    counts = np.zeros((len(questions), r_max, len(labels)), dtype=np.float32)
    for qid, lid, answer, total in kb.db.execute(
        "SELECT question_id, label_id, answer, SUM(count) FROM annotations GROUP BY question_id, label_id, answer"
    ):
        found = slot.get((qid, answer))
        if found is None:
            raise StoreError(
                f"domain {kb.name!r}: annotation answer {answer!r} is not an option of question "
                f"{questions[question_pos[qid]].tag!r}; rebuild the domain or re-import the annotations"
            )
        counts[found[0], found[1], label_pos[lid]] = total
    if not np.isfinite(counts).all() or (counts < 0).any():  # written by a Clarify that did not check counts
        raise StoreError(
            f"domain {kb.name!r} holds annotation counts that are negative or too large for the answer model: "
            "delete the import that brought them (see `clarify domain stats`) or rebuild the domain"
        )
    texts, query_labels, splits = [], [], []
    for lid, text, split in kb.db.execute("SELECT label_id, text, split FROM queries ORDER BY id"):
        texts.append(text)
        query_labels.append(label_pos[lid])
        splits.append(split)
    out_of_scope = list(kb.db.execute("SELECT text, split FROM out_of_scope_queries ORDER BY id"))
    answered = np.zeros_like(counts)
    any_heldout = False
    for qid, lid, answer, probability in kb.db.execute(
        "SELECT question_id, label_id, answer, probability FROM heldout_answers"
    ):  # read as they come (a large FAQ's millions of rows are never a list at once)
        any_heldout = True
        found = slot.get((qid, answer))
        if found is not None:
            answered[found[0], found[1], label_pos[lid]] = probability
    heldout = answered if any_heldout else None
    if reviewed:
        questions, counts, heldout = _apply_reviews(kb, questions, counts, heldout)
    meta = kb.get_meta()
    return Domain(
        name=kb.name,
        title=meta.get("title", kb.name),
        labels=labels,
        questions=questions,
        counts=counts,
        query_texts=texts,
        query_labels=np.array(query_labels, dtype=np.int64),
        query_splits=np.array(splits, dtype="<U5"),
        supports_not_visible=meta.get("supports_not_visible", "false") == "true",
        meta=meta,
        heldout_answers=heldout,
        out_of_scope_texts=[text for text, _ in out_of_scope],
        out_of_scope_splits=np.array([split for _, split in out_of_scope], dtype="<U5"),
    )


def _apply_reviews(kb: DomainSource, questions: list[Question], counts: np.ndarray, heldout: np.ndarray | None):
    """The questions, counts and held-out answers without hidden questions, with reworded texts and options."""
    reviews = read_reviews(kb.db)
    if not reviews:
        return questions, counts, heldout
    keep = visible(questions, reviews)
    kept = [reviewed(questions[q], reviews.get(questions[q].tag)) for q in keep]
    r_max = max((len(q.options) for q in kept), default=2)
    counts = counts[keep][:, :r_max]
    heldout = None if heldout is None else heldout[keep][:, :r_max]
    return kept, counts, heldout
