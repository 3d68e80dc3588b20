"""Amazon Mechanical Turk batch results (the CSV that "Download CSV" gives on the requester site).

One row per assignment. MTurk prefixes the task's input variables with ``Input.`` and the form fields the
worker filled in with ``Answer.``. Clarify's task batches (``clarify export tasks``) use these variables,
so the results of a batch made from an exported file come back in exactly this shape:

=================  ============================================================================
Column             Meaning
=================  ============================================================================
HITId              the task (HIT); several workers answer the same HIT
AssignmentId       one worker's answer to one HIT (must be unique in the file)
WorkerId           the worker
AssignmentStatus   optional; 'Rejected' rows are skipped and reported
Reject             optional; a non-empty rejection reason also skips the row
Input.label        the label key (or name) the task is about
Input.tag_1..10    tag task: the tags offered; Answer.selected = "tag a|tag b" or "none of the above"
Input.question     choice task: the question's tag; Input.options = "small|medium|large";
                   Answer.choice = one option or "not applicable"
Answer.query       query task: the short query the worker wrote for Input.label
Input.query        labelling task (``clarify learn suggest``): a user's query; Answer.label = the label
                   key the worker picked among Input.label_1..K, or "none of the above" (skipped, reported)
=================  ============================================================================

Other columns (Title, Reward, Input.label_name, ...) are ignored. A tag task gives each offered tag a
'yes' (selected) or 'no' (not selected) annotation from the worker.
"""

from __future__ import annotations

import re

from assistant.sources.files import Problems, read_csv
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
    missing_columns,
    restore_formula,
    split_multi,
)

HIT, ASSIGNMENT, WORKER = "HITId", "AssignmentId", "WorkerId"
STATUS, REJECT = "AssignmentStatus", "Reject"
INPUT, ANSWER = "Input.", "Answer."
LABEL = INPUT + "label"
QUESTION = INPUT + "question"
OPTIONS = INPUT + "options"
SELECTED = ANSWER + "selected"
CHOICE = ANSWER + "choice"
QUERY = ANSWER + "query"
ASKED_QUERY = INPUT + "query"
PICKED = ANSWER + "label"
_TAG_SLOT = re.compile(r"^Input\.tag_(\d+)$")

HINT = "see `clarify export tasks --help` for the task layout Clarify reads back"


def parse(text: str, parsed: ParsedFile, problems: Problems) -> None:
    """Fill ``parsed`` (records, skipped, kind) from the batch results ``text``; report into ``problems``."""
    table = read_csv(text, problems)
    if table is None:
        return
    header = table.header
    parsed.rows = len(table.rows)
    kind = _kind(header, parsed.kind, problems)
    if kind is None:
        return
    parsed.kind = kind
    labelling = kind == "queries" and PICKED in header and QUERY not in header
    label_column = PICKED if labelling else LABEL
    if labelling:
        required = [HIT, ASSIGNMENT, WORKER, ASKED_QUERY, PICKED]
    else:
        required = [HIT, ASSIGNMENT, WORKER, LABEL] + ([QUERY] if kind == "queries" else [])
    if missing_columns(header, required, problems, f"an MTurk {kind} batch", HINT):
        return
    slots = sorted((int(m.group(1)), c) for c in header if (m := _TAG_SLOT.match(c)))
    known = {HIT, ASSIGNMENT, WORKER, STATUS, REJECT, LABEL, QUESTION, OPTIONS, SELECTED, CHOICE, QUERY, PICKED}
    known.update(c for _, c in slots)
    parsed.ignored_columns = [c for c in header if c.startswith(ANSWER) and c not in known]

    seen_assignments: dict[str, int] = {}
    seen_pairs: dict[tuple[str, str], int] = {}
    for line, row in table.rows:
        # the task batch came from `clarify export tasks`, which neutralised formula-like cells
        row = {c: restore_formula(v) if c.startswith(INPUT) else v for c, v in row.items()}
        hit, assignment, worker = (row[c].strip() for c in (HIT, ASSIGNMENT, WORKER))
        for column, value in ((HIT, hit), (ASSIGNMENT, assignment), (WORKER, worker)):
            if not value:
                problems.add(line, column, f"{column} is empty: every MTurk results row has one; re-download the batch")
        status, reason = row.get(STATUS, "").strip(), row.get(REJECT, "").strip()
        if status.casefold() == "rejected" or reason:
            why = "rejected" + (f": {reason}" if reason else "")
            parsed.skipped.append(Skipped(line, worker, hit, assignment, why))
            continue
        if assignment in seen_assignments:
            problems.add(
                line,
                ASSIGNMENT,
                f"assignment {assignment!r} already appeared on line {seen_assignments[assignment]}: "
                "remove the duplicate row",
            )
            continue
        seen_assignments[assignment] = line
        if worker and hit and (worker, hit) in seen_pairs:
            problems.add(
                line,
                WORKER,
                f"worker {worker!r} answered HIT {hit!r} twice (also on line {seen_pairs[worker, hit]}): "
                "MTurk allows one assignment per worker and HIT; remove one of the rows",
            )
            continue
        seen_pairs[worker, hit] = line
        label = row[label_column].strip()
        if labelling and fold(label) == NONE_OF_THE_ABOVE:
            parsed.skipped.append(Skipped(line, worker, hit, assignment, "no offered label fits the query"))
            continue
        if not label:
            what = "the worker picked no label" if labelling else "each task must name the label it is about"
            problems.add(line, label_column, f"the label is empty: {what}")
            continue
        if labelling:
            _labelled_query_row(line, row, label, worker, hit, parsed, problems)
        elif kind == "queries":
            _query_row(line, row, label, worker, hit, parsed, problems)
        elif row.get(QUESTION, "").strip():
            _choice_row(line, row, label, worker, hit, parsed, problems)
        else:
            _tag_row(line, row, label, slots, worker, hit, parsed, problems)


