"""Resolve parsed crowd records against a domain into an ``ImportPlan``, reading but never writing.

Every record is checked and resolved: label names matched (``Domain.label_index`` semantics), tags
normalised and merged with each other and with the domain's question tags (``crowdsourcing.tags``), new
tags turned into questions by a ``TemplateSet``, choice answers checked against the question's options,
repeated answers collapsed. The plan lists what ``crowdsourcing.importing.apply_plan`` will write, every
problem with file, line and column, the workers' ratings for the agreement report and one preview row per
record for the GUI's import wizard.

Rows that name no task get a task key derived from their content (``crowdsourcing.plan.content_task``), so
that the same rows imported again, in any order and from any file, are not counted twice.
"""

from __future__ import annotations

from collections.abc import Sequence

from assistant.errors import Problem
from assistant.sources.templates import TemplateSet
from assistant.store import KnowledgeBase, Label, normalize_label_name
from crowdsourcing.importers import LabelRecord, ParsedFile, QueryRecord
from crowdsourcing.importers.base import DEFAULT_SPLIT
from crowdsourcing.plan import ImportPlan, PreviewRow, add_problem
from crowdsourcing.tag_planning import TagResolution, plan_tags, resolve_tags
from crowdsourcing.validation import LabelMatcher, clean_text

__all__ = ["ImportPlan", "PreviewRow", "TagResolution", "plan_import", "resolve_tags"]


# ---- planning ---------------------------------------------------------------------------------------------
def plan_import(
    parsed: ParsedFile,
    kb: KnowledgeBase | None,
    templates: TemplateSet | None = None,
    default_split: str = DEFAULT_SPLIT,
    domain: str | None = None,
) -> ImportPlan:
    """Resolve ``parsed`` against the domain in ``kb`` (None: a domain that does not exist yet). No writes."""
    name = domain or (kb.name if kb is not None else "")
    plan = ImportPlan(domain=name, parsed=parsed, problems=list(parsed.problems))
    if kb is not None and parsed.sha256 and parsed.kind and parsed.ok:
        plan.already_imported = kb.find_import(parsed.sha256, parsed.kind)
        if plan.already_imported is not None:
            return plan
    if kb is None and parsed.kind != "labels":
        plan.problems = _sorted_unique(plan.problems)  # nothing to check the records against
        return plan
    labels = kb.labels() if kb is not None else []
    questions = kb.questions() if kb is not None else []
    if parsed.kind in ("queries", "tags") and not labels and parsed.records:
        plan.problems.append(
            Problem(
                parsed.filename,
                None,
                None,
                f"domain {name!r} has no labels yet: import them first with "
                f"`clarify import csv LABELS.csv --domain {name} --kind labels`",
            )
        )
    elif parsed.kind == "queries":
        _plan_queries(plan, kb, LabelMatcher(labels, name), default_split)
    elif parsed.kind == "tags":
        plan_tags(plan, kb, LabelMatcher(labels, name), questions, templates or TemplateSet.builtin("default"))
    elif parsed.kind == "labels":
        _plan_labels(plan, labels)
    plan.problems = _sorted_unique(plan.problems)
    return plan


def _sorted_unique(problems: list[Problem]) -> list[Problem]:
    unique = list(dict.fromkeys(problems))
    return sorted(unique, key=lambda p: (p.line or 0, p.column or ""))


def _plan_queries(plan: ImportPlan, kb: KnowledgeBase | None, matcher: LabelMatcher, default_split: str) -> None:
    stored: set[tuple[str, str]] = set()
    if kb is not None:
        stored = kb.query_keys()
    seen: set[tuple[str, str]] = set()
    for record in plan.parsed.records:
        assert isinstance(record, QueryRecord)
        line = record.origin.line
        key = matcher.key(record.label)
        text = clean_text(record.text)
        split = record.split or default_split
        if key is None:
            add_problem(plan, line, record.origin.column("label"), matcher.unknown_message(record.label))
            plan.rows.append(PreviewRow(line, "query", record.label, text, split, record.worker, "problem"))
            continue
        if (key, text) in stored:
            status = "exists"
            plan.existing += 1
        elif (key, text) in seen:
            status = "duplicate"
            plan.duplicates += 1
        else:
            status = "new"
            seen.add((key, text))
            plan.queries.append((key, text, split, record.worker))
        plan.rows.append(PreviewRow(line, "query", key, text, split, record.worker, status))


def _plan_labels(plan: ImportPlan, labels: Sequence[Label]) -> None:
    matcher = LabelMatcher(labels, plan.domain)
    by_key = {label.key: label for label in labels}
    merged: dict[str, dict] = {}
    order: list[str] = []
    new_keys: dict[str, str] = {}  # normalised name -> key, for labels the domain does not have yet
    for record in plan.parsed.records:
        assert isinstance(record, LabelRecord)
        line = record.origin.line
        if not normalize_label_name(record.key):
            add_problem(plan, line, record.origin.column("label"), f"label key {record.key!r} has no letters or digits")
            continue
        key = matcher.key(record.key) or new_keys.setdefault(normalize_label_name(record.key), record.key.strip())
        entry = merged.get(key)
        if entry is None:
            entry = merged[key] = {"name": "", "text": "", "answers": [], "line": line}
            order.append(key)
        for attribute in ("name", "text"):
            value = getattr(record, attribute)
            if value and entry[attribute] and value != entry[attribute]:
                add_problem(
                    plan,
                    line,
                    record.origin.column(attribute),
                    f"label {record.key!r} was given the {attribute} {entry[attribute]!r} on line {entry['line']} "
                    f"and {value!r} here: keep one",
                )
            elif value:
                entry[attribute] = value
        entry["answers"].extend(record.answers)
        plan.rows.append(PreviewRow(line, "label", key, record.name or key, "", "", ""))
    statuses: dict[str, str] = {}
    for key in order:
        entry = merged[key]
        old = by_key.get(key)
        if old is None:
            answers = tuple(dict.fromkeys(entry["answers"]))
            plan.labels_new.append(Label(key, entry["name"] or key, entry["text"], answers))
            statuses[key] = "new"
            continue
        answers = tuple(dict.fromkeys((*old.answers, *entry["answers"])))
        new = Label(key, entry["name"] or old.name, entry["text"] or old.text, answers)
        if new == old:
            plan.labels_unchanged += 1
            statuses[key] = "unchanged"
        else:
            plan.labels_updated.append(new)
            statuses[key] = "update"
    plan.rows = [
        PreviewRow(r.line, r.kind, r.label, r.target, r.answer, r.worker, statuses.get(r.label, "problem"))
        for r in plan.rows
    ]
