"""The way back after a "no" (issue 40): what the session does once a person rejected an answer and asked
for more questions.

- It first offers the likeliest remaining entries by name ("Which of these is it?" over the first
  ``NAMED_AFTER_NO`` of the belief, in its order, never skipping a likelier one), where the domain's people
  know its entries' names (``ClarifierConfig.answer_lists``): the next likeliest can be taken at once.
- When nothing is likely it says so instead of asking on: once ``QUESTIONS_AFTER_NO`` questions have been
  answered since the "no" (a rejection, or "none of these" to a list) and no entry reaches ``LIKELY_AFTER_NO``, the session ends as "nothing here fits"
  (the closest answers and the hand-on to a person stay on offer). Nine low-value questions once followed a
  rejection and ended on a proposal Clarify was 2% sure of.

Dismissed entries stay down by the belief's own rule (``assistant.clarification.belief``: a dismissal holds
their share at most at ``DISMISS_ERROR`` after every later answer).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from assistant.app.session.numbers import percent
from assistant.app.session.session_records import OutOfScopeView
from assistant.clarification.answer_list import AnswerList
from assistant.clarification.clarifier import Conversation

NAMED_AFTER_NO = 3
QUESTIONS_AFTER_NO = 3
LIKELY_AFTER_NO = 0.2


def named_after_no(conversation: Conversation) -> AnswerList | None:
    """The list of the likeliest entries left (not excluded), in the belief's order; None where the domain's
    entries are not asked by name or fewer than two are left."""
    if not conversation.clarifier.config.answer_lists:
        return None
    probs = conversation.probs
    order = [int(i) for i in np.lexsort((np.arange(probs.size), -probs)) if not conversation.excluded[i]]
    if len(order) < 2:
        return None
    return AnswerList(tuple(order[:NAMED_AFTER_NO]))


def nothing_likely(conversation: Conversation, questions_since_no: int) -> bool:
    """Whether to say "nothing here fits" now (module docstring)."""
    if questions_since_no < QUESTIONS_AFTER_NO:
        return False
    left = ~conversation.excluded
    in_scope = 1.0 - (conversation.out_of_scope_probability() or 0.0)  # the shares a person reads
    return not left.any() or in_scope * float(conversation.probs[left].max()) < LIKELY_AFTER_NO


def nothing_likely_view(view: OutOfScopeView) -> OutOfScopeView:
    """The "nothing fits" ending's words when it follows a "no" (the out-of-scope model's own number may
    say little then: what speaks is that no entry became likely)."""
    closest = view.did_you_mean
    closest_words = f" (the closest, “{closest[0][0]}”, is {percent(closest[0][1])})" if closest else ""
    message = (
        f"After your answers none of my answers looks likely{closest_words}. You can say it differently, look at "
        "the closest answers anyway, or hand the question on to a person."
    )
    return replace(view, message=message)
