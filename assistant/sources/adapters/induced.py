"""Induced questions for domains without crowd tags (shared by the FAQ and banking adapters).

The agent's answer model comes from each label's name and *training* queries, with the person model's
error rate fitted on the *dev* queries; the simulated user's (``heldout_answers``) from the same person
model over *all* of the label's queries, with its own fit (assistant.simulation.protocol).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence

from assistant.induction.coverage import action_coverage
from assistant.induction.induction import (
    InducedQuestion,
    InductionConfig,
    induce_questions,
    make_gate,
    question_from_tag,
)
from assistant.induction.person_model import fit_person_model, mention_evidence, person_answers
from assistant.induction.wording import question_problems
from assistant.sources.templates import TemplateSet
from assistant.store import Label, Question, QuestionKind
from assistant.text.grammar import agree

# Pseudo-annotators per option of a question: the induced answer distribution (the fitted person model) is
# stored as counts of this many imaginary workers per option, so that the agent's add-one smoothing (one per
# option) moves it by about a twentieth and not more: with 10 workers per question, a 10-option facet answer
# the person model gives 0.95 came out at 0.55, and the person's answers barely moved the belief. Imported
# crowd annotations replace induced ones (they are not mixed).
PSEUDO_ANNOTATORS_PER_OPTION = 20.0


def pseudo_count(num_options: int) -> float:
    """How many imaginary workers an induced answer distribution of a question with ``num_options`` stands for."""
    return PSEUDO_ANNOTATORS_PER_OPTION * num_options


def induced_questions(
    labels: Sequence[Label],
    texts_by_label: Sequence[Sequence[str]],
    dev_texts_by_label: Sequence[Sequence[str]] = (),
    config: InductionConfig | None = None,
    groups: Mapping[str, Collection[int]] | None = None,
    max_error: float | None = None,
) -> tuple[list[Question], list[tuple[str, str, str, float]], dict[str, str]]:
    """Induce questions from each label's name and (training) texts; return them, their annotations (the
    person model's answers as pseudo-counts) and meta entries saying which person model was fitted.
    ``groups``: named groups of label indices that get facets of their own (CLINC150's areas)."""
    titles = [label.name for label in labels]
    config = config or InductionConfig()
    gate = make_gate(titles, texts_by_label) if config.wording_gate else None
    induced = induce_questions(texts_by_label, titles, config, groups, gate)
    evidence = mention_evidence(induced, titles, texts_by_label, groups)
    model, loglik = fit_person_model(induced, evidence, dev_texts_by_label or [[] for _ in labels], max_error)
    answers = person_answers(induced, evidence, model)
    templates = TemplateSet.builtin("induced")
    texts = [templates.question_text(q.tag, "choice" if q.facet else "binary") for q in induced]
    if gate is not None:  # the last check: the whole question as a person reads it
        texts = agree(texts)
        problems = question_problems(texts)
        gate.report.rejected["question"] += sum(1 for found in problems if found)
        keep = [q for q, found in enumerate(problems) if not found]
        induced, answers, texts = [induced[q] for q in keep], [answers[q] for q in keep], [texts[q] for q in keep]
    questions, annotations = [], []
    for question, dist, text in zip(induced, answers, texts):
        kind: QuestionKind = "choice" if question.facet else "binary"
        questions.append(Question(question.tag, text, kind, question.group, question.options, induced=True))
        for y, label in enumerate(labels):
            for r, option in enumerate(question.options):
                count = pseudo_count(len(question.options)) * dist[r, y]
                annotations.append((label.key, question.tag, option, round(float(count), 4)))
    meta = {"induced_error_rate": f"{model.error:g}", "induced_saturation": f"{model.saturation:g}"}
    if gate is not None:
        covered, asking = action_coverage(gate, induced, groups)
        meta["wording_gate"] = json.dumps({**gate.report.to_dict(), "action_coverage": [covered, asking]})
    if loglik == loglik:  # not NaN: there were dev observations
        meta["induced_dev_loglik"] = f"{loglik:.4f}"
    return questions, annotations, meta


def heldout_answers(
    labels: Sequence[Label],
    questions: Sequence[Question],
    queries: Sequence[tuple[str, str, str]],
    groups: Mapping[str, Collection[int]] | None = None,
    fit_queries: Sequence[tuple[str, str, str]] | None = None,
    max_error: float | None = None,
) -> list[tuple[str, str, str, float]]:
    """The simulated user's answers to the induced questions (``DomainData.heldout``): the person model over
    *all* of a label's queries (train, dev and test), i.e. how the label is really talked about, with an error
    rate fitted on them (``fit_queries``: on these instead), where the agent's annotations saw only the
    training queries."""
    position = {label.key: y for y, label in enumerate(labels)}
    texts: list[list[str]] = [[] for _ in labels]
    for key, text, _split in queries:
        texts[position[key]].append(text)
    induced: list[InducedQuestion] = []
    for q in questions:
        found = question_from_tag(q.tag, q.options) if q.induced else None
        if found is not None:
            induced.append(found)
    titles = [label.name for label in labels]
    evidence = mention_evidence(induced, titles, texts, groups)
    fit_texts = texts
    if fit_queries is not None:
        fit_texts = [[] for _ in labels]
        for key, text, _split in fit_queries:
            fit_texts[position[key]].append(text)
    model, _ = fit_person_model(induced, evidence, fit_texts, max_error)
    rows = []
    for question, dist in zip(induced, person_answers(induced, evidence, model)):
        for y, label in enumerate(labels):
            for r, option in enumerate(question.options):
                rows.append((label.key, question.tag, option, float(dist[r, y])))
    return rows
