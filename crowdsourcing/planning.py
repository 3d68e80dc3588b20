"""Resolve parsed crowd records against a domain into an ``ImportPlan``, reading but never writing.

Every record is checked and resolved: label names matched (``Domain.label_index`` semantics), tags
normalised and merged with each other and with the domain's question tags (``crowdsourcing.tags``), new
tags turned into questions by a ``TemplateSet``, choice answers checked against the question's options,
repeated answers collapsed. The plan lists what ``crowdsourcing.importing.apply_plan`` will write, every
problem with file, line and column, the workers' ratings for the agreement report and one preview row per
record for the GUI's import wizard.

Rows without a worker or task (aggregated counts in a plain file) get the task ``file:<sha256 prefix>``,
so that two different files add up while the same file imported twice does not.
"""

from __future__ import annotations

import difflib
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace

from assistant.domain import Label, Question, normalize_label_name
from assistant.errors import ConfigError, Problem
from assistant.store import KnowledgeBase
from crowdsourcing.agreement import Rating
from crowdsourcing.importers import NOT_APPLICABLE, LabelRecord, ParsedFile, QueryRecord, TagRecord
from crowdsourcing.importers.base import DEFAULT_SPLIT, fold
from crowdsourcing.report import build_report
from crowdsourcing.tags import merge_tags, normalize_tag, tag_key
from crowdsourcing.templates import TemplateSet
from crowdsourcing.validation import LabelMatcher, clean_text


@dataclass(frozen=True)
class PreviewRow:
    """One resolved record for display: what it is about and what importing it would do (``status``).

    ``status`` is 'new', 'exists' (already stored, will be skipped), 'duplicate' (repeats an earlier row of
    the file), 'not applicable' (a choice answer that stores nothing), 'update' (a label that changes) or
    'unchanged', or 'problem' when the row has a problem (see ``ImportPlan.problems``).
    """

    line: int
    kind: str
    label: str
    target: str
    answer: str
    worker: str
    status: str

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class ImportPlan:
    """Everything ``apply_plan`` will write, with the problems that block it (see the module docstring)."""

    domain: str
    parsed: ParsedFile
    problems: list[Problem] = field(default_factory=list)
    already_imported: dict | None = None
    labels_new: list[Label] = field(default_factory=list)
    labels_updated: list[Label] = field(default_factory=list)
    labels_unchanged: int = 0
    questions_new: list[Question] = field(default_factory=list)
    merges: list[dict] = field(default_factory=list)
    # (label key, question tag, answer, count, worker, task)
    annotations: list[tuple[str, str, str, float, str, str]] = field(default_factory=list)
    # (label key, text, split, worker)
    queries: list[tuple[str, str, str, str]] = field(default_factory=list)
    induced_replaced: list[str] = field(default_factory=list)
    existing: int = 0
    duplicates: int = 0
    not_applicable: int = 0
    ratings: list[Rating] = field(default_factory=list)
    rows: list[PreviewRow] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def kind(self) -> str | None:
        return self.parsed.kind

    @property
    def source(self) -> str:
        """The ``source`` stored with every row of this import, e.g. 'crowd:mturk'."""
        return f"crowd:{self.parsed.format}"

    def report(self) -> dict:
        """The import report as it would be if the plan were applied now (status 'preview' or 'already imported')."""
        return build_report(self, "already imported" if self.already_imported is not None else "preview")


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
        _plan_tags(plan, kb, LabelMatcher(labels, name), questions, templates or TemplateSet.builtin("default"))
    elif parsed.kind == "labels":
        _plan_labels(plan, labels)
    plan.problems = _sorted_unique(plan.problems)
    return plan


def _sorted_unique(problems: list[Problem]) -> list[Problem]:
    unique = list(dict.fromkeys(problems))
    return sorted(unique, key=lambda p: (p.line or 0, p.column or ""))


