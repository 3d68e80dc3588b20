"""The figures `clarify domain stats` prints about one knowledge base (row counts by kind, split and source)."""

from __future__ import annotations

from typing import Any

from assistant.store.domain import SPLITS


def knowledge_base_stats(kb: Any) -> dict:
    """The figures `clarify domain stats` prints of ``kb``, a KnowledgeBase (not imported: it imports this)."""
    kinds = dict.fromkeys(("binary", "choice"), 0)
    for kind, n in kb.db.execute("SELECT kind, COUNT(*) FROM questions GROUP BY kind"):
        kinds[kind] = int(n)
    splits = dict.fromkeys(SPLITS, 0)
    for split, n in kb.db.execute("SELECT split, COUNT(*) FROM queries GROUP BY split"):
        splits[split] = int(n)
    sources = {src: int(n) for src, n in kb.db.execute("SELECT source, COUNT(*) FROM annotations GROUP BY source")}
    counts = kb.counts()
    meta = kb.get_meta()
    return {
        "name": kb.name,
        "title": meta.get("title", kb.name),
        "labels": counts["labels"],
        "questions": kinds,
        "induced_questions": int(kb.db.execute("SELECT COUNT(*) FROM questions WHERE induced = 1").fetchone()[0]),
        "queries": splits,
        "annotations": counts["annotations"],
        "annotations_by_source": sources,
        "label_answers": int(kb.db.execute("SELECT COUNT(*) FROM label_answers").fetchone()[0]),
        "imports": counts["imports"],
        "sessions": counts["sessions"],
        "schema_version": kb.schema_version,
        "path": str(kb.path),
    }
