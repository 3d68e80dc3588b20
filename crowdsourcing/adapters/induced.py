"""Induced questions for domains without crowd tags (shared by the FAQ and banking adapters)."""

from __future__ import annotations

from collections.abc import Sequence

from assistant.domain import BINARY_OPTIONS, Label, Question
from crowdsourcing.induction import InductionConfig, induce_tags, yes_probability
from crowdsourcing.templates import TemplateSet

# Pseudo-annotators per (label, tag): the induced answer distribution is stored as counts of this many
# imaginary workers, so that a handful of real crowd answers can outweigh it once imported.
PSEUDO_ANNOTATORS = 10.0


def induced_questions(
    labels: Sequence[Label],
    texts_by_label: Sequence[Sequence[str]],
    config: InductionConfig | None = None,
) -> tuple[list[Question], list[tuple[str, str, str, float]]]:
    """Induce tags from each label's name and texts; return binary questions and their annotations."""
    induced = induce_tags(texts_by_label, [lab.name for lab in labels], config)
    templates = TemplateSet.builtin("default")
    p_yes = yes_probability(induced.relevance)
    questions, annotations = [], []
    for t, tag in enumerate(induced.tags):
        questions.append(
            Question(tag, templates.question_text(tag, "binary"), "binary", tag, BINARY_OPTIONS, induced=True)
        )
        for y, label in enumerate(labels):
            yes = round(float(PSEUDO_ANNOTATORS * p_yes[t, y]), 4)
            annotations.append((label.key, tag, "yes", yes))
            annotations.append((label.key, tag, "no", round(PSEUDO_ANNOTATORS - yes, 4)))
    return questions, annotations
