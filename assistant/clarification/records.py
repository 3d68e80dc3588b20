"""The words of a conversation with the clarifier, as types: what a person may answer, why the clarifier stops
asking, the plain records a ``Conversation`` keeps and returns, and the clarifier's settings
(docs/glossary.md defines each word).

The enums are ``StrEnum``s: each member is the string that session logs and reports have always held, so
``StopReason.CONFIDENT == "confident"`` and logs written before they existed read the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from assistant.errors import ConfigError
from assistant.settings import MAX_QUESTIONS, SHORTLIST_SIZE
from assistant.store import Label


class AnswerKind(StrEnum):
    """How a person answered a question.

    - ``OPTION``: one of the question's options (yes/no, or a value of a multiple-choice group);
    - ``PROBABLY``: an option given with less confidence: its likelihood is mixed with the uniform one;
    - ``NOT_SURE``: no update (the question is still used up);
    - ``NOT_VISIBLE`` (birds): no update, and no more questions from that attribute group.
    """

    OPTION = "option"
    PROBABLY = "probably"
    NOT_SURE = "not_sure"
    NOT_VISIBLE = "not_visible"

    @property
    def picks_an_option(self) -> bool:
        """Whether this kind of answer names an option (and so moves the belief)."""
        return self in (AnswerKind.OPTION, AnswerKind.PROBABLY)


class StopReason(StrEnum):
    """Why a conversation stopped asking.

    The stop rule was confident (and the shortlist covers the answer); no question left would be
    informative; none is left at all; the question limit; the person skipped to the answers; nothing
    fits: the out-of-scope hypothesis reached its threshold (``assistant.clarification.out_of_scope``); or
    the person asked to see the closest answers anyway.
    """

    CONFIDENT = "confident"
    NO_INFORMATIVE_QUESTION = "no_informative_question"
    NO_QUESTION = "no_question"
    MAX_TURNS = "max_turns"
    USER = "user"
    OUT_OF_SCOPE = "out_of_scope"
    CLOSEST = "closest"  # the person asked for the closest answers after "nothing fits"

    @classmethod
    def _missing_(cls, value: object) -> StopReason | None:
        return cls.CONFIDENT if value == "policy" else None  # the stop policy's word in the first logs


@dataclass(frozen=True)
class ShortlistItem:
    """A candidate label: its index in the domain, the label, and its posterior probability."""

    label_index: int
    label: Label
    probability: float


@dataclass(frozen=True)
class AnswerRecord:
    """One answered question: its index, the option chosen (None for "not sure" / "not visible") and how;
    ``listed``: for an answer-list question (index ``ANSWER_LIST``), the positions of the labels it listed."""

    question: int
    option: int | None
    kind: AnswerKind
    listed: tuple[int, ...] = ()


@dataclass(frozen=True)
class QueryChange:
    """The person added words: the query and what it had answered before (for undo)."""

    words: str
    previous_query: str
    previous_prior: np.ndarray
    previous_understood: tuple[tuple[int, int], ...]
    newly_known: tuple[int, ...]


@dataclass(frozen=True)
class ClarifierConfig:
    """``max_turns``: questions at most; ``softness``: weight of a "probably" answer (1 = sure).

    ``coverage``: compare only when the shortlist (the ``shortlist_size`` most likely labels) holds the
    answer with at least this probability under the belief: below it the clarifier keeps asking although
    the stop rule says stop, unless no informative question is left (0 = the stop rule alone decides).
    ``answer_lists``: also ask "Which of these is it?" over the likeliest labels
    (``assistant.clarification.answer_list``): for domains whose labels people know by name.
    """

    max_turns: int = MAX_QUESTIONS
    shortlist_size: int = SHORTLIST_SIZE
    softness: float = 0.5
    coverage: float = 0.0
    answer_lists: bool = False

    def __post_init__(self) -> None:
        if not 0.0 <= self.coverage <= 1.0:
            raise ConfigError(f"coverage must be in [0, 1], got {self.coverage}")
        if self.max_turns < 0:
            raise ConfigError(f"max_turns must be >= 0, got {self.max_turns}")
        if self.shortlist_size < 1:
            raise ConfigError(f"shortlist_size must be >= 1, got {self.shortlist_size}")
        if not 0.0 <= self.softness <= 1.0:
            raise ConfigError(f"softness must be in [0, 1], got {self.softness}")
