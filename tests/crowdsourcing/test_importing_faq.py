"""End to end on the bundled FAQ domain: export tag tasks, answer them 'on MTurk', import the results.

The FAQ domain has no crowd tags: all its questions are induced. Crowd answers for the exported tags must
replace the induced annotations of exactly those questions.
"""

from __future__ import annotations

import csv
import json

import pytest
from click.testing import CliRunner

from assistant.cli import main
from assistant.store import KnowledgeBase
from assistant.text.phrases import split_tag
from tests.support.crowd import simulate_mturk


@pytest.mark.slow
def test_faq_export_mturk_import_round_trip(faq_copy, tmp_path):
    with KnowledgeBase.open(faq_copy) as kb:
        domain = kb.load_domain()
        labels = domain.labels[:2]
    assert all(q.induced for q in domain.questions)
    runner = CliRunner()
    tasks = tmp_path / "faq_tasks.csv"
    result = runner.invoke(main, ["export", "tasks", "--domain", "faq", "--out", str(tasks), "--per-label", "20"])
    assert result.exit_code == 0, result.output
    with tasks.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 2 * domain.num_labels  # 20 tags per label, 10 per HIT
    # keep the HITs of two labels; BM25 puts tags sharing words with the label first
    mine = [r for r in rows if r["label"] in {label.key for label in labels}]
    first = [mine[0][f"tag_{i}"] for i in range(1, 11)]
    assert any(word in labels[0].name.lower() for tag in first[:3] for word in split_tag(tag)[1].lower().split())
    subset = tmp_path / "subset.csv"
    with subset.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(mine)

    def answer(worker, task):
        name = task["label_name"].lower()
        chosen = [
            v for k, v in task.items() if k.startswith("tag_") and v and split_tag(v)[1].lower().split()[-1] in name
        ]
        return {"selected": "|".join(chosen) or "none of the above"}

    results = simulate_mturk(subset, tmp_path / "faq_results.csv", ["A1FAQ", "A2FAQ"], answer)
    result = runner.invoke(main, ["import", "mturk", str(results), "--domain", "faq", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    offered = {v for r in mine for k, v in r.items() if k.startswith("tag_") and v}
    assert report["added"]["annotations"] == 2 * 2 * 20
    assert report["added"]["questions"] == 0
    assert report["induced_replaced"]["count"] == len(offered)
    with KnowledgeBase.open(faq_copy) as kb:
        stats = kb.stats()
        after = kb.load_domain()
    assert stats["annotations_by_source"]["crowd:mturk"] == 80
    assert stats["induced_questions"] == len(domain.questions) - len(offered)
    still_induced = [q for q in domain.questions if q.tag not in offered]
    assert stats["annotations_by_source"]["induced"] == sum(len(q.options) for q in still_induced) * domain.num_labels
    q = after.question_index(first[0])
    assert not after.questions[q].induced
    offered_to = {r["label"] for r in mine if first[0] in r.values()}
    assert after.annotated[q].sum() == len(offered_to)  # only crowd-annotated labels have answers now
    result = runner.invoke(main, ["import", "mturk", str(results), "--domain", "faq"])
    assert result.exit_code == 0 and "nothing changed" in result.stdout
