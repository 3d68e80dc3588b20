"""Export new crowd task batches as MTurk input CSV files (one row = one HIT).

The columns are MTurk's *input variables*: the requester site turns each into ``${name}`` for the task's
HTML layout, and the batch results come back with each prefixed by ``Input.`` next to the workers'
``Answer.*`` fields, which is what ``crowdsourcing.importers.mturk`` reads. ``mturk_layout`` gives a
matching HTML layout, so that the loop export -> MTurk -> ``clarify import mturk`` works unchanged:

- tags: ``label, label_name, label_text, tag_1 ... tag_10``; workers tick the tags that apply (form field
  ``selected``; MTurk joins several ticks with '|') or "none of the above". Each label gets its
  ``per_label`` most relevant binary tags (ranked by a pluggable scorer, BM25 by default), ten per HIT.
- choices: ``label, label_name, label_text, question, question_text, options``; one option or
  "not applicable" (form field ``choice``). One HIT per label and multiple-choice question.
- queries: ``label, label_name, label_text``; the worker writes a short query (form field ``query``).
- unanswered: ``session, query, note, options``: a question a person handed on because nothing fitted
  (assistant.app.session.session, out of scope); the worker picks the label that answers it after all, or "none of the
  above" (a new label is needed) (form field ``choice``). ``options`` are the closest labels "key: name".
- label_queries: ``query, label_1 ... label_K, label_name_1 ... label_name_K``; the worker picks the label
  that answers a user's query, or "none of the above" (form field ``label``). The queries and candidate
  labels come from the caller (``clarify learn suggest``: the queries whose labels would help the text
  prior most, with its top-K labels); ``clarify import mturk --kind queries`` reads the picks back as
  labelled queries.

Pairs that already have crowd (not induced) annotations are left out unless ``skip_annotated`` is False.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from assistant.errors import ConfigError, UnknownLabelError
from assistant.paths import write_output_file
from assistant.store import Domain
from assistant.text.printable import printable_text
from crowdsourcing.importers.base import NONE_OF_THE_ABOVE, NOT_APPLICABLE, SEPARATOR, TAG_SLOTS, neutralise_formula
from crowdsourcing.scoring import BM25Scorer, RelevanceScorer, label_queries_text, rank

EXPORT_KINDS = ("tags", "choices", "queries", "unanswered")
LAYOUT_KINDS = (*EXPORT_KINDS, "label_queries")
UNANSWERED_COLUMNS = ["session", "query", "note", "options"]
LABEL_COLUMNS = ["label", "label_name", "label_text"]


def tag_columns(per_task: int = TAG_SLOTS) -> list[str]:
    return LABEL_COLUMNS + [f"tag_{i}" for i in range(1, per_task + 1)]


CHOICE_COLUMNS = [*LABEL_COLUMNS, "question", "question_text", "options"]
QUERY_COLUMNS = list(LABEL_COLUMNS)


def _label_fields(domain: Domain, y: int) -> dict[str, str]:
    label = domain.labels[y]
    return {"label": label.key, "label_name": label.name, "label_text": label.text}


def _crowd_annotated(domain: Domain) -> np.ndarray:
    """[Q, Y] bool: pairs with annotations from people (questions not marked induced)."""
    induced = np.array([q.induced for q in domain.questions], dtype=bool)
    return domain.annotated & ~induced[:, None]


def tag_tasks(
    domain: Domain,
    per_label: int = 50,
    per_task: int = TAG_SLOTS,
    scorer: RelevanceScorer | None = None,
    skip_annotated: bool = True,
) -> list[dict[str, str]]:
    """Rows of a tag-task batch: for each label its ``per_label`` best binary tags, ``per_task`` per row."""
    if not 1 <= per_task <= 50:
        raise ConfigError(f"tags per task must be between 1 and 50, got {per_task}")
    binary = [q for q, question in enumerate(domain.questions) if question.kind == "binary"]
    if not binary:
        raise ConfigError(f"domain {domain.name!r} has no binary questions (tags) to ask workers about")
    tags = [domain.questions[q].tag for q in binary]
    for tag in tags:
        if SEPARATOR in tag:
            raise ConfigError(f"tag {tag!r} contains {SEPARATOR!r}, which MTurk uses to join selections: rename it")
    scores = np.asarray((scorer or BM25Scorer())(label_queries_text(domain), tags))
    if scores.shape != (domain.num_labels, len(tags)):
        raise ConfigError(
            f"the relevance scorer returned shape {scores.shape}, expected {(domain.num_labels, len(tags))}"
        )
    allowed = ~_crowd_annotated(domain)[binary].T if skip_annotated else None
    rows = []
    for y, chosen in enumerate(rank(scores, allowed, per_label)):
        for start in range(0, len(chosen), per_task):
            chunk = [tags[t] for t in chosen[start : start + per_task]]
            row = _label_fields(domain, y)
            row.update({f"tag_{i + 1}": chunk[i] if i < len(chunk) else "" for i in range(per_task)})
            rows.append(row)
    return rows


def choice_tasks(domain: Domain, skip_annotated: bool = True) -> list[dict[str, str]]:
    """Rows of a multiple-choice batch: one per label and multiple-choice question."""
    annotated = _crowd_annotated(domain)
    rows = []
    for y in range(domain.num_labels):
        for q, question in enumerate(domain.questions):
            if question.kind != "choice" or (skip_annotated and annotated[q, y]):
                continue
            row = _label_fields(domain, y)
            row.update(
                {"question": question.tag, "question_text": question.text, "options": SEPARATOR.join(question.options)}
            )
            rows.append(row)
    return rows


def query_tasks(domain: Domain) -> list[dict[str, str]]:
    """Rows of a query-writing batch: one per label (ask MTurk for several assignments per HIT)."""
    return [_label_fields(domain, y) for y in range(domain.num_labels)]


def unanswered_tasks(domain: Domain, handed_on: Sequence[dict]) -> list[dict[str, str]]:
    """Rows of a labelling batch for handed-on questions (dicts with session, query, note, closest label keys)."""
    rows = []
    for item in handed_on:
        names = []
        for key in item.get("closest", []):
            try:
                names.append(f"{key}: {domain.labels[domain.label_index(key)].name}")
            except UnknownLabelError:
                continue  # a label removed since the session
        options = SEPARATOR.join([*(n.replace(SEPARATOR, "/") for n in names), NONE_OF_THE_ABOVE])
        rows.append(
            {"session": str(item["session"]), "query": item["query"], "note": item.get("note", ""), "options": options}
        )
    return rows


def label_query_columns(per_task: int) -> list[str]:
    return (
        ["query"] + [f"label_{i}" for i in range(1, per_task + 1)] + [f"label_name_{i}" for i in range(1, per_task + 1)]
    )


def label_query_tasks(domain: Domain, items: Sequence[tuple[str, Sequence[int]]], per_task: int = 5) -> list[dict]:
    """Rows of a labelling batch: one per (query, candidate label indices), at most ``per_task`` labels each."""
    if not 1 <= per_task <= 20:
        raise ConfigError(f"labels per task must be between 1 and 20, got {per_task}")
    rows = []
    for query, labels in items:
        if not query.strip():
            raise ConfigError("a query to label is empty")
        keys = [domain.labels[y].key for y in list(labels)[:per_task]]
        names = [domain.labels[y].name for y in list(labels)[:per_task]]
        row = {"query": " ".join(query.split())}
        row.update({f"label_{i + 1}": keys[i] if i < len(keys) else "" for i in range(per_task)})
        row.update({f"label_name_{i + 1}": names[i] if i < len(names) else "" for i in range(per_task)})
        rows.append(row)
    return rows


def export_label_queries(
    domain: Domain, items: Sequence[tuple[str, Sequence[int]]], out: str | Path, per_task: int = 5
) -> dict:
    """Write a "label these queries" MTurk batch for ``items`` (query, candidate labels) to ``out``; summary."""
    rows = label_query_tasks(domain, items, per_task)
    if not rows:
        raise ConfigError(f"no queries to label in domain {domain.name!r}")
    columns = label_query_columns(per_task)
    path = write_csv(rows, columns, out)
    return {"file": str(path), "domain": domain.name, "kind": "label_queries", "tasks": len(rows), "columns": columns}


def write_csv(rows: Sequence[dict[str, str]], columns: Sequence[str], out: str | Path) -> Path:
    """Write ``rows`` as UTF-8 CSV with a header row, atomically (a temporary file, then renamed;
    ``assistant.paths.write_output_file``).

    A cell a spreadsheet would run as a formula (see ``neutralise_formula``) gets a
    leading apostrophe, as OWASP recommends; ``crowdsourcing.importers`` removes it when the results come back.
    Escape sequences and control characters are removed (``assistant.text.printable``; issue 41).
    """
    out = Path(out)
    if not out.parent.exists():
        raise ConfigError(f"cannot write {out}: the folder {out.parent} does not exist; create it first")

    def write(tmp: Path) -> None:
        with tmp.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(columns), quoting=csv.QUOTE_MINIMAL)
            writer.writeheader()
            # a query's ESC and OSC sequences act on the terminal that shows the file (`cat`, a preview)
            writer.writerows({k: neutralise_formula(printable_text(v)) for k, v in row.items()} for row in rows)

    # a new file or a regular one (never a FIFO, a device or through a symbolic link), keeping its mode
    return write_output_file(out, write, "--out")


def export_tasks(
    domain: Domain,
    out: str | Path,
    kind: str = "tags",
    per_label: int = 50,
    per_task: int = TAG_SLOTS,
    scorer: RelevanceScorer | None = None,
    skip_annotated: bool = True,
    handed_on: Sequence[dict] = (),
) -> dict:
    """Write a batch of ``kind`` tasks ('tags', 'choices', 'queries' or 'unanswered': ``handed_on`` questions)
    for ``domain`` to ``out``; summary dict."""
    if kind == "tags":
        rows, columns = tag_tasks(domain, per_label, per_task, scorer, skip_annotated), tag_columns(per_task)
    elif kind == "choices":
        rows, columns = choice_tasks(domain, skip_annotated), CHOICE_COLUMNS
    elif kind == "queries":
        rows, columns = query_tasks(domain), QUERY_COLUMNS
    elif kind == "unanswered":
        rows, columns = unanswered_tasks(domain, handed_on), UNANSWERED_COLUMNS
    else:
        raise ConfigError(f"unknown task kind {kind!r}: use one of {', '.join(EXPORT_KINDS)}")
    if not rows:
        raise ConfigError(
            f"no {kind} tasks to export for domain {domain.name!r}: every pair is annotated already "
            "(pass --all to export them anyway)"
            if kind not in ("queries", "unanswered")
            else f"domain {domain.name!r} has no labels"
            if kind == "queries"
            else f"no question of domain {domain.name!r} was handed on (out of scope) yet"
        )
    path = write_csv(rows, columns, out)
    return {
        "file": str(path),
        "domain": domain.name,
        "kind": kind,
        "tasks": len(rows),
        "labels": len({row.get("label", "") for row in rows}) if kind != "unanswered" else 0,
        "columns": list(columns),
        "scorer": getattr(scorer or BM25Scorer(), "name", type(scorer).__name__) if kind == "tags" else None,
    }


def mturk_layout(kind: str, per_task: int = TAG_SLOTS) -> str:
    """A minimal MTurk HTML layout for ``kind`` tasks whose form fields the importer reads back."""
    header = "<h3>${label_name}</h3>\n<p>${label_text}</p>\n"
    if kind == "label_queries":
        radios = "\n".join(
            f'<label><input type="radio" name="label" value="${{label_{i}}}" required> ${{label_name_{i}}}</label><br>'
            for i in range(1, per_task + 1)
        )
        body = (
            "<h3>A user typed:</h3>\n<p><b>${query}</b></p>\n<p>Which of these answers what the user wants?</p>\n"
            f"{radios}\n"
            f'<label><input type="radio" name="label" value="{NONE_OF_THE_ABOVE}" required> {NONE_OF_THE_ABOVE}'
            "</label>\n"
            "<script>document.querySelectorAll('input[name=label]').forEach(function (box) {\n"
            "  if (!box.value) { box.parentNode.style.display = 'none'; } });</script>\n"
        )
        return f"<!-- Clarify {kind} task: fields are read back by `clarify import mturk --kind queries` -->\n{body}"
    if kind == "tags":
        boxes = "\n".join(
            f'<label><input type="checkbox" name="selected" value="${{tag_{i}}}"> ${{tag_{i}}}</label><br>'
            for i in range(1, per_task + 1)
        )
        body = (
            "<p>Tick every tag that fits this item.</p>\n"
            f"{boxes}\n"
            f'<label><input type="checkbox" name="selected" value="{NONE_OF_THE_ABOVE}"> {NONE_OF_THE_ABOVE}'
            "</label>\n"
            "<script>document.querySelectorAll('input[name=selected]').forEach(function (box) {\n"
            "  if (!box.value) { box.parentNode.style.display = 'none'; } });</script>\n"
        )
    elif kind == "choices":
        body = (
            "<p>${question_text}</p>\n"
            '<div id="choices" data-options="${options}"></div>\n'
            f'<label><input type="radio" name="choice" value="{NOT_APPLICABLE}" required> {NOT_APPLICABLE}</label>\n'
            "<script>var box = document.getElementById('choices');\n"
            "box.dataset.options.split('|').forEach(function (option) {\n"
            "  var label = document.createElement('label'); var input = document.createElement('input');\n"
            "  input.type = 'radio'; input.name = 'choice'; input.value = option;\n"
            "  label.appendChild(input); label.appendChild(document.createTextNode(' ' + option));\n"
            "  box.appendChild(label); box.appendChild(document.createElement('br')); });</script>\n"
        )
    elif kind == "queries":
        body = (
            "<p>Write a short question (3 to 10 words) someone with this problem might type. Leave some details "
            "out: do not copy the text above.</p>\n"
            '<input type="text" name="query" size="80" required>\n'
        )
    else:
        raise ConfigError(f"unknown task kind {kind!r}: use one of {', '.join(LAYOUT_KINDS)}")
    return f"<!-- Clarify {kind} task: fields are read back by `clarify import mturk` -->\n{header}{body}"
