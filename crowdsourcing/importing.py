"""Check parsed crowd data against a domain, then write it all-or-nothing, and report what happened.

Three steps, so that the GUI's import wizard can show a preview before anything is written:

1. ``parse_file`` (crowdsourcing.importers): file -> records + problems (pure, no database);
2. ``plan_import`` (crowdsourcing.planning): records + the domain's current labels/questions -> an
   ``ImportPlan``: every row resolved (label matched, tag normalised and merged, new questions templated),
   problems with file, line and column, agreement between workers, preview rows. Reads, never writes;
3. ``apply_plan``: writes the plan in ONE transaction and returns the import report
   (crowdsourcing.report). Any failure rolls everything back: the database stays byte-for-byte as it was.

``preview_import`` does 1-2 and ``import_file`` (a job yielding Progress) all three.

Idempotency: the file's SHA-256 is recorded in the ``imports`` table; importing the same bytes again (for
the same kind) changes nothing and reports "already imported". Across files, the UNIQUE keys of the
annotations (label, question, answer, source, worker, task) and queries (label, text) keep an assignment
that appears in two batch files from being counted twice. Rows that name no task get a task key derived
from their content (``crowdsourcing.plan.content_task``: label, tag and worker; for aggregated counts
without a worker label, tag, answer and count), never from the file: the same rows again, reordered or in
another file, are recognised as already imported, while different counts add up.

Crowd annotations for a question that was induced automatically replace its induced annotations: the
'induced' rows of that question are deleted and the question is marked as no longer induced.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Generator
from pathlib import Path

from assistant import paths
from assistant.errors import ConfigError, DomainNotFoundError, Problem, StoreError, ValidationError
from assistant.progress import Progress
from assistant.sources.templates import TemplateSet
from assistant.store import SPLITS, KnowledgeBase, new_knowledge_base
from crowdsourcing.importers import ParsedFile, parse_file
from crowdsourcing.importers.base import DEFAULT_SPLIT
from crowdsourcing.planning import ImportPlan, PreviewRow, plan_import, resolve_tags
from crowdsourcing.report import DEFAULT_ALPHA, ImportReport, answer_distributions, build_report

FIX_HINT = "fix the listed rows and import the file again"
# One import holds at most this many records (issue 41): an accepted 1.6M-query file took 2.4 GB to import and
# its models minutes to update; a desk's crowd batches are thousands of rows. Larger files go in parts.
MAX_IMPORT_RECORDS = 200_000

__all__ = [
    "DEFAULT_ALPHA",
    "ImportPlan",
    "PreviewRow",
    "apply_plan",
    "import_file",
    "plan_import",
    "preview_import",
    "resolve_tags",
]


# ---- applying -------------------------------------------------------------------------------------------
def apply_plan(kb: KnowledgeBase, plan: ImportPlan, alpha: float = DEFAULT_ALPHA) -> ImportReport:
    """Write ``plan`` into ``kb`` in one transaction and return the import report.

    Raises ValidationError (nothing written) when the plan has problems. Apply a plan right after making it
    with the same ``kb``: it describes the database as it was then.
    """
    if not plan.ok:
        raise _validation_error(plan.problems)
    if plan.already_imported is not None:
        return build_report(plan, "already imported")
    parsed, source = plan.parsed, plan.source
    try:
        with kb.transaction():
            import_id = kb.record_import(parsed.sha256, parsed.kind or "", parsed.format, parsed.filename, {})
            if plan.labels_new or plan.labels_updated:
                kb.upsert_labels([*plan.labels_new, *plan.labels_updated], source=source)
                if "title" not in kb.get_meta():
                    kb.set_meta(title=plan.domain, created_by="import")
            label_ids = kb.label_ids()
            if plan.questions_new:
                kb.upsert_questions(plan.questions_new, source=source)
            question_ids = kb.question_ids()
            replaced = [question_ids[tag] for tag in plan.induced_replaced]
            if replaced:
                kb.delete_annotations(replaced, "induced")
                kb.set_question_induced(replaced, False)
            added_annotations = kb.add_annotations(
                (
                    (label_ids[key], question_ids[tag], answer, count, source, worker, task)
                    for key, tag, answer, count, worker, task in plan.annotations
                ),
                import_id,
            )
            added_queries = kb.add_queries(
                ((label_ids[key], text, split, source, worker) for key, text, split, worker in plan.queries),
                import_id,
            )
            distributions = None
            if plan.annotations:
                pairs = {(key, tag) for key, tag, *_ in plan.annotations}
                distributions = answer_distributions(kb.load_domain(reviewed=False), pairs, alpha)
            added = {
                "labels": len(plan.labels_new),
                "questions": len(plan.questions_new),
                "annotations": added_annotations,
                "queries": added_queries,
            }
            report = build_report(plan, "imported", added, distributions)
            report.import_id = import_id
            kb.set_import_report(import_id, report.to_dict())
    except sqlite3.IntegrityError as exc:
        raise StoreError(
            f"the import of {parsed.filename} conflicts with data written meanwhile ({exc}); nothing was imported: "
            "run the import again"
        ) from exc
    return report


# ---- entry points -----------------------------------------------------------------------------------------
def _open_domain(domain: str, kind: str | None) -> KnowledgeBase | None:
    """The domain's knowledge base; None for a labels import into a domain that does not exist yet."""
    path = paths.domain_db_path(domain)
    if path.exists():
        return KnowledgeBase(path, domain)
    if kind == "labels":
        return None
    raise DomainNotFoundError(
        f"domain {domain!r} does not exist: build a bundled domain first (`clarify domain list` shows them), or "
        f"create it by importing labels: `clarify import csv LABELS.csv --domain {domain} --kind labels`"
    )


