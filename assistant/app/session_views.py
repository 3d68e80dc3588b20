"""What a Session shows and is configured with: its settings, the pending question, the final answer, and
the out-of-scope ending ("nothing here fits": what it can help with, the closest answers as "did you mean")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from assistant.app.registry import check_pace
from assistant.clarification.clarifier import Conversation
from assistant.errors import ConfigError

Phase = Literal["clarifying", "comparing", "decided", "finished", "failed", "out_of_scope"]


@dataclass(frozen=True)
class SessionConfig:
    """``shortlist_size`` labels go to the comparison phase; the ranker stops at ``ranking_threshold``
    confidence or after ``ranking_budget`` comparisons. ``text_prior`` is the model registry's, recorded when
    the session starts so that it is resumed with the same one. ``pace``: "quick" or "thorough" (the cost of
    a question, see ``assistant.app.registry.PACES``; None: the domain's default, recorded at the start)."""

    candidates: str = "all"
    shortlist_size: int = 5
    ranking_model: str = "gppl"
    acquisition: str = "imp"
    ranking_budget: int = 8
    ranking_threshold: float = 0.9
    seed: int = 0
    text_prior: str = "sru"
    pace: str | None = None

    def __post_init__(self) -> None:
        if self.shortlist_size < 1:
            raise ConfigError(f"shortlist_size must be at least 1, got {self.shortlist_size}")
        if self.pace is not None:
            check_pace(self.pace)


@dataclass(frozen=True)
class QuestionView:
    """What the user sees of the pending question."""

    index: int
    text: str
    kind: str
    options: tuple[str, ...]
    turn: int
    allows_not_visible: bool


@dataclass(frozen=True)
class FinalAnswer:
    """The answer the session arrived at: the label, the chosen candidate text and the clarifier's belief."""

    label_key: str
    label_name: str
    text: str
    probability: float
    comparisons: int


@dataclass(frozen=True)
class OutOfScopeView:
    """The out-of-scope ending: how sure it is that nothing fits, what the domain can help with (its areas,
    or its most asked-about topics) and the closest answers as "did you mean" (name, probability)."""

    probability: float
    message: str
    help_topics: tuple[str, ...]
    did_you_mean: tuple[tuple[str, float], ...]


AREA_GROUP = "area"


def out_of_scope_view(conversation: Conversation, title: str, k: int = 3) -> OutOfScopeView:
    """The view of a conversation that concluded that nothing fits (clarification.out_of_scope)."""
    domain = conversation.clarifier.domain
    probability = conversation.out_of_scope_probability() or 0.0
    areas = [q for q in domain.questions if q.group == AREA_GROUP and q.kind == "choice"]
    if areas:
        topics = tuple(o for o in areas[0].options if o != "something else")
    else:  # the values of the widest multiple-choice question, else a few labels
        choices = sorted((q for q in domain.questions if q.kind == "choice"), key=lambda q: -len(q.options))
        topics = tuple(o for o in choices[0].options if o != "something else") if choices else ()
        topics = topics or tuple(label.name for label in domain.labels[:8])
    # the belief over the labels given that one fits: the closest ones, not likely ones
    closest = tuple((item.label.name, item.probability) for item in conversation.shortlist(k))
    message = (
        f"I don't have an answer for that: nothing in {title} seems to fit ({probability:.0%} sure). You can say "
        "it differently, look at the closest answers anyway, or hand the question on to a person."
    )
    return OutOfScopeView(probability, message, topics, closest)
