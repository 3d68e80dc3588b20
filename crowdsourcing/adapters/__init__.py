"""Adapters from the bundled real data sets to knowledge bases.

Each adapter reads its raw files and returns a ``DomainData``; ``build_domain`` writes it into the
domain's SQLite file in one transaction. Rebuilding is idempotent and keeps what was imported since:
crowd annotations and queries stay, and induced questions that crowd annotations replaced are not
re-induced.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Generator
from dataclasses import dataclass, field

import numpy as np

from assistant.domain import Label, Question
from assistant.errors import ConfigError, DomainNotFoundError
from assistant.progress import Progress
from assistant.store import KnowledgeBase, utc_now


@dataclass
class DomainData:
    """Everything an adapter produces for one domain.

    ``annotations`` rows are (label key, question tag, answer option, count); ``queries`` rows are
    (label key, text, split). All annotations carry ``annotation_source``.
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


def label_rng(key: str, salt: str = "") -> np.random.Generator:
    """A random generator seeded by a label key, so that per-label splits are stable across builds."""
    return np.random.default_rng(zlib.crc32(f"{salt}{key}".encode()))


def split_counts(n: int, dev: float, test: float) -> tuple[int, int, int]:
    """(train, dev, test) sizes for ``n`` items: at least one test and, with 3+ items, one dev item."""
    if n <= 1:
        return n, 0, 0
    n_test = max(1, round(test * n))
    n_dev = max(1, round(dev * n)) if n - n_test >= 2 and dev > 0 else 0
    return n - n_test - n_dev, n_dev, n_test


def _adapters() -> dict[str, Callable[[], DomainData]]:
    from crowdsourcing.adapters import banking77, cub, stackfaq

    return {"birds": cub.load, "faq": stackfaq.load, "banking": banking77.load}


BUNDLED_DOMAINS: dict[str, str] = {
    "birds": "CUB-200-2011 bird species: 200 labels, attribute questions from crowd percentages, captions as queries",
    "faq": "StackFAQ: 125 FAQs with answers, crowd paraphrases as queries, induced tags",
    "banking": "BANKING77: 77 banking intents, customer queries, induced tags",
}


def build_domain(name: str) -> Generator[Progress, None, dict]:
    """Build (or refresh) the bundled domain ``name``; yields progress, returns the store's stats."""
    adapters = _adapters()
    if name not in adapters:
        raise DomainNotFoundError(
            f"no bundled domain {name!r}: choose one of {', '.join(sorted(adapters))}, or create your own "
            "with `clarify import csv FILE --domain NAME --kind labels`"
        )
    yield Progress(0, 3, f"reading the bundled {name} files")
    data = adapters[name]()
    yield Progress(1, 3, f"writing {len(data.labels)} labels and {len(data.questions)} questions")
    with KnowledgeBase.create(name) as kb:
        write_domain(kb, data)
        yield Progress(2, 3, "checking the result")
        kb.load_domain()  # fails loudly if what was written is inconsistent
        stats = kb.stats()
    yield Progress(3, 3, f"built {name}")
    return stats


def write_domain(kb: KnowledgeBase, data: DomainData) -> None:
    """Write ``data`` into ``kb`` in one transaction (see the module docstring for what is kept)."""
    _check(data)
    with kb.transaction():
        label_ids = kb.upsert_labels(data.labels, source="bundled")
        existing = {tag: bool(induced) for tag, induced in kb.db.execute("SELECT tag, induced FROM questions")}
        # An induced question the crowd has since annotated (induced = 0 now) belongs to the crowd.
        questions = [q for q in data.questions if not (q.induced and q.tag in existing and not existing[q.tag])]
        wanted_tags = {q.tag for q in questions}
        stale = [tag for tag, induced in existing.items() if induced and tag not in wanted_tags]
        for tag in stale:
            kb.db.execute("DELETE FROM questions WHERE tag = ? AND induced = 1", [tag])
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
        kb.db.conn.executemany(
            """INSERT INTO queries (label_id, text, split, source) VALUES (?, ?, ?, 'bundled')
               ON CONFLICT(label_id, text) DO UPDATE SET split = excluded.split
               WHERE queries.source = 'bundled' AND queries.split != excluded.split""",
            [(label_ids[lk], text, split) for lk, text, split in data.queries],
        )
        current = kb.get_meta()
        meta = {
            "title": data.title,
            "description": data.description,
            "adapter": data.name,
            "supports_not_visible": data.supports_not_visible,
            **data.meta,
        }
        changed = {
            k: v for k, v in meta.items() if current.get(k) != (str(v).lower() if isinstance(v, bool) else str(v))
        }
        if changed or "built_at" not in current:
            kb.set_meta(**changed, built_at=utc_now())


def _check(data: DomainData) -> None:
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
    for lk, _text, split in data.queries:
        if lk not in key_set or split not in ("train", "dev", "test"):
            raise ConfigError(f"adapter {data.name}: bad query row for label {lk!r} split {split!r}")
