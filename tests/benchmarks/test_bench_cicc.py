"""The cicc benchmark's table on the tiny domain: per level the baseline and ours with their intervals and
paired verdicts, ours as shipped, the published figures, and the target at 99%."""

from dataclasses import replace
from pathlib import Path

import numpy as np

from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.stopping import FixedTurns
from assistant.evaluation.bench import BenchContext
from assistant.evaluation.clarifier import EvaluationSetup
from assistant.simulation.user import SimulatedUser
from benchmarks.bench_cicc import BENCHMARK, evaluate_kind, published_rows, target_rows
from tests.support.tiny import KeywordPrior


def _context(tmp_path: Path) -> BenchContext:
    settings = {**BENCHMARK.full, "levels": [0.5, 0.99], "seeds": [0, 1], "max_queries": 0, "dev_copies": 1}
    return BenchContext("cicc", settings, False, 0, None, (), tmp_path)


def test_the_table_has_both_systems_per_level_with_intervals_and_the_target(tiny_domain, tmp_path):
    domain = replace(tiny_domain, query_splits=np.array(["train", "dev", "train", "dev", "test", "test"]))
    setup = EvaluationSetup(
        domain=domain,
        candidates=np.arange(4),
        prior=KeywordPrior(domain),
        answer_model=AnswerModel(domain.p_hat(1.0), domain.option_mask),
        policy=FixedTurns(1),
        user=SimulatedUser(domain.p_hat(0.5), domain.option_mask),
    )
    rows, at_level = evaluate_kind(setup, domain, "clear", _context(tmp_path))
    assert [(r["level"], r["system"].split(",")[0]) for r in rows] == [
        (0.5, "CICC-style baseline on Clarify's prior"),
        (0.5, "ours"),
        (0.99, "CICC-style baseline on Clarify's prior"),
        (0.99, "ours"),
        (None, "ours as shipped (coverage rule 0)"),
    ]
    for row in rows:
        assert row["queries"] == 2 and row["seeds"] == 2
        assert row["acc1_ci"][0] <= row["acc1"] <= row["acc1_ci"][1]
    assert rows[1]["actions"] == 1.0  # ours asks its one fixed question
    assert rows[1]["acc1_vs_cicc"].split()[-1] in ("tie", "higher")
    targets = target_rows("banking", "clear", at_level)
    assert [t["system"] for t in targets] == ["ours, covered at 99%", "ours as shipped"]
    assert targets[0]["cicc_coverage_published"] == 0.981 and targets[0]["met"] in ("yes", "no")


def test_the_published_figures_are_marked_as_not_measured_here():
    rows = published_rows("banking", [0.9, 0.95, 0.99])
    assert [r["level"] for r in rows] == [0.9, 0.99]
    assert all("published, not measured here" in r["system"] for r in rows)
    assert rows[0]["mean_set_size"] == 0.95 and rows[1]["rephrase_share"] == 0.036
    assert published_rows("clinc", [0.9]) == []
