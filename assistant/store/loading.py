"""Reading a whole knowledge base into the in-memory ``Domain`` (labels, questions, annotation counts as a
[Q, R, Y] array, queries, held-out answers) in a handful of queries, checking what the engine relies on:
every answer is an option of its question, and every count is finite and non-negative. The arrays come from
the domain's array files while those stand for what SQLite holds (``assistant.store.arrays``)."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from assistant.errors import StoreError
from assistant.store.arrays import DomainArrays, arrays_dir, data_stamp, read_arrays, write_arrays
from assistant.store.domain import Domain, Label, Question
from assistant.store.reviews import read_reviews, reviewed, visible
from models.errors import CheckpointError


class DomainSource(Protocol):
    """What ``read_domain`` needs of a ``KnowledgeBase``."""

    name: str
    path: Path
    db: Any

    def check_whole_file(self) -> None: ...

    def labels(self) -> list[Label]: ...

    def questions(self) -> list[Question]: ...

    def get_meta(self) -> dict[str, str]: ...


def read_domain(kb: DomainSource, reviewed: bool = True) -> Domain:
    """``kb``'s whole domain (see the module docstring); StoreError, saying what to do, for what cannot be used.
    ``reviewed``: as the desk's review wants it (hidden questions left out, texts and options as reworded;
    assistant.store.reviews); False: every stored question as stored (crowd exports and imports).

    The arrays come from the domain's array files where they were read from what SQLite holds now
    (``assistant.store.arrays``); otherwise from SQLite, after the whole file passed its check, and they are
    written as arrays for the next process."""
    conn = kb.db.conn
    outer = conn.in_transaction
    with contextlib.nullcontext() if outer else _snapshot(conn):
        labels = kb.labels()
        questions = kb.questions()
        if not labels:
            raise StoreError(
                f"domain {kb.name!r} has no labels: build it with `clarify domain build {kb.name}` "
                "or import labels first"
            )
        stamp = data_stamp(kb.db)
        shape = (len(questions), max((len(q.options) for q in questions), default=2), len(labels))
        folder = arrays_dir(kb.path, kb.name)
        stored = read_arrays(folder, stamp, shape)
        from_sqlite = stored is None
        if stored is None:
            kb.check_whole_file()
            stored = _arrays_from_sqlite(kb, labels, questions)
        meta = kb.get_meta()
        out_of_scope = list(kb.db.execute("SELECT text, split FROM out_of_scope_queries ORDER BY id"))
    # inside the caller's transaction the rows read may still be rolled back: the arrays wait for the next read
    if from_sqlite and stamp is not None and folder is not None and not outer:
        with contextlib.suppress(OSError, CheckpointError):  # only a shortcut: the next process reads SQLite again
            write_arrays(folder, stamp, stored)
    counts, heldout = stored.counts, stored.heldout
    if reviewed:
        questions, counts, heldout = _apply_reviews(kb, questions, counts, heldout)
    return Domain(
        name=kb.name,
        title=meta.get("title", kb.name),
        labels=labels,
        questions=questions,
        counts=counts,
        query_texts=stored.query_texts,
        query_labels=stored.query_labels,
        query_splits=stored.query_splits,
        supports_not_visible=meta.get("supports_not_visible", "false") == "true",
        meta=meta,
        heldout_answers=heldout,
        out_of_scope_texts=[text for text, _ in out_of_scope],
        out_of_scope_splits=np.array([split for _, split in out_of_scope], dtype="<U5"),
    )


def _arrays_from_sqlite(kb: DomainSource, labels: list[Label], questions: list[Question]) -> DomainArrays:
    """The annotation counts, held-out answers and queries as SQLite holds them, checked."""
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
    answered = np.zeros_like(counts)
    any_heldout = False
    for qid, lid, answer, probability in kb.db.execute(
        "SELECT question_id, label_id, answer, probability FROM heldout_answers"
    ):  # read as they come (a large FAQ's millions of rows are never a list at once)
        any_heldout = True
        found = slot.get((qid, answer))
        if found is not None:
            answered[found[0], found[1], label_pos[lid]] = probability
    return DomainArrays(
        counts=counts,
        heldout=answered if any_heldout else None,
        query_texts=texts,
        query_labels=np.array(query_labels, dtype=np.int64),
        query_splits=np.array(splits, dtype="<U5"),
    )


@contextlib.contextmanager
def _snapshot(conn: sqlite3.Connection) -> Iterator[None]:
    """One read transaction: the stamp and the rows read under it are of the same moment (WAL readers see the
    file as it was when the transaction began, whatever another program commits meanwhile)."""
    conn.execute("BEGIN")
    try:
        yield
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")


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
