"""Is the shown probability honest? Reliability tables and the expected calibration error (ECE) of the top
probability a person sees before the first question, and how often it is "90% sure" of a wrong entry.

The bins and the per-bin accuracy / confidence are scikit-learn's (``sklearn.calibration.calibration_curve``,
ten equal-width bins); this module adds the count per bin and ECE = sum_b n_b / N |accuracy_b - confidence_b|.
"""

from __future__ import annotations

import numpy as np

BINS = 10
SURE = 0.9


def bin_ids(top: np.ndarray, bins: int = BINS) -> np.ndarray:
    """The bin of each probability, as ``calibration_curve`` (strategy "uniform") assigns them."""
    edges = np.linspace(0.0, 1.0, bins + 1)
    return np.searchsorted(edges[1:-1], top)


def reliability(top: np.ndarray, correct: np.ndarray, bins: int = BINS) -> tuple[list[dict], float]:
    """(rows, ECE): per non-empty bin its range, count, mean shown probability and accuracy."""
    top = np.clip(np.asarray(top, dtype=np.float64), 0.0, 1.0)
    correct = np.asarray(correct, dtype=bool)
    if len(top) == 0:
        return [], float("nan")
    if correct.all() or not correct.any():  # calibration_curve needs both classes
        accuracy = np.array([float(correct[0])])
        confidence = np.array([top.mean()])
        ids = np.zeros(len(top), dtype=np.int64)
        present = np.array([0])
    else:
        from sklearn.calibration import calibration_curve  # here: serving imports this module, never sklearn

        accuracy, confidence = calibration_curve(correct, top, n_bins=bins, strategy="uniform")
        ids = bin_ids(top, bins)
        present = np.unique(ids)
    counts = np.array([(ids == b).sum() for b in present])
    rows = [
        {
            "bin": f"{b / bins:.1f}-{(b + 1) / bins:.1f}" if len(present) > 1 or bins == 1 else "all",
            "n": int(n),
            "shown": round(float(c), 4),
            "right": round(float(a), 4),
        }
        for b, n, c, a in zip(present, counts, confidence, accuracy)
    ]
    ece = float(np.sum(counts / len(top) * np.abs(accuracy - confidence)))
    return rows, ece


def top_of(log_probs: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(top probability, whether the top entry is the true one) of beliefs given as log-probabilities [N, Y]."""
    log_probs = np.asarray(log_probs, dtype=np.float64)
    probs = np.exp(log_probs - log_probs.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    return probs.max(axis=1), probs.argmax(axis=1) == np.asarray(labels, dtype=np.int64)


def sure_and_wrong(top: np.ndarray, correct: np.ndarray, sure: float = SURE) -> float:
    """Share of queries shown ``sure`` or more of a wrong entry (out of scope: every entry is wrong)."""
    top = np.asarray(top, dtype=np.float64)
    return float(np.mean((top >= sure) & ~np.asarray(correct, dtype=bool))) if len(top) else float("nan")


def calibration_summary(log_probs: np.ndarray, labels: np.ndarray, oos_log_probs: np.ndarray | None) -> dict:
    """ECE, reliability rows, Acc@1 and the "sure and wrong" rates in scope and out of scope."""
    top, correct = top_of(log_probs, labels)
    rows, ece = reliability(top, correct)
    out = {
        "n": len(top),
        "acc1": float(np.mean(correct)) if len(top) else float("nan"),
        "mean_shown": float(np.mean(top)) if len(top) else float("nan"),
        "ece": ece,
        "sure_wrong_in_scope": sure_and_wrong(top, correct),
        "reliability": rows,
    }
    if oos_log_probs is not None and len(oos_log_probs):
        oos_top, _ = top_of(oos_log_probs, np.zeros(len(oos_log_probs), dtype=np.int64))
        out["n_out_of_scope"] = len(oos_top)
        out["sure_wrong_out_of_scope"] = sure_and_wrong(oos_top, np.zeros(len(oos_top), dtype=bool))
    return out
