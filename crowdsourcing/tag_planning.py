"""Planning tag answers: tags normalised and merged with each other and with the domain's question tags,
new tags turned into questions by a ``TemplateSet``, choice answers checked against the options, induced
questions marked for replacement by the crowd's answers."""

from __future__ import annotations

import difflib
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from assistant.errors import ConfigError
from assistant.sources.templates import TemplateSet
from assistant.store import KnowledgeBase, Question, QuestionKind
from crowdsourcing.agreement import Rating
from crowdsourcing.importers import NOT_APPLICABLE, TagRecord
from crowdsourcing.importers.base import fold
from crowdsourcing.plan import ImportPlan, PreviewRow, add_problem, content_task, stored_annotations
from crowdsourcing.tags import merge_tags, normalize_tag, tag_key
from crowdsourcing.validation import LabelMatcher

QUESTION_KINDS: tuple[QuestionKind, ...] = ("binary", "choice")


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


def plan_tags(
    plan: ImportPlan,
    kb: KnowledgeBase | None,
    matcher: LabelMatcher,
    questions: Sequence[Question],
    templates: TemplateSet,
) -> None:
    """Plan the import of tag records: resolve their tags (merging spellings), check labels, kinds and
    answers, add the new questions, and the annotations not stored yet (``plan`` collects all)."""
    records = [r for r in plan.parsed.records if isinstance(r, TagRecord)]
    by_tag = {q.tag: q for q in questions}
    resolutions = _resolve_kinds(plan, records, questions)
    found = _resolve_records(plan, records, matcher, resolutions, questions)
    new_questions: dict[str, Question] = {}
    for kind in QUESTION_KINDS:
        for goal in resolutions[kind].new:
            first = found.first_record.get((kind, goal))
            if first is None:
                continue
            question = _new_question(plan, first, goal, kind, found.choice_options.get(goal, []), templates)
            if question is not None:
                new_questions[goal] = question
    plan.questions_new = list(new_questions.values())
    known = {**by_tag, **new_questions}
    planned: dict[tuple, list] = {}  # slot -> [key, tag, answer, count, worker, task, preview row indices]
    for record, key, goal in found.resolved:
        _plan_record(plan, planned, record, key, known.get(goal) if goal else None, goal)
    _keep_unstored(plan, planned, stored_annotations(kb, plan.source))
    annotated = {tag for _, tag, *_ in plan.annotations}
    plan.induced_replaced = [q.tag for q in questions if q.induced and q.tag in annotated]


def _resolve_kinds(plan: ImportPlan, records: Sequence[TagRecord], questions: Sequence[Question]) -> dict:
    """Per question kind, the tags the records use resolved against the domain's (``resolve_tags``)."""
    resolutions: dict[str, TagResolution] = {}
    for kind in QUESTION_KINDS:
        weights: defaultdict[str, float] = defaultdict(float)  # a tag's weight: how many people used it
        for r in records:
            if r.kind == kind:
                weights[r.tag] += r.count
        existing = [q.tag for q in questions if q.kind == kind] if weights else []
        resolutions[kind] = resolve_tags(weights, existing)
        plan.merges.extend({**m, "kind": kind} for m in resolutions[kind].merges)
    return resolutions


@dataclass
class _Resolved:
    """Each record with its label key and resolved tag (None: a problem), the first record of each new tag
    and the options the records give each new multiple-choice tag."""

    resolved: list[tuple[TagRecord, str | None, str | None]]
    first_record: dict[tuple[str, str], TagRecord]
    choice_options: dict[str, list[str]]


def _resolve_records(
    plan: ImportPlan,
    records: Sequence[TagRecord],
    matcher: LabelMatcher,
    resolutions: Mapping[str, TagResolution],
    questions: Sequence[Question],
) -> _Resolved:
    by_tag = {q.tag: q for q in questions}
    by_normal: dict[tuple[str, str], Question] = {(q.kind, normalize_tag(q.tag)): q for q in reversed(questions)}
    found = _Resolved([], {}, defaultdict(list))
    for record in records:
        line = record.origin.line
        key = matcher.key(record.label)
        if key is None:
            add_problem(plan, line, record.origin.column("label"), matcher.unknown_message(record.label))
        goal = resolutions[record.kind].target.get(record.tag)
        if goal is None:
            add_problem(plan, line, record.origin.column("tag"), f"tag {record.tag!r} has no letters or digits")
        elif _wrong_kind(plan, record, goal, by_tag, by_normal):
            goal = None
        found.resolved.append((record, key, goal))
        if goal is None:
            continue
        found.first_record.setdefault((record.kind, goal), record)
        if record.kind == "choice" and goal not in by_tag:
            offered = record.options or ((record.answer,) if record.answer != NOT_APPLICABLE else ())
            known_options = {fold(o) for o in found.choice_options[goal]}
            for option in offered:
                if fold(option) not in known_options:
                    known_options.add(fold(option))
                    found.choice_options[goal].append(option)
    return found


