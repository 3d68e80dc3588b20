"""Facet families: "What do you want to do?" and "What do you want to do in Gmail?" ask the same thing in a
person's eyes, so a conversation asks one facet question of each family (``Conversation.available``)."""

from __future__ import annotations

import numpy as np

from assistant.clarification.parts import ClarifierParts


def facet_families(clarifier: ClarifierParts) -> np.ndarray:
    """[Q] int: for each induced multiple-choice facet question ("action", "action@Gmail"), a number shared by
    every facet question of its kind; -1 for every other question."""
    kinds: dict[str, int] = {}
    family = np.full(clarifier.model.shape[0], -1, dtype=np.int64)
    for index, q in enumerate(clarifier.domain.questions[: len(family)]):
        if q.kind == "choice" and q.induced and "::" not in q.tag:
            family[index] = kinds.setdefault(q.tag.split("@", 1)[0], len(kinds))
    return family


def family_asked(family: np.ndarray, asked: np.ndarray) -> np.ndarray:
    """[Q] bool: the facet questions of a family (``family`` [Q], -1 for none) one of whose questions ``asked``
    [Q] bool holds. A table of the families asked, indexed by family + 1 (0: none, never marked): a few vector
    operations a turn, where np.isin cost tens of µs."""
    slot = family + 1
    asked_families = np.zeros(len(slot) + 1, dtype=bool)
    asked_families[slot[asked]] = True
    asked_families[0] = False
    return asked_families[slot]
