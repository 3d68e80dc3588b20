"""Crowd data in and out, as the CLI and the GUI's import wizard use it: preview and import a file
(all-or-nothing, with an ``ImportReport``), and export the next MTurk task batch."""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

from assistant.paths import write_output_file
from assistant.progress import Progress
from assistant.store import SPLITS, EntryKind, KnowledgeBase, SessionLog, SessionStatus
from crowdsourcing.export import EXPORT_KINDS, export_tasks, mturk_layout, write_csv
from crowdsourcing.importers import KINDS
from crowdsourcing.importers.base import SEPARATOR, TAG_SLOTS
from crowdsourcing.importers.plain import COLUMNS
from crowdsourcing.importing import DEFAULT_ALPHA, import_file, preview_import
from crowdsourcing.report import ImportReport, preview_report

__all__ = [
    "COLUMNS",
    "DEFAULT_ALPHA",
    "EXPORT_KINDS",
    "KINDS",
    "SPLITS",
    "TAG_SLOTS",
    "ImportReport",
    "export_job",
    "export_unanswered_job",
    "import_job",
    "preview_job",
    "preview_report",
]


def preview_job(path: str, domain: str, fmt: str, kind: str | None) -> Generator[Progress, None, Any]:
    """Parse and check a crowd file against the domain; writes nothing. Returns the ``ImportPlan``."""
    yield Progress(0, 1, f"checking {Path(path).name}")
    plan = preview_import(path, domain, fmt, kind)
    yield Progress(1, 1, "checked")
    return plan


def import_job(
    path: str | Path,
    domain: str,
    fmt: str,
    kind: str | None = None,
    templates: str | Path | None = None,
    alpha: float = DEFAULT_ALPHA,
    default_split: str = "train",
) -> Generator[Progress, None, ImportReport]:
    """Import a crowd file into the domain, all-or-nothing; returns the ``ImportReport``."""
    return (yield from import_file(path, domain, fmt, kind, templates, alpha, default_split))


def import_impact_job(domain: str, added: dict[str, int]) -> Generator[Progress, None, str]:
    """What importing a file that adds ``added`` would make older than the data, and how long catching up
    takes (``assistant.app.lifecycle.updates.import_impact``)."""
    from assistant.app.lifecycle.updates import import_impact

    yield Progress(0, 1, "checking what the import changes for the models")
    text = import_impact(domain, added)
    yield Progress(1, 1, "checked")
    return text


def export_job(
    domain: str,
    out: str | Path,
    kind: str = "tags",
    per_label: int = 50,
    per_task: int = TAG_SLOTS,
    include_annotated: bool = False,
    layout: str | Path | None = None,
) -> Generator[Progress, None, dict]:
    """Write the next MTurk task batch of ``domain`` (and, with ``layout``, a matching HTML layout); returns
    a summary {tasks, labels, file[, layout]}."""
    yield Progress(0, 1, f"reading {domain}")
    with KnowledgeBase.open(domain) as kb:
        loaded = kb.load_domain()
        handed_on = handed_on_questions(kb) if kind == "unanswered" else []
    summary = export_tasks(
        loaded, out, kind, per_label, per_task, skip_annotated=not include_annotated, handed_on=handed_on
    )
    if layout is not None:
        text = mturk_layout(kind, per_task)
        write_output_file(layout, lambda tmp: tmp.write_text(text, encoding="utf-8"), "--layout")
        summary["layout"] = str(layout)
    yield Progress(1, 1, f"wrote {summary['tasks']} tasks")
    return summary


UNANSWERED_CSV_COLUMNS = ["session", "query", "note", "asked_at", "handed_on_at", "closest"]


def handed_on_questions(kb: KnowledgeBase) -> list[dict]:
    """The questions people handed on because nothing fitted (sessions logged out of scope with a hand-off),
    oldest first: session, query, note, asked_at, handed_on_at, closest (label keys)."""
    log = SessionLog(kb)
    found = []
    for summary in reversed(log.list(SessionStatus.OUT_OF_SCOPE)):
        entries = log.transcript(summary.id)
        handoffs = [i for i, entry in enumerate(entries) if entry["kind"] == EntryKind.HAND_OFF]
        # a hand-off the person took back (undo) is not exported
        if handoffs and not any(entry["kind"] == EntryKind.UNDO for entry in entries[handoffs[-1] + 1 :]):
            last = entries[handoffs[-1]]
            found.append(
                {
                    "session": summary.id,
                    "query": last.get("query", summary.query),
                    "note": last.get("note", ""),
                    "asked_at": summary.created_at,
                    "handed_on_at": last["at"],
                    "closest": list(last.get("closest", [])),
                }
            )
    return found


def export_unanswered_job(domain: str, out: str | Path) -> Generator[Progress, None, dict]:
    """Write the CSV of unanswered questions of ``domain`` (handed on by people, see ``handed_on_questions``);
    `clarify export tasks --kind unanswered` turns the same questions into a labelling batch."""
    yield Progress(0, 1, f"reading the sessions of {domain}")
    with KnowledgeBase.open(domain) as kb:
        rows = handed_on_questions(kb)
    flat = [{**row, "closest": SEPARATOR.join(row["closest"])} for row in rows]
    path = write_csv(flat, UNANSWERED_CSV_COLUMNS, out)
    yield Progress(1, 1, f"wrote {len(rows)} unanswered questions")
    return {"file": str(path), "domain": domain, "questions": len(rows)}
