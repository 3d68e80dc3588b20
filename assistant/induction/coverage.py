"""How well the induced action facets cover what the label names ask to do (a figure of the wording gate's
report, ``meta["wording_gate"]``)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import numpy as np

from assistant.induction.facets import group_members
from assistant.induction.wording import WordingGate


def action_coverage(
    gate: WordingGate, questions: Sequence, groups: Mapping[str, Collection[int]] | None = None
) -> tuple[int, int]:
    """(covered, asking): of the labels whose name asks to do something (``WordingGate.title_actions``), how
    many find that action, or a value that says the same (``same_meaning``: "search" for "find"), among the
    values of an action facet they belong to (the facet of every label, or one within their group). ``questions``: the induced questions (assistant.induction.induction.InducedQuestion)."""
    offered: list[set[tuple[str, ...]]] = [set() for _ in gate.titles]
    for question in questions:
        if not (question.facet and question.kind == "action"):
            continue
        members = (
            np.ones(len(gate.titles), dtype=bool)
            if question.within is None
            else group_members(question.within, gate.titles, groups)
        )
        for y in np.flatnonzero(members):
            offered[y].update(question.keys)
    asking = [y for y in range(len(gate.titles)) if gate.title_actions(y)]
    # every phrase compared below, embedded in one call rather than pair by pair
    gate.embed([("action", " ".join(k)) for y in asking for k in (*gate.title_actions(y), *offered[y])])
    covered = [
        y
        for y in asking
        if any(  # the action itself, or a value that says the same ("search" for "find")
            gate.same_meaning((a, " ".join(a)), (o, " ".join(o)), "action")
            for a in gate.title_actions(y)
            for o in offered[y]
        )
    ]
    return len(covered), len(asking)
