"""The policy benchmark's checks: ours against a fixed N at N = its mean questions rounded up, and against the
dev-tuned threshold unless ours asks at least half a question fewer."""

from assistant.evaluation.report import EvaluationReport
from benchmarks.bench_policy import checks, comparison_rows


def _report(ours_acc1: float, ours_turns: float, threshold_acc1: float, threshold_turns: float) -> EvaluationReport:
    rows = [
        {"system": "ours", "acc1": ours_acc1, "acc3": 0.9, "mean_turns": ours_turns},
        {
            "system": "threshold",
            "acc1": threshold_acc1,
            "acc3": 0.9,
            "mean_turns": threshold_turns,
            "vs_ours": {"acc1_diff": threshold_acc1 - ours_acc1, "p_value": 0.04, "discordant": 30},
        },
        *[
            {"system": "fixed_turns", "turns": k, "acc1": 0.5 + 0.05 * k, "acc3": 0.9, "mean_turns": float(k)}
            for k in range(1, 11)
        ],
        {"system": "no_interaction_neural", "acc1": 0.4, "acc3": 0.6, "mean_turns": 0.0},
        {"system": "threshold_matched", "acc1": 0.74, "acc3": 0.9, "mean_turns": 3.3},
    ]
    return EvaluationReport(rows=rows, curves={}, meta={})


def test_ours_is_compared_with_the_fixed_number_of_questions_its_mean_rounds_up_to():
    found = {c["check"]: c for c in checks(_report(0.73, 3.4, 0.70, 3.3), "crowd")}
    fixed = found["ours >= fixed 4"]  # 3.4 questions on average: four fixed ones ask at least as many
    assert fixed["other_acc1"] == 0.7 and fixed["met"] == "yes"
    assert checks(_report(0.69, 3.4, 0.60, 3.3), "crowd")[0]["met"] == "no"
    assert checks(_report(0.45, 0.0, 0.40, 0.0), "crowd")[0]["check"] == "ours >= fixed 0"  # no question at all


def test_a_more_accurate_threshold_counts_against_ours_unless_ours_asks_half_a_question_fewer():
    threshold = "ours >= dev-tuned threshold (or 0.5 fewer questions)"
    behind = {c["check"]: c for c in checks(_report(0.73, 3.4, 0.75, 3.6), "vague")}
    assert behind[threshold]["met"] == "no" and behind[threshold]["mcnemar_p"] == 0.04
    fewer = {c["check"]: c for c in checks(_report(0.73, 3.0, 0.75, 3.6), "vague")}
    assert fewer[threshold]["met"] == "yes"


def test_every_system_and_every_fixed_number_is_a_row_with_its_paired_test():
    rows = comparison_rows("desk", _report(0.73, 3.4, 0.75, 3.6))
    assert [r["system"] for r in rows][:3] == ["ours", "threshold", "fixed_turns 1"]
    assert rows[1]["mcnemar_p"] == 0.04 and rows[0]["mcnemar_p"] is None
    assert {r["queries"] for r in rows} == {"desk"}
