"""A desk's review of a domain's questions: hidden questions, reworded questions, renamed options.

Stored per tag in ``question_reviews`` (schema 5), apart from the questions themselves, so that a review
outlives ``clarify domain build`` (which re-induces questions) and crowd imports. ``apply_reviews`` is what
``KnowledgeBase.load_domain`` does with them: a hidden question is left out of the ``Domain`` (never asked,
never trained or evaluated on), a reworded one carries its new text, a renamed option its new name (its
annotations stay with it: they are read before the rename).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from assistant.store.domain import Question


@dataclass(frozen=True)
class QuestionReview:
    """What a desk changed about one question (by tag): ``hidden``, a new ``text`` (None: the induced one),
    ``options`` {stored option: shown option}."""

    tag: str
    hidden: bool = False
    text: str | None = None
    options: dict[str, str] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return self.hidden or self.text is not None or bool(self.options)


def read_reviews(db: Any) -> dict[str, QuestionReview]:
    """Every stored review, by tag."""
    return {
        tag: QuestionReview(tag, bool(hidden), text, json.loads(options))
        for tag, hidden, text, options in db.execute("SELECT tag, hidden, text, options FROM question_reviews")
    }


def write_review(db: Any, review: QuestionReview, now: str) -> None:
    """Store ``review`` (replacing the tag's earlier one); a review that changes nothing is deleted."""
    if not review.changed:
        db.execute("DELETE FROM question_reviews WHERE tag = ?", [review.tag])
        return
    db.execute(
        """INSERT INTO question_reviews (tag, hidden, text, options, updated_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT(tag) DO UPDATE SET hidden = excluded.hidden, text = excluded.text,
           options = excluded.options, updated_at = excluded.updated_at""",
        [review.tag, int(review.hidden), review.text, json.dumps(review.options, sort_keys=True), now],
    )


def reviewed(question: Question, review: QuestionReview | None) -> Question:
    """``question`` as the desk wants it asked (its text and option names; hiding is the caller's part)."""
    if review is None or not (review.text or review.options):
        return question
    options = tuple(review.options.get(o, o) for o in question.options)
    return replace(question, text=review.text or question.text, options=options)


def visible(questions: Sequence[Question], reviews: dict[str, QuestionReview]) -> list[int]:
    """Indices of the questions no review hides."""
    return [q for q, question in enumerate(questions) if not (question.tag in reviews and reviews[question.tag].hidden)]
