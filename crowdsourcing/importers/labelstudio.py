"""Label Studio JSON export ("Export" > "JSON": a list of tasks with their annotations).

Each task's ``data`` uses the same variables as Clarify's MTurk tasks (see ``crowdsourcing.importers.mturk``):
``label``; ``tag_1`` ... ``tag_10`` (or a ``tags`` list) for a tag task; ``question`` and ``options``
("a|b|c" or a list) for a multiple-choice task. Each annotation's ``result`` holds

- a ``choices`` result: the selected tags (or "none of the above") for a tag task, exactly one option
  (or "not applicable") for a multiple-choice task;
- a ``textarea`` result: the query (or queries) the annotator wrote for a query task.

Annotations with ``was_cancelled`` (skipped by the annotator) are left out and reported. The annotator
(``completed_by``, an id or a user object) is the worker; the task id plays the part of the HIT. Problems
point at the line where the task starts and at the field path inside it.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from typing import Any

from assistant.sources.files import Problems
from crowdsourcing.importers.base import (
    NONE_OF_THE_ABOVE,
    NOT_APPLICABLE,
    Origin,
    ParsedFile,
    QueryRecord,
    Skipped,
    TagRecord,
    fold,
    match_choice,
    restore_formula,
    split_multi,
)

_TAG_SLOT = re.compile(r"^tag_(\d+)$")
_WS = re.compile(r"\s*")


def _after_space(text: str, position: int) -> int:
    """The first position at or after ``position`` that is no whitespace (``_WS`` always matches)."""
    found = _WS.match(text, position)
    return position if found is None else found.end()


def json_list(text: str, problems: Problems, what: str) -> list[tuple[int, Any]] | None:
    """Parse ``text`` as a JSON list; return (line where each element starts, element) or None on problems."""
    try:
        whole = json.loads(text)
    except json.JSONDecodeError as exc:
        problems.add(
            exc.lineno,
            None,
            f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno}); export the file again "
            "or check it with a JSON validator",
        )
        return None
    except RecursionError:
        problems.add(None, None, "the JSON is nested too deeply to be an export: check that this is the right file")
        return None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        problems.add(None, None, f"invalid JSON value ({str(exc).split(':')[0]}): check that this is the right file")
        return None
    if not isinstance(whole, list):
        problems.add(1, None, f"expected a JSON list of {what} (Label Studio's 'JSON' export), found a {_kind(whole)}")
        return None
    newlines = [i for i, ch in enumerate(text) if ch == "\n"]
    decoder = json.JSONDecoder()
    items = []
    position = _after_space(text, 0) + 1  # after '['
    for _ in whole:
        position = _after_space(text, position)
        value, end = decoder.raw_decode(text, position)
        items.append((bisect_right(newlines, position - 1) + 1, value))
        position = _after_space(text, end)
        if text[position : position + 1] == ",":
            position += 1
    return items


def _kind(value: Any) -> str:
    return {dict: "JSON object", str: "string", int: "number", float: "number", bool: "boolean"}.get(
        type(value), "null" if value is None else type(value).__name__
    )


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _worker(annotation: dict) -> str:
    who = annotation.get("completed_by")
    if isinstance(who, dict):
        who = who.get("email") or who.get("id")
    return _text(who)


def parse(text: str, parsed: ParsedFile, problems: Problems) -> None:
    """Fill ``parsed`` from a Label Studio JSON export; report into ``problems``."""
    if parsed.kind == "labels":
        problems.add(
            None,
            None,
            "Label Studio exports hold queries or tag annotations, not labels: import labels from a plain file "
            "with `clarify import csv FILE --kind labels`",
        )
        return
    tasks = json_list(text, problems, "tasks")
    if tasks is None:
        return
    parsed.rows = len(tasks)
    if not tasks:
        problems.add(1, None, "the export holds no tasks: export the project again after annotating")
        return
    wanted = parsed.kind
    found: set[str] = set()
    for index, (line, task) in enumerate(tasks):
        if not isinstance(task, dict) or not isinstance(task.get("data"), dict):
            problems.add(line, f"[{index}].data", "each task must be a JSON object with a 'data' object")
            continue
        annotations = task.get("annotations", task.get("completions", []))
        if not isinstance(annotations, list):
            problems.add(line, "annotations", "'annotations' must be a list")
            continue
        # the tasks came from `clarify export tasks`, which neutralised formula-like cells
        data = {k: restore_formula(v) if isinstance(v, str) else v for k, v in task["data"].items()}
        task_id = _text(task.get("id")) or f"task-{index + 1}"
        label = _text(data.get("label"))
        if not label:
            problems.add(line, "data.label", "the task has no 'label' in its data: each task must name its label")
            continue
        for j, annotation in enumerate(annotations):
            where = f"annotations[{j}]"
            if not isinstance(annotation, dict):
                problems.add(line, where, "each annotation must be a JSON object")
                continue
            worker = _worker(annotation)
            if annotation.get("was_cancelled"):
                parsed.skipped.append(
                    Skipped(line, worker, task_id, _text(annotation.get("id")), "cancelled in Label Studio")
                )
                continue
            results = annotation.get("result")
            if not isinstance(results, list) or not results:
                problems.add(line, f"{where}.result", "the annotation has no result: annotate the task or skip it")
                continue
            for k, result in enumerate(results):
                path = f"{where}.result[{k}]"
                kind = result.get("type") if isinstance(result, dict) else None
                value = result.get("value") if isinstance(result, dict) else None
                if kind not in ("choices", "textarea") or not isinstance(value, dict):
                    continue
                record_kind = "queries" if kind == "textarea" else "tags"
                if wanted is not None and record_kind != wanted:
                    continue
                found.add(record_kind)
                origin_base = (line, path, task_id, worker, label)
                if kind == "textarea":
                    _queries(origin_base, value, parsed, problems)
                elif "question" in data:
                    _choice(origin_base, data, value, parsed, problems)
                else:
                    _tags(origin_base, data, value, parsed, problems)
    if wanted is None:
        if len(found) > 1:
            problems.add(None, None, "the export has both query and tag answers: pass --kind queries or --kind tags")
        elif not found and not problems:
            problems.add(
                None,
                None,
                "no 'choices' or 'textarea' results found: is this a Clarify tag or query project exported as JSON?",
            )
        parsed.kind = next(iter(found)) if len(found) == 1 else None


def _queries(base: tuple, value: dict, parsed: ParsedFile, problems: Problems) -> None:
    line, path, task_id, worker, label = base
    texts = value.get("text")
    texts = [texts] if isinstance(texts, str) else texts
    if not isinstance(texts, list) or not any(isinstance(t, str) and t.strip() for t in texts):
        problems.add(line, f"{path}.value.text", "the query is empty: the annotator wrote nothing")
        return
    origin = Origin(line, {"label": "data.label", "text": f"{path}.value.text"})
    for text in texts:
        if isinstance(text, str) and text.strip():
            parsed.records.append(QueryRecord(origin, label, " ".join(text.split()), None, worker, task_id))


def _tags(base: tuple, data: dict, value: dict, parsed: ParsedFile, problems: Problems) -> None:
    line, path, task_id, worker, label = base
    if isinstance(data.get("tags"), list):
        offered = [(f"data.tags[{i}]", _text(t)) for i, t in enumerate(data["tags"]) if _text(t)]
    else:
        slots = sorted((int(m.group(1)), key) for key in data if (m := _TAG_SLOT.match(key)))
        offered = [(f"data.{key}", _text(data[key])) for _, key in slots if _text(data[key])]
    if not offered:
        problems.add(line, "data", "a tag task needs tag_1 ... tag_10 (or a 'tags' list) in its data")
        return
    choices = value.get("choices")
    if not isinstance(choices, list) or not choices:
        problems.add(line, f"{path}.value.choices", f"no answer: select tags or {NONE_OF_THE_ABOVE!r}")
        return
    choices = [restore_formula(_text(c)) for c in choices]
    by_fold: dict[str, str] = {}  # folded tag -> the column that offered it
    for column, tag in offered:
        by_fold.setdefault(fold(tag), column)
    folded = [fold(_text(c)) for c in choices]
    if NONE_OF_THE_ABOVE in folded:
        if len(folded) > 1:
            problems.add(line, f"{path}.value.choices", f"{NONE_OF_THE_ABOVE!r} was selected together with tags")
            return
        chosen: set[str] = set()
    else:
        unknown = [_text(c) for c, f in zip(choices, folded) if f not in by_fold]
        if unknown:
            problems.add(
                line,
                f"{path}.value.choices",
                f"selected {', '.join(map(repr, unknown))} is not among the task's tags "
                f"({', '.join(repr(t) for _, t in offered)}) nor {NONE_OF_THE_ABOVE!r}",
            )
            return
        chosen = {by_fold[f] for f in folded}
    for column, tag in offered:
        origin = Origin(line, {"label": "data.label", "tag": column, "answer": f"{path}.value.choices"})
        answer = "yes" if column in chosen else "no"
        parsed.records.append(TagRecord(origin, label, tag, "binary", answer, (), worker, task_id))


def _choice(base: tuple, data: dict, value: dict, parsed: ParsedFile, problems: Problems) -> None:
    line, path, task_id, worker, label = base
    question = _text(data.get("question"))
    raw_options = data.get("options", "")
    options = tuple(
        _text(o) for o in (raw_options if isinstance(raw_options, list) else split_multi(_text(raw_options)))
    )
    choices = value.get("choices")
    column = f"{path}.value.choices"
    if not question:
        problems.add(line, "data.question", "the multiple-choice task has an empty 'question'")
        return
    if not isinstance(choices, list) or len(choices) != 1:
        problems.add(line, column, f"choose exactly one option (or {NOT_APPLICABLE!r}) in a multiple-choice task")
        return
    answer = match_choice(restore_formula(_text(choices[0])), options)
    if answer is None or not _text(choices[0]):
        problems.add(
            line,
            column,
            f"unknown option {_text(choices[0])!r} for question {question!r}: use one of "
            f"{', '.join(map(repr, options))} or {NOT_APPLICABLE!r}",
        )
        return
    origin = Origin(line, {"label": "data.label", "tag": "data.question", "answer": column})
    parsed.records.append(TagRecord(origin, label, question, "choice", answer, options, worker, task_id))
