"""Inter-annotator agreement for crowd tasks: Cohen's kappa and Fleiss' kappa.

A rating is (item, rater, category): for a tag task the item is (label, tag) and the category 'yes' or
'no'; for a multiple-choice task the item is (label, question) and the category the chosen option (or
"not applicable"). ``agreement`` picks the statistic the data supports: Cohen's kappa when exactly the
same two raters rated every item, Fleiss' kappa otherwise, in its form for a varying number of raters per
item (items rated once carry no information about agreement and are left out).

Kappa is undefined (None) when chance agreement is already perfect, e.g. every rating is 'no'; the
observed agreement is then still reported.

>>> round(cohen_kappa(["y"] * 20 + ["y"] * 5 + ["n"] * 10 + ["n"] * 15,
...                   ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15), 3)
0.4
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from assistant.errors import ConfigError

_EPS = 1e-12


def cohen_kappa(first: Sequence[Hashable], second: Sequence[Hashable]) -> float | None:
    """Cohen's kappa (scikit-learn's ``cohen_kappa_score``) of two raters who rated the same items (``first[i]``
    and ``second[i]`` for item i); None without items or when both gave every item the same category."""
    from sklearn.metrics import cohen_kappa_score  # imported here: only agreement reports need it

    if len(first) != len(second):
        raise ConfigError(f"Cohen's kappa needs two ratings per item, got {len(first)} and {len(second)} ratings")
    codes = {c: i for i, c in enumerate(dict.fromkeys([*first, *second]))}  # any hashable category, unsorted
    if len(codes) < 2:  # chance agreement is already perfect: kappa is 0 / 0
        return None
    return float(cohen_kappa_score([codes[c] for c in first], [codes[c] for c in second]))


def fleiss_kappa(table: np.ndarray | Sequence[Sequence[float]]) -> float | None:
    """Fleiss' kappa from an [items, categories] table of rating counts.

    Rows may have different totals (a varying number of raters per item); rows with fewer than two
    ratings are ignored. Returns None when no item has two ratings or chance agreement is perfect.
    """
    counts = np.asarray(table, dtype=np.float64)
    # Hand-written: statsmodels' fleiss_kappa needs the same number of raters for every item.
    if counts.ndim != 2:
        raise ConfigError(f"Fleiss' kappa needs a 2-D [items, categories] table, got shape {counts.shape}")
    if np.any(counts < 0):
        raise ConfigError("Fleiss' kappa: rating counts must not be negative")
    raters = counts.sum(axis=1)
    counts = counts[raters >= 2]
    raters = raters[raters >= 2]
    if len(counts) == 0:
        return None
    per_item = ((counts**2).sum(axis=1) - raters) / (raters * (raters - 1))
    observed = per_item.mean()
    shares = counts.sum(axis=0) / raters.sum()
    expected = float((shares**2).sum())
    if expected >= 1 - _EPS:
        return None
    return float((observed - expected) / (1 - expected))


def observed_agreement(table: np.ndarray | Sequence[Sequence[float]]) -> float | None:
    """Mean share of agreeing rater pairs per item (Fleiss' P-bar), over items with two or more ratings."""
    counts = np.asarray(table, dtype=np.float64)
    raters = counts.sum(axis=1)
    keep = raters >= 2
    if not np.any(keep):
        return None
    counts, raters = counts[keep], raters[keep]
    return float((((counts**2).sum(axis=1) - raters) / (raters * (raters - 1))).mean())


@dataclass(frozen=True)
class Agreement:
    """Agreement over a set of ratings. ``method`` is 'cohen', 'fleiss' or 'none' (no item rated twice)."""

    method: str
    kappa: float | None
    observed: float | None
    items: int
    raters: int
    ratings: int

    def as_dict(self) -> dict:
        return {
            "method": self.method,
            "kappa": None if self.kappa is None else round(self.kappa, 4),
            "observed_agreement": None if self.observed is None else round(self.observed, 4),
            "items": self.items,
            "raters": self.raters,
            "ratings": self.ratings,
        }


def agreement(ratings: Iterable[tuple[Hashable, Hashable, Hashable]]) -> Agreement:
    """Agreement of (item, rater, category) ratings; a rater's later rating of the same item replaces the earlier."""
    by_item: dict[Hashable, dict[Hashable, Hashable]] = defaultdict(dict)
    for item, rater, category in ratings:
        by_item[item][rater] = category
    raters = {r for given in by_item.values() for r in given}
    total = sum(len(given) for given in by_item.values())
    rated = {item: given for item, given in by_item.items() if len(given) >= 2}
    if not rated:
        return Agreement("none", None, None, len(by_item), len(raters), total)
    rater_sets = {frozenset(given) for given in by_item.values()}
    if len(raters) == 2 and rater_sets == {frozenset(raters)}:
        first, second = sorted(raters, key=str)
        items = list(by_item)
        a = [by_item[i][first] for i in items]
        b = [by_item[i][second] for i in items]
        observed = sum(x == y for x, y in zip(a, b)) / len(items)
        return Agreement("cohen", cohen_kappa(a, b), observed, len(items), 2, total)
    categories = sorted({c for given in rated.values() for c in given.values()}, key=str)
    column = {c: j for j, c in enumerate(categories)}
    table = np.zeros((len(rated), len(categories)))
    for i, given in enumerate(rated.values()):
        for category in given.values():
            table[i, column[category]] += 1
    return Agreement("fleiss", fleiss_kappa(table), observed_agreement(table), len(by_item), len(raters), total)


@dataclass(frozen=True)
class Rating:
    """One rater's answer about one item in one task; ``kind`` is the task kind ('binary' or 'choice')."""

    kind: str
    task: str
    item: Hashable
    rater: str
    category: str


def agreement_report(ratings: Sequence[Rating]) -> dict:
    """Agreement per task (HIT) and overall per task kind, as JSON-ready dicts."""
    by_task: dict[tuple[str, str], list[Rating]] = defaultdict(list)
    by_kind: dict[str, list[Rating]] = defaultdict(list)
    for r in ratings:
        by_task[r.kind, r.task].append(r)
        by_kind[r.kind].append(r)
    tasks = [
        {"task": task, "kind": kind, **agreement((r.item, r.rater, r.category) for r in rs).as_dict()}
        for (kind, task), rs in sorted(by_task.items())
    ]
    overall = {
        kind: agreement((r.item, r.rater, r.category) for r in rs).as_dict() for kind, rs in sorted(by_kind.items())
    }
    return {"tasks": tasks, "overall": overall}
