"""Which shortlisted labels go on to the comparisons, when the clarifier stops asking.

A person can judge an answer to their question, not a label, so the comparison phase shows the answers of
the labels the clarifier still considers (``assistant.app.session.comparison`` turns them into ranking candidates).
Which labels:

1. the shortlist (the ``shortlist_size`` likeliest labels, never an excluded one);
2. without the labels the person's answers rule out (``Conversation.consistent_labels``), as long as one
   shortlisted label is consistent with them;
3. only those the clarifier still considers: at least ``CONSIDERED_SHARE`` of the likeliest one's belief;
4. and when one label holds ``DOMINANT_SHARE`` of what is left, that label alone (its answers compete);
5. the label the person just picked from an answer list, alone, when the belief holds it likeliest
   (``Conversation.picked``): the person named it, so it is proposed at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from assistant.clarification.conversation import Conversation
from assistant.clarification.records import ShortlistItem
from assistant.clarification.stopping import CONSIDERED_SHARE, DOMINANT_SHARE


@dataclass(frozen=True)
class ComparisonPlan:
    """The labels to compare (best first) and the shortlisted ones the answers ruled out."""

    items: tuple[ShortlistItem, ...]
    ruled_out: tuple[ShortlistItem, ...]  # shortlisted but contradicted by the answers
    dominant: bool


def plan_comparisons(conversation: Conversation, shortlist_size: int, closest: bool = False) -> ComparisonPlan:
    """Which shortlisted labels the comparison phase shows (see the module docstring). ``closest``: the person
    asked for the closest answers after "nothing fits": the likeliest ones, whatever the answers rule out."""
    items = conversation.shortlist(shortlist_size)
    picked = conversation.picked()
    if picked is not None and not closest and items:
        chosen = int(conversation.clarifier.candidates[picked])
        if items[0].label_index == chosen:
            return ComparisonPlan((items[0],), (), True)
    consistent = conversation.consistent_labels()
    if closest:
        consistent = np.ones_like(consistent)
    position = {int(c): i for i, c in enumerate(conversation.clarifier.candidates)}
    fits = [it for it in items if consistent[position[it.label_index]]]
    ruled_out = tuple(it for it in items if it not in fits) if fits else ()
    kept = fits or items
    top = kept[0].probability if kept else 0.0
    kept = [it for it in kept if it.probability >= CONSIDERED_SHARE * top]
    total = sum(it.probability for it in kept)
    dominant = len(kept) > 1 and kept[0].probability >= DOMINANT_SHARE * total
    if dominant:
        kept = kept[:1]
    return ComparisonPlan(tuple(kept), ruled_out, dominant)
