"""The vague benchmark's tables: one row per system, the fixed-question baseline as its best row."""

from types import SimpleNamespace

from benchmarks.bench_vague import _rows, _target_rows, vague_targets


def _report():
    rows = [
        {"system": "ours", "acc1": 0.90, "acc3": 0.95, "mean_turns": 2.0, "early_stop_share": 0.01},
        {"system": "fixed_turns", "turns": 1, "acc1": 0.70, "acc3": 0.80, "mean_turns": 1.0, "early_stop_share": 0.0},
        {"system": "fixed_turns", "turns": 3, "acc1": 0.91, "acc3": 0.96, "mean_turns": 3.0, "early_stop_share": 0.0},
        {"system": "fixed_turns", "turns": 5, "acc1": 0.91, "acc3": 0.97, "mean_turns": 5.0, "early_stop_share": 0.0},
        {"system": "no_interaction_neural", "acc1": 0.60, "acc3": 0.75, "mean_turns": 0.0},
    ]
    return SimpleNamespace(rows=rows, row=lambda name: next(r for r in rows if r["system"] == name))


def test_the_fixed_baseline_is_its_best_row_with_the_fewest_questions():
    rows = _rows("vague", _report())
    assert [r["system"] for r in rows] == ["ours", "best fixed_turns", "no_interaction_neural"]
    assert rows[1]["turns_fixed"] == 3 and rows[1]["acc1"] == 0.91
    assert rows[2]["early_stop_share"] is None and {r["queries"] for r in rows} == {"vague"}


def test_the_targets_table_says_which_were_met():
    rows = {r["target"]: r for r in _target_rows("faq", "all", vague_targets(_report()))}
    assert rows["within_2_points_of_best_fixed"]["met"] == "yes"  # 0.90 >= 0.91 - 0.02
    assert rows["at_most_half_its_questions"]["met"] == "no"  # 2.0 > 3 / 2
    assert rows["10_points_above_no_interaction"]["compared_with"] == 0.6
    assert rows["early_stops_at_most_5%"]["ours"] == 0.01
