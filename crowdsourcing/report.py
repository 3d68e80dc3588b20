"""The import report: counts, merged tags, rejected assignments, agreement and answer distributions.

``build_report`` turns an ``ImportPlan`` (and, once applied, what the database actually took) into a
JSON-ready dict; the CLI prints it and the imports table keeps it. ``answer_distributions`` summarises the
smoothed empirical answer distributions p_hat(r|q,y) (``Domain.p_hat``) of the pairs an import touched.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import TYPE_CHECKING

import numpy as np

from assistant.domain import Domain
from crowdsourcing.agreement import agreement_report

if TYPE_CHECKING:
    from crowdsourcing.planning import ImportPlan

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


def build_report(plan: ImportPlan, status: str, added: dict | None = None, distributions: dict | None = None) -> dict:
    """The report of ``plan``; ``added`` are the rows the database took (default: as planned)."""
    parsed = plan.parsed
    report: dict = {
        "status": status,
        "domain": plan.domain,
        "file": parsed.filename,
        "format": parsed.format,
        "kind": parsed.kind,
        "sha256": parsed.sha256,
        "rows": parsed.rows,
        "records": len(parsed.records),
    }
    if status == "already imported":
        previous = plan.already_imported or {}
        report["previous_import"] = {k: previous.get(k) for k in ("id", "filename", "imported_at")}
        report["added"] = dict.fromkeys(("labels", "questions", "annotations", "queries"), 0)
        return report
    planned = {
        "labels": len(plan.labels_new),
        "questions": len(plan.questions_new),
        "annotations": len(plan.annotations),
        "queries": len(plan.queries),
    }
    added = added or planned
    skipped_existing = (
        plan.existing + (len(plan.annotations) - added["annotations"]) + (len(plan.queries) - added["queries"])
    )
    report.update(
        {
            "added": added,
            "updated": {"labels": len(plan.labels_updated)},
            "skipped": {
                "existing": skipped_existing,
                "duplicates": plan.duplicates,
                "not_applicable": plan.not_applicable,
                "labels_unchanged": plan.labels_unchanged,
            },
            "rejected_assignments": [s.as_dict() for s in parsed.skipped],
            "ignored_columns": list(parsed.ignored_columns),
            "merged_tags": plan.merges,
            "new_questions": [
                {"tag": q.tag, "text": q.text, "kind": q.kind, "options": list(q.options)} for q in plan.questions_new
            ],
            "induced_replaced": {"count": len(plan.induced_replaced), "tags": list(plan.induced_replaced)},
            "agreement": agreement_report(plan.ratings),
        }
    )
    if distributions is not None:
        report["answer_distributions"] = distributions
    return report
