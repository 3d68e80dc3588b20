"""Cohen's and Fleiss' kappa against textbook examples worked by hand."""

from __future__ import annotations

import random

import pytest

from assistant.errors import ConfigError
from crowdsourcing.agreement import Rating, agreement, agreement_report, cohen_kappa, fleiss_kappa, observed_agreement

# Fleiss' kappa, the worked example of Wikipedia's "Fleiss' kappa" article: 10 subjects, 14 raters each,
# 5 categories. P-bar = 0.378, P_e = 0.213, kappa = 0.210.
WIKIPEDIA_FLEISS = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def two_raters(yes_yes: int, yes_no: int, no_yes: int, no_no: int) -> tuple[list[str], list[str]]:
    """Rater A's and B's ratings from a 2x2 table (A's answer first)."""
    a = ["yes"] * (yes_yes + yes_no) + ["no"] * (no_yes + no_no)
    b = ["yes"] * yes_yes + ["no"] * yes_no + ["yes"] * no_yes + ["no"] * no_no
    return a, b


def test_fleiss_wikipedia_example():
    assert fleiss_kappa(WIKIPEDIA_FLEISS) == pytest.approx(0.210, abs=5e-4)
    assert observed_agreement(WIKIPEDIA_FLEISS) == pytest.approx(0.378, abs=5e-4)


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        # Wikipedia "Cohen's kappa", first example: p_o = 0.7, p_e = 0.5 -> 0.4
        ((20, 5, 10, 15), 0.4),
        # same observed agreement 0.6, different marginals: p_e = 0.54 -> 0.1304 and p_e = 0.46 -> 0.2593
        ((45, 15, 25, 15), 0.06 / 0.46),
        ((25, 35, 5, 35), 0.14 / 0.54),
    ],
)
def test_cohen_textbook_examples(table, expected):
    a, b = two_raters(*table)
    assert cohen_kappa(a, b) == pytest.approx(expected, abs=1e-4)


def reference_cohen_kappa(first: list, second: list) -> float | None:
    """The hand-written Cohen's kappa ``cohen_kappa`` was before scikit-learn."""
    n = len(first)
    observed = sum(a == b for a, b in zip(first, second)) / n
    expected = sum(first.count(c) * second.count(c) for c in set(first)) / (n * n)
    return None if expected >= 1 - 1e-12 else (observed - expected) / (1 - expected)


@pytest.mark.parametrize("seed", range(10))
def test_cohen_matches_the_formula_it_replaced(seed):
    rng = random.Random(seed)
    categories = ["yes", "no", 3, ("a", 1)][: rng.randint(1, 4)]  # any hashable, not sortable together
    first = [rng.choice(categories) for _ in range(rng.randint(1, 60))]
    second = [c if rng.random() < 0.6 else rng.choice(categories) for c in first]
    expected = reference_cohen_kappa(first, second)
    found = cohen_kappa(first, second)
    assert (found is None) == (expected is None) and (found is None or found == pytest.approx(expected, abs=1e-12))


def test_fleiss_with_varying_numbers_of_raters_by_hand():
    # item A: yes, yes, no; item B: yes, yes; item C: no x4; item D rated once (ignored).
    # P_A = 1/3, P_B = 1, P_C = 1 -> P-bar = 7/9; p_yes = 4/9, p_no = 5/9 -> P_e = 41/81; kappa = 22/40.
    table = [[2, 1], [2, 0], [0, 4]]
    assert fleiss_kappa(table) == pytest.approx(22 / 40)
    assert fleiss_kappa([*table, [1, 0]]) == pytest.approx(22 / 40)
    ratings = [("A", "w1", "yes"), ("A", "w2", "yes"), ("A", "w3", "no"), ("B", "w1", "yes"), ("B", "w4", "yes")]
    ratings += [("C", w, "no") for w in ("w1", "w2", "w3", "w4")] + [("D", "w2", "yes")]
    result = agreement(ratings)
    assert result.method == "fleiss"
    assert result.kappa == pytest.approx(22 / 40)
    assert (result.items, result.raters, result.ratings) == (4, 4, 10)


def test_agreement_uses_cohen_for_the_same_two_raters_on_every_item():
    a, b = two_raters(20, 5, 10, 15)
    ratings = [(i, "alice", x) for i, x in enumerate(a)] + [(i, "bob", y) for i, y in enumerate(b)]
    result = agreement(ratings)
    assert result.method == "cohen"
    assert result.kappa == pytest.approx(0.4)
    assert result.observed == pytest.approx(0.7)
    # a third rater on one item: no longer a two-rater design, so Fleiss (Scott's pi for pairs)
    assert agreement([*ratings, (0, "carol", "yes")]).method == "fleiss"


def test_undefined_and_degenerate_cases():
    assert cohen_kappa(["no"] * 5, ["no"] * 5) is None  # chance agreement is perfect
    assert cohen_kappa([], []) is None
    assert fleiss_kappa([[3, 0], [3, 0]]) is None
    assert fleiss_kappa([[1, 0], [0, 1]]) is None  # nobody rated an item twice
    assert fleiss_kappa([[2, 0], [0, 2]]) == pytest.approx(1.0)
    assert agreement([("x", "w1", "yes"), ("y", "w1", "no")]).method == "none"
    with pytest.raises(ConfigError, match="two ratings per item"):
        cohen_kappa(["a"], ["a", "b"])
    with pytest.raises(ConfigError, match="2-D"):
        fleiss_kappa([1, 2, 3])


def test_agreement_report_groups_by_task_and_kind():
    ratings = [
        Rating("binary", "hit1", ("card", "lost card"), "w1", "yes"),
        Rating("binary", "hit1", ("card", "lost card"), "w2", "yes"),
        Rating("binary", "hit1", ("card", "top up"), "w1", "no"),
        Rating("binary", "hit1", ("card", "top up"), "w2", "yes"),
        Rating("choice", "hit2", ("card", "card type"), "w1", "visa"),
    ]
    report = agreement_report(ratings)
    assert [(t["task"], t["kind"], t["method"]) for t in report["tasks"]] == [
        ("hit1", "binary", "cohen"),
        ("hit2", "choice", "none"),
    ]
    assert report["tasks"][0]["observed_agreement"] == 0.5
    assert set(report["overall"]) == {"binary", "choice"}
