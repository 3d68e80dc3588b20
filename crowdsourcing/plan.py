"""What an import would do: the ``ImportPlan`` (resolved rows, problems, ratings, preview rows) that
``crowdsourcing.planning`` and ``crowdsourcing.tag_planning`` fill and ``crowdsourcing.importing`` writes."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field

from assistant.errors import Problem
from assistant.store import KnowledgeBase, Label, Question
from crowdsourcing.agreement import Rating
from crowdsourcing.importers import ParsedFile


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


def add_problem(plan: ImportPlan, line: int | None, column: str | None, message: str) -> None:
    plan.problems.append(Problem(plan.parsed.filename, line, column, message))


def content_task(*parts: str) -> str:
    """The task key of a row whose file names no task: derived from what the row says (label, tag and worker;
    for aggregated counts label, tag, answer and count), never from the file, so that the same rows in
    another order or in another file are recognised instead of counted twice."""
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:16]
    return f"row:{digest}"


def stored_annotations(kb: KnowledgeBase | None, source: str) -> set[tuple[str, str, str, str, str]]:
    return set() if kb is None else kb.annotation_keys(source)
