"""Which values a multiple-choice facet question offers, and facets within a group of labels.

A facet question ("What do you want to do?") can offer a handful of values plus "something else". Offering
the values most labels mention fills the list with near-synonyms of the domain's commonest request and
leaves the rest of the labels to "something else". ``choose_facet_values`` instead picks the values whose
answers say most: greedily, the value that most raises the question's expected information under a
uniform belief over the group's labels (each label answering the values its own name names, "something
else" if none).

A facet *within a group* ("What do you want to do in Gmail?") is asked of the labels of one group (the
labels whose name names the product Gmail, or a bundled area such as CLINC150's "banking"); a person whose
label is outside the group answers "something else". Its tag is ``kind@group`` ("action@Gmail",
assistant.text.phrases.facet_tag).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping, Sequence
from functools import lru_cache

import numpy as np

from assistant.text.lemmas import is_known, phrase_key
from assistant.text.phrases import GROUP_SEPARATOR, contains_phrase, facet_tag, split_facet_tag, text_keys, words

__all__ = [
    "GROUP_SEPARATOR",
    "answer_information",
    "choose_facet_values",
    "facet_tag",
    "group_members",
    "split_facet_tag",
    "without_overlaps",
]


def answer_information(named: Sequence[Collection[Hashable]], values: Collection[Hashable]) -> float:
    """Expected information (bits) of a facet offering ``values`` under a uniform belief over labels: the
    entropy of the answer minus its mean entropy given the label. A label whose name names k of the values
    answers each with 1/k (so two values naming the same labels, "email" and "mail", add nothing), a label
    naming none "something else". ``named``: per label, the values its name names."""
    values = set(values)
    mass: dict[Hashable, float] = {}
    ambiguity = 0.0
    for own in named:
        hits = values.intersection(own)
        if not hits:
            mass[None] = mass.get(None, 0.0) + 1.0
        for value in hits:
            mass[value] = mass.get(value, 0.0) + 1.0 / len(hits)
        ambiguity += np.log2(max(len(hits), 1))
    n = max(len(named), 1)
    p = np.array(list(mass.values()), dtype=np.float64) / n
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum() - ambiguity / n)


def choose_facet_values(
    candidates: Sequence[Hashable], named: Sequence[Collection[Hashable]], max_values: int, min_gain: float = 1e-9
) -> list[Hashable]:
    """Up to ``max_values`` of ``candidates``, chosen greedily by how much each raises
    ``answer_information`` over the labels ``named`` describes, then by how many labels it takes from
    "something else" (naming the last such label adds no information, but the person should find it);
    stops when no candidate does either. Ties go to the earlier candidate, so the order of ``candidates``
    (e.g. most-named first) breaks them. Deterministic."""
    chosen: list[Hashable] = []
    current = 0.0
    uncovered = [set(own) for own in named]
    remaining = list(candidates)
    while remaining and len(chosen) < max_values:
        scores = []
        for c in remaining:
            gain = answer_information(named, [*chosen, c]) - current
            covers = sum(1 for own in uncovered if own and c in own)
            scores.append((round(gain, 12) if gain > min_gain else 0.0, covers))
        best = max(range(len(remaining)), key=lambda i: (scores[i], -i))
        if scores[best] == (0.0, 0):
            break
        value = remaining.pop(best)
        current = answer_information(named, [*chosen, value])
        chosen.append(value)
        uncovered = [set() if value in own else own for own in uncovered]
    return chosen


def group_members(
    within: str, titles: Sequence[str], groups: Mapping[str, Collection[int]] | None = None
) -> np.ndarray:
    """[Y] bool: the labels of the group ``within``: the adapter's group of that name, else the labels whose
    name mentions it ("Gmail"; "Google" includes "Google Docs")."""
    if groups and within in groups:
        members = np.zeros(len(titles), dtype=bool)
        members[list(groups[within])] = True
        return members
    key = phrase_key(words(within))
    return np.array([key in _title_keys(title) for title in titles], dtype=bool)


@lru_cache(maxsize=1 << 14)
def _title_keys(title: str) -> frozenset[tuple[str, ...]]:
    """``text_keys`` of a label name, read once: every product of a FAQ asks about every name (issue 33: a
    1,000-entry FAQ read its names again for each of its products, a sixth of ``domain create``)."""
    return frozenset(text_keys(title))


def without_overlaps(values: list[tuple[str, tuple[str, ...]]]) -> list[tuple[str, tuple[str, ...]]]:
    """Values that do not contain one another, the earlier first; a word that ends in another word counts
    ("email" and "mail", "spreadsheet" and "sheet": a person cannot choose between them)."""
    kept: list[tuple[str, tuple[str, ...]]] = []
    for ident in values:
        if not any(_overlap(ident[1], k[1]) for k in kept):
            kept.append(ident)
    return kept


def _overlap(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    if len(a) == len(b) == 1 and min(len(a[0]), len(b[0])) >= 4:
        short, long = sorted((a[0], b[0]), key=len)
        prefix = long[: len(long) - len(short)]
        # "e" + "mail", "spread" + "sheet"; not "ex" + "change"
        if long.endswith(short) and (len(prefix) == 1 or (len(prefix) >= 3 and is_known(prefix))):
            return True
    return contains_phrase(a, b) or contains_phrase(b, a)