def _problem(plan: ImportPlan, line: int | None, column: str | None, message: str) -> None:
    plan.problems.append(Problem(plan.parsed.filename, line, column, message))


def _default_task(plan: ImportPlan, task: str) -> str:
    return task or f"file:{plan.parsed.sha256[:12]}"


def _plan_queries(plan: ImportPlan, kb: KnowledgeBase | None, matcher: LabelMatcher, default_split: str) -> None:
    stored: set[tuple[str, str]] = set()
    if kb is not None:
        stored = set(kb.db.execute("SELECT l.key, q.text FROM queries q JOIN labels l ON l.id = q.label_id"))
    seen: set[tuple[str, str]] = set()
    for record in plan.parsed.records:
        assert isinstance(record, QueryRecord)
        line = record.origin.line
        key = matcher.key(record.label)
        text = clean_text(record.text)
        split = record.split or default_split
        if key is None:
            _problem(plan, line, record.origin.column("label"), matcher.unknown_message(record.label))
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
            _problem(plan, line, record.origin.column("label"), f"label key {record.key!r} has no letters or digits")
            continue
        key = matcher.key(record.key) or new_keys.setdefault(normalize_label_name(record.key), record.key.strip())
        entry = merged.get(key)
        if entry is None:
            entry = merged[key] = {"name": "", "text": "", "answers": [], "line": line}
            order.append(key)
        for attribute in ("name", "text"):
            value = getattr(record, attribute)
            if value and entry[attribute] and value != entry[attribute]:
                _problem(
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


# ---- tags ---------------------------------------------------------------------------------------------------
@dataclass
class TagResolution:
    """How raw tags map to question tags: ``target[raw]``; ``new`` lists targets that are not questions yet."""

    target: dict[str, str]
    new: list[str]
    merges: list[dict]


def resolve_tags(raw_tags: Mapping[str, float], existing: Sequence[str], similarity: float = 0.9) -> TagResolution:
    """Normalise raw tags and merge near-duplicates among them and with ``existing`` question tags.

    ``raw_tags`` maps each tag as written to its weight (how often it was used). A tag that names an
    existing question (exactly, after normalisation, or with the same content words) maps to it; else, a
    tag that ``merge_tags`` groups with existing tags maps to the closest of them; else it becomes a new
    tag in normalised form, shared by every raw tag of its group. Existing tags are never merged together.
    """
    usable = {t: float(w) for t, w in raw_tags.items() if normalize_tag(t)}
    existing_set = set(existing)
    by_normal: dict[str, str] = {}
    by_key: dict[str, str] = {}
    for tag in existing:
        by_normal.setdefault(normalize_tag(tag), tag)
        by_key.setdefault(tag_key(tag), tag)
    weights = {**usable, **{tag: 1e9 for tag in existing}}
    mapping, _ = merge_tags(list(dict.fromkeys([*usable, *existing])), weights, similarity)
    groups: dict[str, list[str]] = defaultdict(list)
    for tag, canonical in mapping.items():
        groups[canonical].append(tag)

    target: dict[str, str] = {}
    for tag in usable:
        normal = normalize_tag(tag)
        if tag in existing_set:
            target[tag] = tag
        elif normal in by_normal:
            target[tag] = by_normal[normal]
        elif tag_key(tag) in by_key:
            target[tag] = by_key[tag_key(tag)]
        else:
            close = [m for m in groups[mapping[tag]] if m in existing_set]
            if close:
                target[tag] = max(
                    sorted(close), key=lambda m: difflib.SequenceMatcher(None, normalize_tag(m), normal).ratio()
                )
            else:
                target[tag] = mapping[tag]
    new = list(dict.fromkeys(t for t in target.values() if t not in existing_set))

    merges = []
    by_target: dict[str, list[str]] = defaultdict(list)
    for tag, goal in target.items():
        if tag != goal:
            by_target[goal].append(tag)
    for goal, tags in sorted(by_target.items()):
        reasons = {_merge_reason(tag, goal) for tag in tags}
        reason = next(r for r in ("spelling", "same words", "normalised") if r in reasons)
        merges.append(
            {"tag": goal, "merged": sorted(tags), "reason": reason, "existing_question": goal in existing_set}
        )
    return TagResolution(target, new, merges)


def _merge_reason(tag: str, goal: str) -> str:
    if normalize_tag(tag) == normalize_tag(goal):
        return "normalised"
    if tag_key(tag) == tag_key(goal):
        return "same words"
    return "spelling"


def _plan_tags(
    plan: ImportPlan,
    kb: KnowledgeBase | None,
    matcher: LabelMatcher,
    questions: Sequence[Question],
    templates: TemplateSet,
) -> None:
    records = [r for r in plan.parsed.records if isinstance(r, TagRecord)]
    by_tag = {q.tag: q for q in questions}
    by_normal = {(q.kind, normalize_tag(q.tag)): q for q in reversed(questions)}
    resolutions: dict[str, TagResolution] = {}
    for kind in ("binary", "choice"):
        weights: Counter[str] = Counter()
        for r in records:
            if r.kind == kind:
                weights[r.tag] += r.count
        existing = [q.tag for q in questions if q.kind == kind] if weights else []
        resolutions[kind] = resolve_tags(weights, existing)
        plan.merges.extend({**m, "kind": kind} for m in resolutions[kind].merges)

    first_record: dict[tuple[str, str], TagRecord] = {}
    choice_options: dict[str, list[str]] = defaultdict(list)
    resolved: list[tuple[TagRecord, str | None, str | None]] = []
    for record in records:
        line = record.origin.line
        key = matcher.key(record.label)
        if key is None:
            _problem(plan, line, record.origin.column("label"), matcher.unknown_message(record.label))
        goal = resolutions[record.kind].target.get(record.tag)
        if goal is None:
            _problem(plan, line, record.origin.column("tag"), f"tag {record.tag!r} has no letters or digits")
        elif _wrong_kind(plan, record, goal, by_tag, by_normal):
            goal = None
        resolved.append((record, key, goal))
        if goal is not None:
            first_record.setdefault((record.kind, goal), record)
            if record.kind == "choice" and goal not in by_tag:
                offered = record.options or ((record.answer,) if record.answer != NOT_APPLICABLE else ())
                known_options = {fold(o) for o in choice_options[goal]}
                for option in offered:
                    if fold(option) not in known_options:
                        known_options.add(fold(option))
                        choice_options[goal].append(option)

    new_questions: dict[str, Question] = {}
    for kind in ("binary", "choice"):
        for goal in resolutions[kind].new:
            record = first_record.get((kind, goal))
            if record is None:
                continue
            question = _new_question(plan, record, goal, kind, choice_options.get(goal, []), templates)
            if question is not None:
                new_questions[goal] = question
    plan.questions_new = list(new_questions.values())
    known = {**by_tag, **new_questions}

    stored = _stored_annotations(kb, plan.source)
    planned: dict[tuple, list] = {}  # slot -> [key, tag, answer, count, worker, task, preview row indices]
    for record, key, goal in resolved:
        line = record.origin.line
        question = known.get(goal) if goal else None
        answer = record.answer
        if question is not None and answer != NOT_APPLICABLE:
            canonical = next((o for o in question.options if fold(o) == fold(answer)), None)
            if canonical is None:
                _problem(
                    plan,
                    line,
                    record.origin.column("answer"),
                    f"unknown option {answer!r} for question {goal!r}: use one of "
                    f"{', '.join(map(repr, question.options))} or {NOT_APPLICABLE!r}",
                )
                question = None
            else:
                answer = canonical
        if key is None or question is None:
            plan.rows.append(
                PreviewRow(line, record.kind, key or record.label, goal or record.tag, answer, record.worker, "problem")
            )
            continue
        if record.worker:
            plan.ratings.append(Rating(record.kind, record.task, (key, question.tag), record.worker, answer))
        if answer == NOT_APPLICABLE:
            plan.not_applicable += 1
            plan.rows.append(PreviewRow(line, record.kind, key, question.tag, answer, record.worker, "not applicable"))
            continue
        task = _default_task(plan, record.task)
        if record.worker:
            slot = (key, question.tag, record.worker, task)
            if slot in planned:
                plan.duplicates += 1
                if record.kind == "binary" and answer == "yes":  # a tag shown twice (two spellings merged)
                    planned[slot][2] = "yes"
                plan.rows.append(PreviewRow(line, record.kind, key, question.tag, answer, record.worker, "duplicate"))
                continue
            planned[slot] = [key, question.tag, answer, record.count, record.worker, task, []]
        else:
            slot = (key, question.tag, answer, task)
            if slot in planned:
                planned[slot][3] += record.count
            else:
                planned[slot] = [key, question.tag, answer, record.count, "", task, []]
        planned[slot][6].append(len(plan.rows))
        plan.rows.append(PreviewRow(line, record.kind, key, question.tag, answer, record.worker, "new"))

    for key, tag, answer, count, worker, task, row_indices in planned.values():
        if (key, tag, answer, worker, task) in stored:
            plan.existing += 1
            for i in row_indices:
                plan.rows[i] = replace(plan.rows[i], status="exists")
        else:
            plan.annotations.append((key, tag, answer, float(count), worker, task))
    annotated = {tag for _, tag, *_ in plan.annotations}
    plan.induced_replaced = [q.tag for q in questions if q.induced and q.tag in annotated]


def _wrong_kind(
    plan: ImportPlan,
    record: TagRecord,
    goal: str,
    by_tag: Mapping[str, Question],
    by_normal: Mapping[tuple[str, str], Question],
) -> bool:
    """Report a tag that names a question of the other kind (binary vs multiple-choice)."""
    other = "choice" if record.kind == "binary" else "binary"
    clash = by_tag.get(goal) or by_normal.get((other, normalize_tag(goal)))
    if clash is None or clash.kind == record.kind:
        return False
    if clash.kind == "choice":
        how = f"answer it with one of its options ({', '.join(clash.options)}) in a multiple-choice task"
    else:
        how = "answer it yes/no in a tag task"
    _problem(
        plan,
        record.origin.line,
        record.origin.column("tag"),
        f"{record.tag!r} is a {'multiple-choice' if clash.kind == 'choice' else 'binary'} question "
        f"({clash.tag!r}) in the domain: {how}",
    )
    return True


def _new_question(
    plan: ImportPlan, record: TagRecord, tag: str, kind: str, options: list[str], templates: TemplateSet
) -> Question | None:
    line, column = record.origin.line, record.origin.column("tag")
    if kind == "choice" and len(options) < 2:
        listed = ", ".join(map(repr, options)) or "none"
        _problem(
            plan,
            line,
            column,
            f"new multiple-choice question {tag!r} has {len(options)} option(s) ({listed}): list all its options "
            "in the options column, e.g. 'small|medium|large'",
        )
        return None
    try:
        text = templates.question_text(tag, kind)
        return Question(tag, text, kind, tag, tuple(options) if kind == "choice" else ("yes", "no"))
    except ConfigError as exc:
        _problem(plan, line, column, str(exc))
        return None


def _stored_annotations(kb: KnowledgeBase | None, source: str) -> set[tuple[str, str, str, str, str]]:
    if kb is None:
        return set()
    return set(
        kb.db.execute(
            """SELECT l.key, q.tag, a.answer, a.worker, a.task FROM annotations a
               JOIN labels l ON l.id = a.label_id JOIN questions q ON q.id = a.question_id WHERE a.source = ?""",
            [source],
        )
    )