def _canonical_answer(plan: ImportPlan, record: TagRecord, question: Question, goal: str | None) -> str | None:
    """The record's answer spelt as the question's option (None: no such option, reported)."""
    answer = record.answer
    canonical = next((o for o in question.options if fold(o) == fold(answer)), None)
    if canonical is None:
        add_problem(
            plan,
            record.origin.line,
            record.origin.column("answer"),
            f"unknown option {answer!r} for question {goal!r}: use one of "
            f"{', '.join(map(repr, question.options))} or {NOT_APPLICABLE!r}",
        )
    return canonical


def _plan_record(
    plan: ImportPlan,
    planned: dict[tuple, list],
    record: TagRecord,
    key: str | None,
    question: Question | None,
    goal: str | None,
) -> None:
    """One record's preview row, rating and planned annotation (``planned``: by slot, duplicates merged)."""
    line = record.origin.line
    answer = record.answer
    if question is not None and answer != NOT_APPLICABLE:
        canonical = _canonical_answer(plan, record, question, goal)
        if canonical is None:
            question = None
        else:
            answer = canonical
    if key is None or question is None:
        plan.rows.append(
            PreviewRow(line, record.kind, key or record.label, goal or record.tag, answer, record.worker, "problem")
        )
        return
    if record.worker:
        plan.ratings.append(Rating(record.kind, record.task, (key, question.tag), record.worker, answer))
    if answer == NOT_APPLICABLE:
        plan.not_applicable += 1
        plan.rows.append(PreviewRow(line, record.kind, key, question.tag, answer, record.worker, "not applicable"))
        return
    task = record.task
    if record.worker:
        task = task or content_task(key, question.tag, record.worker)
        slot: tuple = (key, question.tag, record.worker, task)
        if slot in planned:
            plan.duplicates += 1
            if record.kind == "binary" and answer == "yes":  # a tag shown twice (two spellings merged)
                planned[slot][2] = "yes"
            plan.rows.append(PreviewRow(line, record.kind, key, question.tag, answer, record.worker, "duplicate"))
            return
        planned[slot] = [key, question.tag, answer, record.count, record.worker, task, []]
    else:
        slot = (key, question.tag, answer, task)
        if slot in planned:
            planned[slot][3] += record.count
        else:
            planned[slot] = [key, question.tag, answer, record.count, "", task, []]
    planned[slot][6].append(len(plan.rows))
    plan.rows.append(PreviewRow(line, record.kind, key, question.tag, answer, record.worker, "new"))


def _keep_unstored(plan: ImportPlan, planned: Mapping[tuple, list], stored) -> None:
    """The planned annotations not stored yet go to ``plan.annotations``; the others mark their rows."""
    stored_slots = {(key, tag, worker, task) for key, tag, _, worker, task in stored if worker}
    for entry in planned.values():
        key, tag, answer, count, worker, task, row_indices = entry
        if not task:  # aggregated counts without a task: keyed by what the file says, whatever its row order
            task = entry[5] = content_task(key, tag, answer, repr(float(count)))
        if (key, tag, answer, worker, task) in stored or (worker and (key, tag, worker, task) in stored_slots):
            plan.existing += 1
            for i in row_indices:
                plan.rows[i] = replace(plan.rows[i], status="exists")
        else:
            plan.annotations.append((key, tag, answer, float(count), worker, task))


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
    add_problem(
        plan,
        record.origin.line,
        record.origin.column("tag"),
        f"{record.tag!r} is a {'multiple-choice' if clash.kind == 'choice' else 'binary'} question "
        f"({clash.tag!r}) in the domain: {how}",
    )
    return True


def _new_question(
    plan: ImportPlan, record: TagRecord, tag: str, kind: QuestionKind, options: list[str], templates: TemplateSet
) -> Question | None:
    line, column = record.origin.line, record.origin.column("tag")
    if kind == "choice" and len(options) < 2:
        listed = ", ".join(map(repr, options)) or "none"
        add_problem(
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
        add_problem(plan, line, column, str(exc))
        return None