def _kind(header: list[str], wanted: str | None, problems: Problems) -> str | None:
    has_query = QUERY in header or PICKED in header
    has_tags = SELECTED in header or CHOICE in header
    if wanted == "labels":
        problems.add(
            None,
            None,
            "MTurk batches hold queries or tag annotations, not labels: import labels from a plain file with "
            "`clarify import csv FILE --kind labels`",
        )
        return None
    if wanted is not None:
        if wanted == "tags" and not has_tags:
            problems.add(
                1,
                SELECTED,
                f"a tags batch needs an {SELECTED!r} (tag task) or {CHOICE!r} (choice task) column; "
                f"answer columns found: {', '.join(c for c in header if c.startswith(ANSWER)) or 'none'}; {HINT}",
            )
            return None
        return wanted
    if has_query and has_tags:
        problems.add(1, None, "the batch has both query and tag answers: pass --kind queries or --kind tags")
        return None
    if has_query:
        return "queries"
    if has_tags:
        return "tags"
    answers = [c for c in header if c.startswith(ANSWER)]
    problems.add(
        1,
        None,
        f"cannot tell what the batch holds: expected an {QUERY!r}, {SELECTED!r} or {CHOICE!r} column, found "
        f"{', '.join(answers) or 'no Answer.* columns'}; is this an MTurk batch results file? {HINT}",
    )
    return None


def _query_row(
    line: int, row: dict[str, str], label: str, worker: str, hit: str, parsed: ParsedFile, problems: Problems
) -> None:
    text = " ".join(row[QUERY].split())
    if not text:
        problems.add(
            line,
            QUERY,
            "the query is empty: the worker wrote nothing; reject the assignment on MTurk or delete the row",
        )
        return
    origin = Origin(line, {"label": LABEL, "text": QUERY})
    parsed.records.append(QueryRecord(origin, label, text, None, worker, hit))


def _labelled_query_row(
    line: int, row: dict[str, str], label: str, worker: str, hit: str, parsed: ParsedFile, problems: Problems
) -> None:
    text = " ".join(row[ASKED_QUERY].split())
    if not text:
        problems.add(line, ASKED_QUERY, "the query is empty: the batch row lost its Input.query; re-download the batch")
        return
    origin = Origin(line, {"label": PICKED, "text": ASKED_QUERY})
    parsed.records.append(QueryRecord(origin, label, text, None, worker, hit))


def _tag_row(
    line: int,
    row: dict[str, str],
    label: str,
    slots: list[tuple[int, str]],
    worker: str,
    hit: str,
    parsed: ParsedFile,
    problems: Problems,
) -> None:
    if not slots or SELECTED not in row:
        problems.add(
            line,
            SELECTED,
            f"a tag task needs Input.tag_1 ... Input.tag_10 and {SELECTED!r} columns (or {QUESTION!r}, "
            f"{OPTIONS!r} and {CHOICE!r} for a multiple-choice task); {HINT}",
        )
        return
    offered = [(column, row[column].strip()) for _, column in slots if row[column].strip()]
    if not offered:
        problems.add(line, slots[0][1], "the task offered no tags: all Input.tag_N columns are empty")
        return
    by_fold: dict[str, str] = {}
    for column, tag in offered:
        by_fold.setdefault(fold(tag), column)
    selected = [restore_formula(s) for s in split_multi(row[SELECTED])]
    if not selected:
        problems.add(
            line,
            SELECTED,
            f"no answer: the worker selected nothing; expected tags of this task separated by '|' or "
            f"{NONE_OF_THE_ABOVE!r}",
        )
        return
    folded = [fold(s) for s in selected]
    if NONE_OF_THE_ABOVE in folded:
        if len(folded) > 1:
            problems.add(
                line, SELECTED, f"{NONE_OF_THE_ABOVE!r} was selected together with tags: keep one or the other"
            )
            return
        chosen: set[str] = set()
    else:
        unknown = [s for s, f in zip(selected, folded) if f not in by_fold]
        if unknown:
            offered_text = ", ".join(repr(t) for _, t in offered)
            problems.add(
                line,
                SELECTED,
                f"selected {', '.join(map(repr, unknown))} is not among the tags this task offered ({offered_text}) "
                f"nor {NONE_OF_THE_ABOVE!r}",
            )
            return
        chosen = {by_fold[f] for f in folded}
    for column, tag in offered:
        origin = Origin(line, {"label": LABEL, "tag": column, "answer": SELECTED})
        answer = "yes" if column in chosen else "no"
        parsed.records.append(TagRecord(origin, label, tag, "binary", answer, (), worker, hit))


def _choice_row(
    line: int, row: dict[str, str], label: str, worker: str, hit: str, parsed: ParsedFile, problems: Problems
) -> None:
    if CHOICE not in row:
        problems.add(line, CHOICE, f"a multiple-choice task needs an {CHOICE!r} column; {HINT}")
        return
    question = row[QUESTION].strip()
    options = tuple(split_multi(row.get(OPTIONS, "")))
    raw = restore_formula(row[CHOICE].strip())
    if not raw:
        problems.add(line, CHOICE, f"no answer: the worker chose nothing; expected one option or {NOT_APPLICABLE!r}")
        return
    answer = match_choice(raw, options)
    if answer is None:
        problems.add(
            line,
            CHOICE,
            f"unknown option {raw!r} for question {question!r}: use one of "
            f"{', '.join(map(repr, options))} or {NOT_APPLICABLE!r}",
        )
        return
    origin = Origin(line, {"label": LABEL, "tag": QUESTION, "answer": CHOICE})
    parsed.records.append(TagRecord(origin, label, question, "choice", answer, options, worker, hit))
