"""The SQLite knowledge base: one file per domain, via sqlite-utils.

Tables: labels (+ label_answers), questions, annotations, queries, imports (one row per imported file),
sessions and turns (conversation log), meta (key/value) and schema_version. WAL mode and foreign keys are
on; every statement is parameterised. Opening an older file migrates it after copying it to
``<file>.bak-v<old version>``.

``KnowledgeBase.load_domain()`` reads everything the engine needs into a ``Domain`` in one call.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assistant import paths
from assistant.errors import DomainNotFoundError, StoreError
from assistant.store.arrays import arrays_dir, data_stamp, mark_changed, stamp_matches
from assistant.store.connection import BusyListener, begin_immediate, check_integrity, open_database, translated_errors
from assistant.store.domain import Domain, Label, Question
from assistant.store.loading import read_domain
from assistant.store.reviews import QuestionReview, read_reviews, write_review
from assistant.store.schema import MIGRATIONS, SCHEMA_VERSION
from assistant.store.stats import knowledge_base_stats


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class KnowledgeBase:
    """One domain's SQLite file. Use one instance per thread (SQLite connections are per thread).

    Opening checks the file (``PRAGMA quick_check``) and refuses a damaged one; every write takes the write
    lock up front and waits for another program's transaction (see ``assistant.store.connection``), telling
    ``on_busy`` (the CLI prints it, the GUI shows it) while it waits.

    >>> kb = KnowledgeBase.open("faq")          # doctest: +SKIP
    >>> domain = kb.load_domain()               # doctest: +SKIP
    """

    def __init__(self, path: str | Path, name: str | None = None, on_busy: BusyListener | None = None) -> None:
        self.path = Path(path)
        self.name = name or self.path.stem
        self.on_busy = on_busy
        self.db = open_database(self.path, self.name, self._arrays_current)
        try:
            self._migrate()
        except BaseException:
            self.db.close()
            raise

    # ---- opening -----------------------------------------------------------------------------------
    @classmethod
    def open(cls, name: str, on_busy: BusyListener | None = None) -> KnowledgeBase:
        """Open the built domain ``name``; raise DomainNotFoundError if it has not been built."""
        path = paths.domain_db_path(name)
        if not path.exists():
            raise DomainNotFoundError(
                f"domain {name!r} is not built yet: run `clarify domain build {name}` "
                "(or `clarify domain list` to see what is available)"
            )
        return cls(path, name, on_busy)

    @classmethod
    def create(cls, name: str, on_busy: BusyListener | None = None) -> KnowledgeBase:
        """Open domain ``name``, creating an empty knowledge base file if needed."""
        return cls(paths.domain_db_path(name), name, on_busy)

    def close(self) -> None:
        self.db.close()

    def _arrays_current(self, db: Any) -> bool:
        return stamp_matches(arrays_dir(self.path, self.name), data_stamp(db))

    def check_whole_file(self) -> None:
        """``PRAGMA quick_check`` over the whole file (opening may have left out the tables the domain's arrays
        stand for): before those tables are read. Once while the file is unchanged."""
        with translated_errors(self.path, self.name):
            check_integrity(self.db, self.path, self.name)

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- schema ------------------------------------------------------------------------------------
    @property
    def schema_version(self) -> int:
        if "schema_version" not in self.db.table_names():
            return 0
        row = self.db.execute("SELECT MAX(version) FROM schema_version").fetchone()
        return int(row[0] or 0)

    def _migrate(self) -> None:
        current = self.schema_version
        if current > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} was written by a newer Clarify (schema {current}, this one knows {SCHEMA_VERSION}): "
                "upgrade Clarify to open it"
            )
        if current == SCHEMA_VERSION:
            return
        if current > 0:
            self.backup(self.path.with_name(f"{self.path.name}.bak-v{current}"))
        with self.transaction():
            current = self.schema_version  # another program may have migrated while this one waited
            if current == 0:
                self.db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL, applied_at TEXT NOT NULL)")
            for version in range(current + 1, SCHEMA_VERSION + 1):
                MIGRATIONS[version](self.db)
                self.db.execute("INSERT INTO schema_version (version, applied_at) VALUES (?, ?)", [version, utc_now()])

    def backup(self, target: str | Path) -> Path:
        """Copy the whole database (consistently, via SQLite's backup API) to ``target``, atomically."""
        from models.errors import CheckpointError
        from models.files import atomic_write

        def write(tmp: str) -> None:
            dest = sqlite3.connect(tmp)
            try:
                with dest:
                    self.db.conn.backup(dest)
            finally:
                dest.close()

        target = Path(target)
        try:
            atomic_write(target, write)
        except CheckpointError as exc:
            raise StoreError(str(exc)) from exc
        return target

    @contextmanager
    def transaction(self) -> Iterator[KnowledgeBase]:
        """All-or-nothing block: everything written inside commits together or not at all.

        The outermost block takes the write lock up front (BEGIN IMMEDIATE), waiting for another program's
        transaction (StoreBusyError after ``connection.WRITE_WAIT_SECONDS``); nested blocks are savepoints.
        SQLite's errors (disk full, read-only, damaged) become StoreErrors; nothing is written then.
        """
        conn = self.db.conn
        if conn.in_transaction:
            with self.db.atomic():
                yield self
            return
        with translated_errors(self.path, self.name):
            begin_immediate(conn, self.path, self.on_busy)
            try:
                yield self
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            try:
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    def dump(self) -> str:
        """The whole content as SQL text (deterministic; used to prove a failed import changed nothing)."""
        return "\n".join(self.db.conn.iterdump())

    # ---- meta --------------------------------------------------------------------------------------
    def get_meta(self) -> dict[str, str]:
        return {row[0]: row[1] for row in self.db.execute("SELECT key, value FROM meta")}

    def set_meta(self, **values: str | int | float | bool) -> None:
        with self.transaction():
            for key, value in values.items():
                text = json.dumps(value) if isinstance(value, bool) else str(value)
                self.db.execute(
                    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    [key, text],
                )

    # ---- writing -----------------------------------------------------------------------------------
    def upsert_labels(self, labels: Iterable[Label], source: str) -> dict[str, int]:
        """Insert or update labels by key (answers replaced); return {key: id}.

        A new label goes last and gets ``source``; an existing one keeps its position and source.
        """
        labels = list(labels)
        with self.transaction():
            mark_changed(self.db)
            kept = {
                key: (position, old_source)
                for key, position, old_source in self.db.execute("SELECT key, position, source FROM labels")
            }
            start = max((pos for pos, _ in kept.values()), default=-1) + 1
            records: list[dict[str, Any]] = []
            for label in labels:
                position, label_source = kept.get(label.key) or (start + len(records), source)
                records.append(
                    {
                        "key": label.key,
                        "name": label.name,
                        "text": label.text,
                        "position": position,
                        "source": label_source,
                    }
                )
            self.db.table("labels").upsert_all(records, pk="key")
            ids = self.label_ids()
            for label in labels:
                label_id = ids[label.key]
                stored = self.db.execute(
                    "SELECT text FROM label_answers WHERE label_id = ? ORDER BY position", [label_id]
                ).fetchall()
                if tuple(t for (t,) in stored) == tuple(label.answers):
                    continue  # unchanged: keep the rows (and their ids) as they are
                self.db.execute("DELETE FROM label_answers WHERE label_id = ?", [label_id])
                self.db.table("label_answers").insert_all(
                    {"label_id": label_id, "position": position, "text": text}
                    for position, text in enumerate(label.answers)
                )
        return self.label_ids()

    def upsert_questions(self, questions: Iterable[Question], source: str) -> dict[str, int]:
        """Insert or update questions by tag; return {tag: id}. A new question goes last."""
        with self.transaction():
            mark_changed(self.db)
            kept = dict(self.db.execute("SELECT tag, position FROM questions"))
            start = max(kept.values(), default=-1) + 1
            records: list[dict[str, Any]] = []
            for q in questions:
                position = kept.get(q.tag, start + len(records))
                records.append(
                    {
                        "tag": q.tag,
                        "text": q.text,
                        "kind": q.kind,
                        "group_name": q.group,
                        "options": json.dumps(list(q.options)),
                        "induced": int(q.induced),
                        "position": position,
                        "source": source,
                    }
                )
            self.db.table("questions").upsert_all(records, pk="tag")
        return self.question_ids()

    def add_annotations(
        self, rows: Iterable[tuple[int, int, str, float, str, str, str]], import_id: int | None = None
    ) -> int:
        """Insert (label_id, question_id, answer, count, source, worker, task) rows; existing ones are kept.

        Returns how many rows were new. Re-adding the same rows changes nothing (idempotent).
        """
        with self.transaction():
            mark_changed(self.db)
            before = self.db.conn.total_changes
            self.db.conn.executemany(
                """INSERT INTO annotations (label_id, question_id, answer, count, source, worker, task, import_id)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT(label_id, question_id, answer, source, worker, task) DO NOTHING""",
                [(*row, import_id) for row in rows],
            )
            return self.db.conn.total_changes - before

    def add_queries(self, rows: Iterable[tuple[int, str, str, str, str]], import_id: int | None = None) -> int:
        """Insert (label_id, text, split, source, worker) rows; a text already given for a label is kept."""
        with self.transaction():
            mark_changed(self.db)
            before = self.db.conn.total_changes
            self.db.conn.executemany(
                """INSERT INTO queries (label_id, text, split, source, worker, import_id) VALUES (?, ?, ?, ?, ?, ?)
                   ON CONFLICT(label_id, text) DO NOTHING""",
                [(*row, import_id) for row in rows],
            )
            return self.db.conn.total_changes - before

    def delete_annotations(self, question_ids: Iterable[int], source: str) -> int:
        """Delete annotations of ``source`` for the given questions; return how many rows went."""
        ids = list(question_ids)
        with self.transaction():
            mark_changed(self.db)
            before = self.db.conn.total_changes
            self.db.conn.executemany(
                "DELETE FROM annotations WHERE question_id = ? AND source = ?", [(i, source) for i in ids]
            )
            return self.db.conn.total_changes - before

    def record_import(self, sha256: str, kind: str, fmt: str, filename: str, report: dict) -> int:
        with self.transaction():
            cursor = self.db.execute(
                "INSERT INTO imports (sha256, kind, format, filename, imported_at, report) VALUES (?, ?, ?, ?, ?, ?)",
                [sha256, kind, fmt, filename, utc_now(), json.dumps(report, sort_keys=True)],
            )
            assert cursor.lastrowid is not None  # an INSERT's cursor has its row's id
            return int(cursor.lastrowid)

    def find_import(self, sha256: str, kind: str) -> dict | None:
        row = self.db.execute(
            "SELECT id, filename, imported_at, report FROM imports WHERE sha256 = ? AND kind = ?",
            [sha256, kind],
        ).fetchone()
        if row is None:
            return None
        return {"id": row[0], "filename": row[1], "imported_at": row[2], "report": json.loads(row[3])}

    def set_question_induced(self, question_ids: Iterable[int], induced: bool) -> None:
        with self.transaction():
            mark_changed(self.db)
            self.db.conn.executemany(
                "UPDATE questions SET induced = ? WHERE id = ?", [(int(induced), i) for i in question_ids]
            )

    def set_import_report(self, import_id: int, report: dict) -> None:
        self.db.execute("UPDATE imports SET report = ? WHERE id = ?", [json.dumps(report, sort_keys=True), import_id])

    def replace_heldout_answers(self, rows: Iterable[tuple[int, int, str, float]]) -> None:
        """Replace every held-out answer probability with (question_id, label_id, answer, probability) rows:
        what the simulated user answers, from data the agent does not learn from (see assistant.simulation)."""
        with self.transaction():
            mark_changed(self.db)
            self.db.execute("DELETE FROM heldout_answers")
            self.db.conn.executemany(
                "INSERT INTO heldout_answers (question_id, label_id, answer, probability) VALUES (?, ?, ?, ?)",
                list(rows),
            )

    # ---- reading -----------------------------------------------------------------------------------
    def replace_out_of_scope_queries(self, rows: Iterable[tuple[str, str]], source: str) -> None:
        """Replace the ``source`` queries that no label answers with ``rows`` (text, split)."""
        self.db.execute("DELETE FROM out_of_scope_queries WHERE source = ?", [source])
        self.db.conn.executemany(
            "INSERT OR IGNORE INTO out_of_scope_queries (text, split, source) VALUES (?, ?, ?)",
            [(text, split, source) for text, split in rows],
        )

    def label_ids(self) -> dict[str, int]:
        return {k: i for k, i in self.db.execute("SELECT key, id FROM labels ORDER BY position")}

    def question_ids(self) -> dict[str, int]:
        return {t: i for t, i in self.db.execute("SELECT tag, id FROM questions ORDER BY position")}

    def labels(self) -> list[Label]:
        answers: dict[int, list[str]] = {}
        for label_id, text in self.db.execute("SELECT label_id, text FROM label_answers ORDER BY label_id, position"):
            answers.setdefault(label_id, []).append(text)
        return [
            Label(key=key, name=name, text=text, answers=tuple(answers.get(label_id, ())))
            for label_id, key, name, text in self.db.execute("SELECT id, key, name, text FROM labels ORDER BY position")
        ]

    def questions(self) -> list[Question]:
        return [
            Question(
                tag=tag,
                text=text,
                kind=kind,
                group=group,
                options=tuple(json.loads(options)),
                induced=bool(induced),
            )
            for tag, text, kind, group, options, induced in self.db.execute(
                "SELECT tag, text, kind, group_name, options, induced FROM questions ORDER BY position"
            )
        ]

    def is_empty(self) -> bool:
        """Whether the knowledge base holds no labels (a file created but never built or imported into)."""
        return self.db.execute("SELECT 1 FROM labels LIMIT 1").fetchone() is None

    def lacks_heldout_answers(self) -> bool:
        """Whether the domain has induced questions but no held-out answers for the simulated user (built by a
        Clarify from before schema 2: rebuilding a bundled domain adds them and keeps everything else)."""
        induced = self.db.execute("SELECT COUNT(*) FROM questions WHERE induced = 1").fetchone()[0]
        return bool(induced) and not self.db.execute("SELECT 1 FROM heldout_answers LIMIT 1").fetchone()

    def query_keys(self) -> set[tuple[str, str]]:
        """(label key, query text) of every stored query."""
        return set(self.db.execute("SELECT l.key, q.text FROM queries q JOIN labels l ON l.id = q.label_id"))

    def query_sources(self) -> list[str]:
        """Every stored query's source, in the order the queries were stored (a Domain's query order)."""
        return [source for (source,) in self.db.execute("SELECT source FROM queries ORDER BY id")]

    def delete_queries(self, source: str) -> int:
        """Delete every query from ``source`` (e.g. the pseudo-labels of the last update); returns how many."""
        with self.transaction():
            mark_changed(self.db)
            return self.db.execute("DELETE FROM queries WHERE source = ?", [source]).rowcount

    def is_held_out_text(self, text: str) -> bool:
        """Whether ``text`` is a stored dev or test query (never to become a training query)."""
        sql = "SELECT 1 FROM queries WHERE text = ? AND split != 'train' LIMIT 1"
        return self.db.execute(sql, [text]).fetchone() is not None

    def label_answers(self, tag: str, source: str) -> list[tuple[str, str, float]]:
        """(label key, answer, count) of every annotation of question ``tag`` from ``source``."""
        sql = """SELECT l.key, a.answer, a.count FROM annotations a JOIN labels l ON l.id = a.label_id
                 JOIN questions q ON q.id = a.question_id WHERE q.tag = ? AND a.source = ?"""
        return list(self.db.execute(sql, [tag, source]))

    def annotation_keys(self, source: str) -> set[tuple[str, str, str, str, str]]:
        """(label key, tag, answer, worker, task) of every annotation from ``source``."""
        return set(
            self.db.execute(
                """SELECT l.key, q.tag, a.answer, a.worker, a.task FROM annotations a
                   JOIN labels l ON l.id = a.label_id JOIN questions q ON q.id = a.question_id WHERE a.source = ?""",
                [source],
            )
        )

    def counts(self) -> dict[str, int]:
        """Row counts of the main tables."""
        tables = ("labels", "questions", "annotations", "queries", "imports", "sessions")
        return {t: int(self.db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]) for t in tables}

    def load_domain(self, reviewed: bool = True) -> Domain:
        """Read the whole domain into arrays (a handful of queries, no per-row round trips). ``reviewed``: as the
        desk reviewed its questions (hidden ones left out, rewordings applied; assistant.store.reviews)."""
        return read_domain(self, reviewed)

    def question_reviews(self) -> dict[str, QuestionReview]:
        """The desk's review of each reviewed question, by tag."""
        return read_reviews(self.db)

    def save_question_review(self, review: QuestionReview) -> None:
        """Store the review of one question (all-or-nothing)."""
        with self.transaction():
            write_review(self.db, review, utc_now())

    def stats(self) -> dict:
        """The figures `clarify domain stats` prints."""
        return knowledge_base_stats(self)


def built_domains() -> list[str]:
    """Names of the domains that have a knowledge base file under CLARIFY_HOME."""
    return sorted(p.stem for p in paths.domains_dir().glob("*.db"))
