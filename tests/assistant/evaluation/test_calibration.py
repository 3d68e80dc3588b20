"""Reliability tables and ECE as scikit-learn bins them; "sure and wrong" rates."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.evaluation.reliability import calibration_summary, reliability, sure_and_wrong


def test_reliability_rows_and_ece_by_hand():
    top = np.array([0.95, 0.95, 0.95, 0.95, 0.55, 0.55])
    correct = np.array([1, 1, 1, 0, 1, 0], dtype=bool)
    rows, ece = reliability(top, correct)
    assert [(r["bin"], r["n"]) for r in rows] == [("0.5-0.6", 2), ("0.9-1.0", 4)]
    assert rows[1]["right"] == 0.75 and rows[1]["shown"] == 0.95
    assert ece == pytest.approx(2 / 6 * 0.05 + 4 / 6 * 0.2)


def test_sure_and_wrong_counts_only_confident_mistakes():
    assert sure_and_wrong(np.array([0.95, 0.92, 0.5, 0.99]), np.array([1, 0, 0, 1], dtype=bool)) == 0.25


def test_summary_of_a_sure_and_always_wrong_prior():
    log_probs = np.log(np.array([[0.98, 0.01, 0.01]] * 10))
    s = calibration_summary(log_probs, np.ones(10, dtype=int), log_probs[:4])
    assert s["acc1"] == 0.0 and s["ece"] == pytest.approx(0.98)
    assert s["sure_wrong_in_scope"] == 1.0 and s["sure_wrong_out_of_scope"] == 1.0
