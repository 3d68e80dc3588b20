"""Induced questions for domains without crowd tags (shared by the FAQ and banking adapters)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from assistant.store import BINARY_OPTIONS, Label, Question
from crowdsourcing.induction import InductionConfig, induce_tags, phrase_key, phrase_relevance, yes_probability
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


def heldout_answers(
    labels: Sequence[Label], questions: Sequence[Question], queries: Sequence[tuple[str, str, str]]
) -> list[tuple[str, str, str, float]]:
    """The simulated user's answers to the induced questions (``DomainData.heldout``): the same induction
    measured on *all* of a label's queries (train, dev and test), i.e. on how the label is really talked
    about, where the agent's annotations saw only the training queries (assistant.simulation.protocol)."""
    position = {label.key: y for y, label in enumerate(labels)}
    texts: list[list[str]] = [[] for _ in labels]
    for key, text, _split in queries:
        texts[position[key]].append(text)
    induced = [q for q in questions if q.induced]
    relevance = phrase_relevance([phrase_key(q.tag) for q in induced], texts, [label.name for label in labels])
    p_yes = yes_probability(relevance)
    rows = []
    for t, question in enumerate(induced):
        for y, label in enumerate(labels):
            rows.append((label.key, question.tag, "yes", float(p_yes[t, y])))
            rows.append((label.key, question.tag, "no", float(np.float32(1.0) - p_yes[t, y])))
    return rows
