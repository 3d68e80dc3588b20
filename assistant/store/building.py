"""Writing a whole domain (labels, questions, annotations, queries, held-out answers, meta) from a data
set adapter's ``DomainData``, in one transaction.

Rebuilding is idempotent and keeps what was imported since: crowd annotations and queries stay, and
induced questions that crowd annotations replaced are not re-induced. A first build is written under a
temporary name and renamed into place (``new_knowledge_base``): a domain file exists only once it is built.

With ``exact_labels`` (a desk's own FAQ, re-imported after edits) the data says exactly which of its
``label_source`` labels exist: one it no longer has is deleted with its queries and annotations (sessions
keep their text; labels of other sources, e.g. made from the inbox, stay),
the queries and questions of the data's own sources that it no longer has go too, and every label it still
has keeps its row, its imported and learned queries and its place in the session log.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from assistant import paths
from assistant.errors import ConfigError
from assistant.store.arrays import mark_changed
from assistant.store.domain import Label, Question
from assistant.store.knowledge_base import KnowledgeBase, utc_now
from models.files import fsync_folder
from models.locks import pid_alive

BUILDING = ".building-"  # <name>.db.building-<pid>: a first build in progress (never matches *.db)
SQLITE_SIDE_FILES = ("", "-wal", "-shm", "-journal")


class CreatedMeanwhileError(ConfigError):
    """Another program created the domain between the check that it was new and its creation here."""


@contextlib.contextmanager
def new_knowledge_base(name: str, exclusive: bool = False) -> Iterator[KnowledgeBase]:
    """The knowledge base to build domain ``name`` into.

    A domain that exists is opened as it is (a rebuild is one transaction inside it). A new one is written
    under a temporary name beside where it belongs and linked into place only when the block ends without
    an error: a kill, a full disk or a failed check leaves no domain file at all, so the next launch builds
    again, instead of an empty knowledge base that looks built. If another program built the domain
    meanwhile, its file stays and this one is dropped; ``exclusive`` (a desk's own FAQ, whose contents are
    not the other program's) then raises CreatedMeanwhileError instead: the link that fails when the file
    exists is the one decision of which program created it.
    """
    final = paths.domain_db_path(name)
    if final.exists():
        if exclusive:
            raise _created_meanwhile(name)
        with KnowledgeBase.create(name) as kb:
            yield kb
        return
    _remove_abandoned_builds(final)
    tmp = final.with_name(f"{final.name}{BUILDING}{os.getpid()}")
    _remove(tmp)
    try:
        with KnowledgeBase(tmp, name) as kb:
            yield kb
        # closed: SQLite has moved the write-ahead log into the file and removed it
        paths.fault_point("domain-build:before-rename")
        try:
            os.link(tmp, final)
        except FileExistsError:  # built by another program meanwhile: theirs stays
            if exclusive:
                raise _created_meanwhile(name) from None
        fsync_folder(final.parent)
    finally:
        _remove(tmp)


def _created_meanwhile(name: str) -> CreatedMeanwhileError:
    return CreatedMeanwhileError(
        f"{name} was created by another program meanwhile; nothing written (see it with "
        f"`clarify domain stats {name}`, or choose another name)"
    )


def _remove(db: Path) -> None:
    for suffix in SQLITE_SIDE_FILES:
        with contextlib.suppress(FileNotFoundError):
            os.remove(f"{db}{suffix}")


def _remove_abandoned_builds(final: Path) -> None:
    """Remove the temporary files of first builds whose process is gone (killed, or the machine stopped)."""
    for path in final.parent.glob(f"{final.name}{BUILDING}*"):
        owner = path.name.removeprefix(f"{final.name}{BUILDING}").split("-")[0]
        if owner.isdigit() and not pid_alive(int(owner)):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()


@dataclass
class DomainData:
    """Everything an adapter produces for one domain.

        ``annotations`` rows are (label key, question tag, answer option, count); ``queries`` rows are
        (label key, text, split). All annotations carry ``annotation_source``. ``heldout`` rows are (label key,
        question tag, answer option, probability): the simulated user's answers, from data the agent does not
        learn from (empty: the simulator decides from the annotations). ``out_of_scope`` rows are (text, split):
    queries that no label answers (CLINC150's oos queries), stored apart from the labelled ones.
    """

    name: str
    title: str
    description: str
    labels: list[Label]
    questions: list[Question]
    annotations: list[tuple[str, str, str, float]]
    annotation_source: str
    queries: list[tuple[str, str, str]]
    supports_not_visible: bool = False
    meta: dict[str, str] = field(default_factory=dict)
    heldout: list[tuple[str, str, str, float]] = field(default_factory=list)
    out_of_scope: list[tuple[str, str]] = field(default_factory=list)
    label_source: str = "bundled"
    query_source: str = "bundled"
    exact_labels: bool = False


def write_domain(kb: KnowledgeBase, data: DomainData) -> None:
    """Write ``data`` into ``kb`` in one transaction (see the module docstring for what is kept)."""
    check_domain_data(data)
    with kb.transaction():
        mark_changed(kb.db)  # its own deletes and updates below, beside the KnowledgeBase methods that mark theirs
        if data.exact_labels:
            wanted_keys = {label.key for label in data.labels}
            kb.db.conn.executemany(  # labels of other sources (made from the inbox) stay
                "DELETE FROM labels WHERE key = ? AND source = ?",
                [(k, data.label_source) for k in kb.label_ids() if k not in wanted_keys],
            )
        label_ids = kb.upsert_labels(data.labels, source=data.label_source)
        existing = {tag: bool(induced) for tag, induced in kb.db.execute("SELECT tag, induced FROM questions")}
        # An induced question the crowd has since annotated (induced = 0 now) belongs to the crowd.
        questions = [q for q in data.questions if not (q.induced and q.tag in existing and not existing[q.tag])]
        wanted_tags = {q.tag for q in questions}
        stale = [tag for tag, induced in existing.items() if induced and tag not in wanted_tags]
        for tag in stale:
            kb.db.execute("DELETE FROM questions WHERE tag = ? AND induced = 1", [tag])
        if data.exact_labels:  # e.g. the topic question of a FAQ that no longer has categories (not the crowd's)
            kb.db.conn.executemany(
                """DELETE FROM questions WHERE tag = ? AND source = ? AND NOT EXISTS
                   (SELECT 1 FROM annotations a WHERE a.question_id = questions.id AND a.source != ?)""",
                [(tag, data.annotation_source, data.annotation_source) for tag in existing if tag not in wanted_tags],
            )
        question_ids = kb.upsert_questions(questions, source=data.annotation_source)

        new_rows = {
            (label_ids[lk], question_ids[tag], answer): count
            for lk, tag, answer, count in data.annotations
            if tag in wanted_tags
        }
        old_rows = {
            (lid, qid, ans): (row_id, count)
            for row_id, lid, qid, ans, count in kb.db.execute(
                "SELECT id, label_id, question_id, answer, count FROM annotations WHERE source = ?",
                [data.annotation_source],
            )
        }
        kb.db.conn.executemany(
            "DELETE FROM annotations WHERE id = ?",
            [(row_id,) for key, (row_id, _) in old_rows.items() if key not in new_rows],
        )
        kb.db.conn.executemany(
            "UPDATE annotations SET count = ? WHERE id = ?",
            [
                (count, old_rows[key][0])
                for key, count in new_rows.items()
                if key in old_rows and abs(old_rows[key][1] - count) > 1e-9
            ],
        )
        kb.add_annotations(
            (lid, qid, ans, count, data.annotation_source, "", "")
            for (lid, qid, ans), count in new_rows.items()
            if (lid, qid, ans) not in old_rows
        )
        if data.exact_labels:
            wanted_queries = {(label_ids[lk], text) for lk, text, _split in data.queries}
            kb.db.conn.executemany(
                "DELETE FROM queries WHERE label_id = ? AND text = ? AND source = ?",
                [
                    (label_id, text, data.query_source)
                    for label_id, text in kb.db.execute(
                        "SELECT label_id, text FROM queries WHERE source = ?", [data.query_source]
                    )
                    if (label_id, text) not in wanted_queries
                ],
            )
        kb.db.conn.executemany(
            """INSERT INTO queries (label_id, text, split, source) VALUES (?, ?, ?, ?)
               ON CONFLICT(label_id, text) DO UPDATE SET split = excluded.split
               WHERE queries.source = excluded.source AND queries.split != excluded.split""",
            [(label_ids[lk], text, split, data.query_source) for lk, text, split in data.queries],
        )
        if data.out_of_scope:
            kb.replace_out_of_scope_queries(data.out_of_scope, source=data.query_source)
        current = kb.get_meta()
        meta: dict[str, str | int | float | bool] = {
            "title": data.title,
            "description": data.description,
            "adapter": data.name,
            "supports_not_visible": data.supports_not_visible,
            **data.meta,
        }
        if data.heldout:
            question_ids = kb.question_ids()
            kb.replace_heldout_answers(
                (question_ids[tag], label_ids[lk], answer, probability)
                for lk, tag, answer, probability in data.heldout
                if tag in question_ids
            )
        changed = {
            k: v for k, v in meta.items() if current.get(k) != (str(v).lower() if isinstance(v, bool) else str(v))
        }
        if changed or "built_at" not in current:
            kb.set_meta(**changed, built_at=utc_now())


def check_domain_data(data: DomainData) -> None:
    keys = [lab.key for lab in data.labels]
    if len(set(keys)) != len(keys):
        raise ConfigError(f"adapter {data.name}: duplicate label keys")
    tags = [q.tag for q in data.questions]
    if len(set(tags)) != len(tags):
        raise ConfigError(f"adapter {data.name}: duplicate question tags")
    options = {q.tag: set(q.options) for q in data.questions}
    key_set = set(keys)
    for lk, tag, answer, count in data.annotations:
        if lk not in key_set or tag not in options or answer not in options[tag] or count < 0:
            raise ConfigError(f"adapter {data.name}: bad annotation {(lk, tag, answer, count)}")
    for lk, tag, answer, probability in data.heldout:
        if lk not in key_set or tag not in options or answer not in options[tag] or not 0 <= probability <= 1:
            raise ConfigError(f"adapter {data.name}: bad held-out answer {(lk, tag, answer, probability)}")
    if any(split not in ("train", "dev", "test") for _text, split in data.out_of_scope):
        raise ConfigError(f"adapter {data.name}: an out-of-scope query has a split other than train/dev/test")
    for lk, _text, split in data.queries:
        if lk not in key_set or split not in ("train", "dev", "test"):
            raise ConfigError(f"adapter {data.name}: bad query row for label {lk!r} split {split!r}")