def _check_split(split: str) -> None:
    if split not in SPLITS:
        raise ConfigError(f"unknown split {split!r}: use one of {', '.join(SPLITS)}")


def _templates(templates: TemplateSet | str | Path | None) -> TemplateSet:
    if templates is None:
        return TemplateSet.builtin("default")
    if isinstance(templates, TemplateSet):
        return templates
    return TemplateSet.load(templates)


def preview_import(
    path: str | Path,
    domain: str,
    fmt: str,
    kind: str | None = None,
    templates: TemplateSet | str | Path | None = None,
    default_split: str = DEFAULT_SPLIT,
) -> ImportPlan:
    """Parse and check a file against ``domain`` without writing anything: rows, problems, report preview.

    Raises only for a wrong ``fmt``/``kind``/template file or a domain that does not exist (ClarifyError);
    problems of the file itself are in ``plan.problems`` (``plan.ok`` is False) with their line numbers.
    """
    paths.check_domain_name(domain)
    _check_split(default_split)
    template_set = _templates(templates)
    parsed = parse_capped(path, fmt, kind)
    kb = _open_checked(domain, parsed)
    try:
        return plan_import(parsed, kb, template_set, default_split, domain)
    finally:
        if kb is not None:
            kb.close()


def parse_capped(path: str | Path, fmt: str, kind: str | None) -> ParsedFile:
    """``parse_file``, with a file of more than ``MAX_IMPORT_RECORDS`` records refused as a problem that says
    what to do instead (nothing of it is imported)."""
    parsed = parse_file(path, fmt, kind)
    if len(parsed.records) > MAX_IMPORT_RECORDS:
        parsed.problems.append(
            Problem(
                parsed.filename,
                None,
                None,
                f"the file holds {len(parsed.records):,} records; one import takes at most {MAX_IMPORT_RECORDS:,}: "
                f"split it into files of at most {MAX_IMPORT_RECORDS:,} rows and import them one after another "
                "(each is all-or-nothing)",
            )
        )
    return parsed


def _open_checked(domain: str, parsed: ParsedFile) -> KnowledgeBase | None:
    """Open the domain to check ``parsed`` against; a broken file is reported before a missing domain."""
    if not parsed.ok and (parsed.kind is None or not paths.domain_db_path(domain).exists()):
        return None
    return _open_domain(domain, parsed.kind)


def _validation_error(problems: list[Problem]) -> ValidationError:
    hint = FIX_HINT if any(p.line is not None for p in problems) else ""
    return ValidationError(problems, hint)


def import_file(
    path: str | Path,
    domain: str,
    fmt: str,
    kind: str | None = None,
    templates: TemplateSet | str | Path | None = None,
    alpha: float = DEFAULT_ALPHA,
    default_split: str = DEFAULT_SPLIT,
) -> Generator[Progress, None, ImportReport]:
    """Import one file into ``domain`` all-or-nothing; yields Progress, returns the import report.

    Raises ValidationError (with every problem and its line) when the file has problems, and other
    ClarifyError subclasses for a missing domain or bad options; in every such case nothing is written.
    """
    paths.check_domain_name(domain)
    if not (math.isfinite(alpha) and alpha >= 0):
        raise ConfigError(f"smoothing alpha must be a finite number >= 0, got {alpha}")
    _check_split(default_split)
    template_set = _templates(templates)
    name = Path(path).name
    yield Progress(0, 3, f"reading {name}")
    parsed = parse_capped(path, fmt, kind)
    yield Progress(1, 3, f"checking {len(parsed.records)} records against domain {domain!r}")
    kb = _open_checked(domain, parsed)
    try:
        plan = plan_import(parsed, kb, template_set, default_split, domain)
        if not plan.ok:
            raise _validation_error(plan.problems)
        yield Progress(2, 3, f"writing into {domain!r}")
        try:
            if kb is None:  # a new domain: it appears (renamed into place) only with its first import in it,
                with new_knowledge_base(domain) as created:  # so a failure or a kill leaves no empty domain
                    report = apply_plan(created, plan, alpha)
            else:
                report = apply_plan(kb, plan, alpha)
        except sqlite3.Error as exc:
            raise StoreError(f"writing to domain {domain!r} failed ({exc}); nothing was imported") from exc
    finally:
        if kb is not None:
            kb.close()
    yield Progress(3, 3, f"{report.status} {name}")
    return report
