"""The product's defaults, each said once: how many answers go to the comparisons, how many comparisons a
person is asked for at most, how sure the ranker must be, how many questions a conversation may ask.

The configs that use them (``assistant.app.conversation.session_records.SessionConfig``, the registry's clarifiers, the
evaluation setups) take these as their defaults and validate what a caller passes instead. The ranking library
(``assistant.ranking``) keeps its own defaults: it is usable without Clarify.
"""

from __future__ import annotations

SHORTLIST_SIZE = 5  # labels that go on to the comparisons (and whose mass the stop policy sees)
RANKING_BUDGET = 8  # comparisons a person is asked for at most
RANKING_THRESHOLD = 0.9  # the ranker stops when its best answer's chance reaches this
MAX_QUESTIONS = 10  # questions one conversation may ask (IC's limit)
