"""The import report: counts, merged tags, rejected assignments, agreement and answer distributions.

``build_report`` turns an ``ImportPlan`` (and, once applied, what the database actually took) into an
``ImportReport``. ``ImportReport.summary()`` is the one human summary, a list of (heading, text) rows that the
CLI prints as lines and the GUI's import wizard as a table; ``to_dict()`` is what ``--json`` prints and the
imports table keeps. ``answer_distributions`` summarises the smoothed empirical answer distributions
p_hat(r|q,y) (``Domain.p_hat``) of the pairs an import touched.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import asdict, dataclass, field

import numpy as np

from assistant.store import Domain
from crowdsourcing.agreement import agreement_report
from crowdsourcing.plan import ImportPlan

DEFAULT_ALPHA = 1.0
MAX_PAIRS_IN_REPORT = 200


def answer_distributions(domain: Domain, pairs: set[tuple[str, str]], alpha: float = DEFAULT_ALPHA) -> dict:
    """Summary of the smoothed empirical answer distributions p_hat(r|q,y) for (label key, tag) ``pairs``.

    Per question: the labels annotated, the mean p_hat of each option over them and the mean entropy (bits;
    the maximum is log2 of the number of options). The pairs themselves are listed when there are few.
    """
    p_hat = domain.p_hat(alpha)
    label_pos = {label.key: i for i, label in enumerate(domain.labels)}
    question_pos = {q.tag: i for i, q in enumerate(domain.questions)}
    by_question: dict[str, list[int]] = defaultdict(list)
    for key, tag in sorted(pairs):
        by_question[tag].append(label_pos[key])
    questions, entropies, listed = [], [], []
    for tag, ys in by_question.items():
        q = question_pos[tag]
        options = domain.questions[q].options
        dist = p_hat[q, : len(options)][:, ys].astype(np.float64)  # [R, n]
        with np.errstate(divide="ignore", invalid="ignore"):
            entropy = -np.where(dist > 0, dist * np.log2(dist), 0.0).sum(axis=0)
        entropies.extend(entropy.tolist())
        questions.append(
            {
                "tag": tag,
                "kind": domain.questions[q].kind,
                "labels": len(ys),
                "annotations": round(float(domain.counts[q, : len(options)][:, ys].sum()), 4),
                "mean_p": {o: round(float(v), 4) for o, v in zip(options, dist.mean(axis=1))},
                "mean_entropy_bits": round(float(entropy.mean()), 4),
                "max_entropy_bits": round(math.log2(len(options)), 4),
            }
        )
        if len(pairs) <= MAX_PAIRS_IN_REPORT:
            for y, column in zip(ys, dist.T):
                listed.append(
                    {
                        "label": domain.labels[y].key,
                        "tag": tag,
                        "p": {o: round(float(v), 4) for o, v in zip(options, column)},
                    }
                )
    return {
        "alpha": alpha,
        "pairs": len(pairs),
        "mean_entropy_bits": round(float(np.mean(entropies)), 4) if entropies else None,
        "questions": questions,
        "pair_distributions": listed,
    }


REPORT_COUNTS = ("labels", "questions", "annotations", "queries")


@dataclass
class ImportReport:
    """What an import did (``status`` 'imported'), would do ('preview') or did before ('already imported').

    ``added``/``updated``/``skipped``: counts by kind; ``rejected_assignments``, ``merged_tags`` and
    ``new_questions``: what a person should check; ``agreement``: kappa between workers
    (``crowdsourcing.agreement.agreement_report``); ``answer_distributions``: see ``answer_distributions``.
    """

    status: str
    domain: str
    file: str
    format: str
    kind: str | None
    sha256: str
    rows: int
    records: int
    added: dict[str, int] = field(default_factory=lambda: dict.fromkeys(REPORT_COUNTS, 0))
    updated: dict[str, int] = field(default_factory=lambda: {"labels": 0})
    skipped: dict[str, int] = field(default_factory=dict)
    rejected_assignments: list[dict] = field(default_factory=list)
    ignored_columns: list[str] = field(default_factory=list)
    merged_tags: list[dict] = field(default_factory=list)
    new_questions: list[dict] = field(default_factory=list)
    induced_replaced: dict = field(default_factory=lambda: {"count": 0, "tags": []})
    agreement: dict = field(default_factory=dict)
    answer_distributions: dict | None = None
    previous_import: dict | None = None
    import_id: int | None = None

    def to_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}

    @property
    def headline(self) -> str:
        kind = self.kind or "unknown kind"
        return f"{self.status} {self.file} ({self.format}, {kind}) into {self.domain}"

    def summary(self, limit: int = 8) -> list[tuple[str, str]]:
        """(heading, text) rows a person reads: what was added, skipped, rejected, merged, asked, agreed."""
        if self.status == "already imported":
            previous = self.previous_import or {}
            return [
                (
                    "unchanged",
                    f"this file was imported before (import #{previous.get('id')}, {previous.get('imported_at')}): "
                    "nothing changed",
                )
            ]
        verb = "would add" if self.status == "preview" else "added"
        rows = [(verb, ", ".join(f"{v} {k}" for k, v in self.added.items() if v) or "nothing new")]
        if self.updated.get("labels"):
            rows.append(("updated", f"{self.updated['labels']} labels"))
        skipped = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in self.skipped.items() if v)
        if skipped:
            rows.append(("skipped", skipped))
        if self.rejected_assignments:
            shown = ", ".join(r["assignment"] for r in self.rejected_assignments[:5])
            rows.append(("rejected", f"{len(self.rejected_assignments)} assignments left out: {shown}"))
        for merge in self.merged_tags[:limit]:
            merged = ", ".join(repr(t) for t in merge["merged"])
            into = "existing question" if merge["existing_question"] else "new tag"
            rows.append(("merged", f"{merged} -> {merge['tag']!r} ({merge['reason']}; {into})"))
        if len(self.merged_tags) > limit:
            rows.append(("merged", f"... {len(self.merged_tags) - limit} more"))
        if self.new_questions:
            more = "..." if len(self.new_questions) > limit else ""
            texts = "; ".join(q["text"] for q in self.new_questions[:limit])
            rows.append(("questions", f"{len(self.new_questions)} new: {texts}{more}"))
        if self.induced_replaced.get("count"):
            tags = ", ".join(self.induced_replaced["tags"][:limit])
            rows.append(("replaced", f"induced annotations of {self.induced_replaced['count']} questions: {tags}"))
        for kind, result in (self.agreement.get("overall") or {}).items():
            kappa = "n/a" if result["kappa"] is None else f"{result['kappa']:.3f}"
            observed = "n/a" if result["observed_agreement"] is None else f"{result['observed_agreement']:.3f}"
            rows.append(
                (
                    "agreement",
                    f"{kind}: {result['method']} kappa {kappa}, observed {observed} "
                    f"({result['items']} items, {result['raters']} workers)",
                )
            )
        distributions = self.answer_distributions or {}
        if distributions.get("mean_entropy_bits") is not None:
            rows.append(
                (
                    "answers",
                    f"{distributions['pairs']} label/question pairs, mean entropy "
                    f"{distributions['mean_entropy_bits']:.3f} bits (alpha {distributions['alpha']})",
                )
            )
        if self.ignored_columns:
            rows.append(("ignored", f"columns {', '.join(self.ignored_columns[:limit])}"))
        return rows


def build_report(
    plan: ImportPlan, status: str, added: dict | None = None, distributions: dict | None = None
) -> ImportReport:
    """The report of ``plan``; ``added`` are the rows the database took (default: as planned)."""
    parsed = plan.parsed
    report = ImportReport(
        status=status,
        domain=plan.domain,
        file=parsed.filename,
        format=parsed.format,
        kind=parsed.kind,
        sha256=parsed.sha256,
        rows=parsed.rows,
        records=len(parsed.records),
    )
    if status == "already imported":
        previous = plan.already_imported or {}
        report.previous_import = {k: previous.get(k) for k in ("id", "filename", "imported_at")}
        return report
    planned = {
        "labels": len(plan.labels_new),
        "questions": len(plan.questions_new),
        "annotations": len(plan.annotations),
        "queries": len(plan.queries),
    }
    report.added = added = added or planned
    report.updated = {"labels": len(plan.labels_updated)}
    report.skipped = {
        "existing": plan.existing
        + (len(plan.annotations) - added["annotations"])
        + (len(plan.queries) - added["queries"]),
        "duplicates": plan.duplicates,
        "not_applicable": plan.not_applicable,
        "labels_unchanged": plan.labels_unchanged,
    }
    report.rejected_assignments = [s.as_dict() for s in parsed.skipped]
    report.ignored_columns = list(parsed.ignored_columns)
    report.merged_tags = plan.merges
    report.new_questions = [
        {"tag": q.tag, "text": q.text, "kind": q.kind, "options": list(q.options)} for q in plan.questions_new
    ]
    report.induced_replaced = {"count": len(plan.induced_replaced), "tags": list(plan.induced_replaced)}
    report.agreement = agreement_report(plan.ratings)
    report.answer_distributions = distributions
    return report


def preview_report(plan: ImportPlan) -> ImportReport:
    """The import report as it would be if ``plan`` were applied now (status 'preview' or 'already imported')."""
    return build_report(plan, "already imported" if plan.already_imported is not None else "preview")
