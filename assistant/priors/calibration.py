"""Calibrating and measuring text priors: Acc@k and NLL of scores, the softmax temperature tuned on dev
queries, and the short-query temperature (people type far shorter queries than the crowd's)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def ranking_metrics(
    scores: np.ndarray, labels: np.ndarray, candidates: np.ndarray | None = None, ks: Sequence[int] = (1, 3)
) -> dict[str, float]:
    """Acc@k and mean NLL of ``scores`` [N, Y] for true ``labels`` [N], among ``candidates`` (None = all).

    A label tied with the true one counts as ranked above it (ties never flatter a prior: BM25 gives 0 to
    every label of a query without known words).
    """
    scores = np.asarray(scores, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.int64)
    if candidates is not None:
        candidates = np.asarray(candidates, dtype=np.int64)
        position = -np.ones(scores.shape[1], dtype=np.int64)
        position[candidates] = np.arange(len(candidates))
        keep = position[labels] >= 0
        scores, labels = scores[keep][:, candidates], position[labels[keep]]
    if len(labels) == 0:
        return {**{f"acc{k}": float("nan") for k in ks}, "nll": float("nan"), "n": 0.0}
    true = scores[np.arange(len(labels)), labels][:, None]
    rank = (scores > true).sum(axis=1) + (scores == true).sum(axis=1) - 1
    shifted = scores - scores.max(axis=1, keepdims=True)
    log_z = np.log(np.exp(shifted).sum(axis=1))
    nll = float(np.mean(log_z - shifted[np.arange(len(labels)), labels]))
    return {**{f"acc{k}": float(np.mean(rank < k)) for k in ks}, "nll": nll, "n": float(len(labels))}


def tune_temperature(scores: np.ndarray, labels: np.ndarray) -> float:
    """The T minimising dev NLL of softmax(scores / T) (a grid over 0.01..100; 1.0 without dev data)."""
    if len(labels) == 0:
        return 1.0
    grid = np.geomspace(0.01, 100.0, 161)
    nll = [ranking_metrics(scores / t, labels, ks=())["nll"] for t in grid]
    return float(grid[int(np.argmin(nll))])


# Queries of at most this many words get their own softmax temperature (see ``short_query_windows``).
SHORT_QUERY_WORDS = 3


def short_query_windows(texts: Sequence[str], labels: np.ndarray, seed: int = 0) -> tuple[list[str], np.ndarray]:
    """A window of 1 to ``SHORT_QUERY_WORDS`` consecutive words of each longer query, with its label.

    People type "cannot log in" or "red crest", shorter than the crowd's dev queries, and one temperature
    tuned on the dev queries is far too sharp for them (pooled MiniLM on FAQ: T at the grid's floor, 0.01,
    so that "gmail" gave one FAQ 100%). Short queries get a temperature tuned on these windows instead;
    longer ones keep the dev-tuned one, so that neither kind is miscalibrated for the other.
    """
    rng = np.random.default_rng(seed)
    out_texts, out_labels = [], []
    for text, label in zip(texts, labels):
        words = text.split()
        if len(words) > 1:
            size = int(rng.integers(1, min(SHORT_QUERY_WORDS, len(words) - 1) + 1))
            start = int(rng.integers(0, len(words) - size + 1))
            out_texts.append(" ".join(words[start : start + size]))
            out_labels.append(label)
    return out_texts, np.asarray(out_labels, dtype=np.int64)


def split_by_length(
    texts: Sequence[str], labels: np.ndarray
) -> tuple[tuple[list[str], np.ndarray], tuple[list[str], np.ndarray]]:
    """((longer texts, labels), (short texts, labels)): queries of more / at most ``SHORT_QUERY_WORDS`` words,
    each kind for its own temperature."""
    labels = np.asarray(labels, dtype=np.int64)
    short = np.array([len(t.split()) <= SHORT_QUERY_WORDS for t in texts], dtype=bool)
    pick = lambda keep: ([t for t, k in zip(texts, keep) if k], labels[keep])  # noqa: E731
    return pick(~short), pick(short)


def query_temperatures(texts: Sequence[str], temperature: float, short_temperature: float | None) -> np.ndarray:
    """[N, 1] the temperature of each query: ``short_temperature`` for queries of at most
    ``SHORT_QUERY_WORDS`` words (when set), ``temperature`` otherwise."""
    out = np.full((len(texts), 1), temperature, dtype=np.float64)
    if short_temperature is not None:
        short = np.array([len(t.split()) <= SHORT_QUERY_WORDS for t in texts], dtype=bool)
        out[short] = short_temperature
    return out


# ---- the shown prior's calibration (issue 32) ----
# Every entry keeps at least this share of a uniform belief: no entry is ever exactly 0.
PROBABILITY_FLOOR = 1e-4
TEMPERATURE_GRID = np.geomspace(0.05, 50.0, 121)


def calibrated_log_probs(
    log_probs: np.ndarray, temperatures: np.ndarray | float, floor: float = PROBABILITY_FLOOR
) -> np.ndarray:
    """[N, Y] float64 log of (1 - floor) softmax(log_probs / T) + floor / Y: temperature scaling, then a floor
    so that no entry is exactly 0 (``temperatures``: one, or [N, 1] one per query)."""
    scaled = np.exp(log_softmax_rows(np.asarray(log_probs, dtype=np.float64) / temperatures))
    n = scaled.shape[-1]
    return np.log((1.0 - floor) * scaled + floor / n)


def log_softmax_rows(x: np.ndarray) -> np.ndarray:
    shifted = x - x.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def fit_calibration_temperature(log_probs: np.ndarray, labels: np.ndarray, default: float = 1.0) -> float:
    """The T in ``TEMPERATURE_GRID`` with the lowest NLL of ``labels`` under ``calibrated_log_probs`` (dev
    queries); ``default`` without any."""
    labels = np.asarray(labels, dtype=np.int64)
    if len(labels) == 0:
        return default
    rows = np.arange(len(labels))
    nll = [-calibrated_log_probs(log_probs, t)[rows, labels].mean() for t in TEMPERATURE_GRID]
    return float(TEMPERATURE_GRID[int(np.argmin(nll))])


class PriorCalibration:
    """Temperature scaling of a prior's log-probabilities, one temperature for queries of more than
    ``SHORT_QUERY_WORDS`` words and one for shorter ones (people's short queries say less), then the floor.

    Fitted on held-out dev queries as people type them (``assistant.app.lifecycle.calibration_jobs``); a small
    setting, stored as ``to_dict``."""

    def __init__(
        self,
        temperature: float,
        short_temperature: float,
        floor: float = PROBABILITY_FLOOR,
        top_map: tuple[Sequence[float], Sequence[float]] | None = None,
    ) -> None:
        if not (temperature > 0 and short_temperature > 0 and 0 < floor < 1):
            raise ValueError(f"bad calibration: T {temperature}, short T {short_temperature}, floor {floor}")
        self.temperature = float(temperature)
        self.short_temperature = float(short_temperature)
        self.floor = float(floor)
        self.top_map = None if top_map is None else (np.asarray(top_map[0], float), np.asarray(top_map[1], float))

    @classmethod
    def fit(cls, log_probs: np.ndarray, labels: np.ndarray, texts: Sequence[str], minimum: float = 0.0):
        """Both temperatures by dev NLL (each at least ``minimum``: a conservative bound where the dev queries
        are easier than people's); a kind of query absent from dev borrows the other's temperature."""
        short = np.array([len(t.split()) <= SHORT_QUERY_WORDS for t in texts], dtype=bool)
        labels = np.asarray(labels, dtype=np.int64)
        whole = fit_calibration_temperature(log_probs, labels)
        long_t = fit_calibration_temperature(log_probs[~short], labels[~short], whole)
        short_t = fit_calibration_temperature(log_probs[short], labels[short], whole)
        return cls(max(long_t, minimum), max(short_t, minimum))

    def apply(self, log_probs: np.ndarray, texts: Sequence[str]) -> np.ndarray:
        """[N, Y] calibrated log-probabilities of the prior's ``log_probs`` [N, Y] for ``texts``."""
        temperatures = query_temperatures(texts, self.temperature, self.short_temperature)
        out = calibrated_log_probs(np.asarray(log_probs, dtype=np.float64), temperatures, self.floor)
        return out if self.top_map is None else map_top(out, self.top_map, self.floor)

    def with_top_map(self, top: np.ndarray, correct: np.ndarray) -> PriorCalibration:
        """This calibration followed by a monotone map of the top probability (scikit-learn's isotonic
        regression of "the top entry is right" on the top probability, on the dev queries after the
        temperatures), for where one temperature cannot bend the reliability curve into place."""
        from sklearn.isotonic import IsotonicRegression

        iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(top, correct.astype(float))
        knots = (iso.X_thresholds_.tolist(), iso.y_thresholds_.tolist())
        return PriorCalibration(self.temperature, self.short_temperature, self.floor, knots)

    def to_dict(self) -> dict:
        out: dict = {"temperature": self.temperature, "short_temperature": self.short_temperature, "floor": self.floor}
        if self.top_map is not None:
            out["top_map"] = [self.top_map[0].tolist(), self.top_map[1].tolist()]
        return out

    @classmethod
    def from_dict(cls, data: dict) -> PriorCalibration:
        top_map = data.get("top_map")
        return cls(
            float(data["temperature"]),
            float(data["short_temperature"]),
            float(data["floor"]),
            None if top_map is None else (top_map[0], top_map[1]),
        )


def map_top(log_probs: np.ndarray, knots: tuple[np.ndarray, np.ndarray], floor: float) -> np.ndarray:
    """[N, Y] log-probabilities whose top entry gets the mapped probability (``knots``: x, y of a monotone map,
    interpolated) and the others share the rest in their proportions. The top stays the top and below
    1 - floor, so that no entry reaches 0. The map only ever lowers the top: the stop policies were trained on
    the raw prior, and a sharper one makes them stop before a first question (birds did)."""
    probs = np.exp(np.asarray(log_probs, dtype=np.float64))
    order = np.argsort(-probs, axis=1)
    rows = np.arange(len(probs))
    p1, p2 = probs[rows, order[:, 0]], probs[rows, order[:, 1]] if probs.shape[1] > 1 else np.zeros(len(probs))
    mapped = np.minimum(np.interp(p1, knots[0], knots[1]), p1)
    mapped = np.clip(mapped, p2 / np.maximum(1.0 - p1 + p2, 1e-12) + 1e-9, 1.0 - floor)
    rest = (1.0 - mapped) / np.maximum(1.0 - p1, 1e-300)
    out = probs * rest[:, None]
    out[rows, order[:, 0]] = mapped
    return np.log(np.maximum(out, 1e-300))


class CalibratedPrior:
    """A prior (e.g. the combined prior) whose scores are calibrated log-probabilities; what it does not
    define itself (``mentioned``, ``text_prior``...) is the wrapped prior's."""

    name = "calibrated"

    def __init__(self, prior, calibration: PriorCalibration, shortlist=None) -> None:
        self.prior = prior
        self.calibration = calibration
        self.shortlist = shortlist  # the conformal shortlist fitted with it (clarification.conformal), or None

    def scores(self, texts: Sequence[str]) -> np.ndarray:
        raw = np.asarray(self.prior.scores(texts), dtype=np.float64)
        return self.calibration.apply(raw, texts).astype(np.float32)

    def __getattr__(self, name: str):
        return getattr(self.prior, name)
