"""How a person who has a label in mind answers induced questions (assistant.induction.induction).

A person says "yes" to a phrase of the label's own name almost surely (1 - error), and picks a facet value
its name names (of an action facet, the action the name asks for: "recover deleted emails" is "recover");
otherwise the answer follows how often the label's texts mention the phrase (saturating at
``saturation``; for a facet, what the texts leave unmentioned goes to "something else"; outside a facet's
group, all of it); a share ``error`` of answers go elsewhere. The error rate and the saturation are fitted on
dev queries (``fit_person_model``): a dev query that names exactly one value of a facet is that person's
answer to the facet's question.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from assistant.errors import ConfigError
from assistant.induction.facets import group_members
from assistant.induction.induction import InducedQuestion
from assistant.text.phrases import contains_phrase, text_keys, text_phrases


@dataclass
class MentionEvidence:
    """What a set of texts says about the values of each question: per question, ``in_title`` [V, Y] bool
    (the label's name mentions the value), ``share`` [V, Y] (share of the label's texts that do) and
    ``members`` [Y] bool (the labels of a facet's group; None for a question of every label)."""

    in_title: list[np.ndarray]
    share: list[np.ndarray]
    members: list[np.ndarray | None]


def mention_evidence(
    questions: Sequence[InducedQuestion],
    titles: Sequence[str],
    texts_by_label: Sequence[Sequence[str]],
    groups: Mapping[str, Collection[int]] | None = None,
) -> MentionEvidence:
    """Which values each label's name and texts mention, and the group of each facet within a group (see
    ``MentionEvidence``; ``groups`` as for ``induce_questions``)."""
    index = _value_index(questions)
    num_labels = len(titles)
    in_title = [np.zeros((len(q.values), num_labels), dtype=bool) for q in questions]
    share = [np.zeros((len(q.values), num_labels), dtype=np.float64) for q in questions]
    for y in range(num_labels):
        for q, v in _mentioned(titles[y], index):
            in_title[q][v, y] = True
        _keep_the_named_action(questions, in_title, y, titles[y])
        texts = [t for t in texts_by_label[y] if t.strip()]
        for text in texts:
            for q, v in _mentioned(text, index):
                share[q][v, y] += 1.0 / len(texts)
    members = [None if q.within is None else group_members(q.within, titles, groups) for q in questions]
    return MentionEvidence(in_title, share, members)


def _keep_the_named_action(questions: Sequence[InducedQuestion], in_title: list[np.ndarray], y: int, title: str):
    """Of the values of an action facet that a name mentions, keep the one it asks to do: "How do I recover
    deleted emails?" answers "recover", not "delete" (when the name's verbs name none, all mentions stay)."""
    actions = {p.key for p in text_phrases(title) if p.kind == "action"}
    for q, question in enumerate(questions):
        if question.facet and question.kind == "action" and in_title[q][:, y].sum() > 1:
            asked = np.array([key in actions for key in question.keys]) & in_title[q][:, y]
            if asked.any():
                in_title[q][:, y] = asked


def _value_index(questions: Sequence[InducedQuestion]) -> dict[tuple[str, ...], list[tuple[int, int]]]:
    index: dict[tuple[str, ...], list[tuple[int, int]]] = defaultdict(list)
    for q, question in enumerate(questions):
        for v, key in enumerate(question.keys):
            index[key].append((q, v))
    return index


def _mentioned(text: str, index: dict[tuple[str, ...], list[tuple[int, int]]]) -> set[tuple[int, int]]:
    """(question, value) pairs the text mentions; of two values of one question where one contains the other
    ("Google", "Google Docs"), only the longer."""
    keys = text_keys(text)
    found = [(key, q, v) for key in keys if key in index for q, v in index[key]]
    return {
        (q, v)
        for key, q, v in found
        if not any(q2 == q and len(k2) > len(key) and contains_phrase(k2, key) for k2, q2, _ in found)
    }


@dataclass(frozen=True)
class PersonModel:
    """How a person who has a label in mind answers induced questions (see the module docstring)."""

    error: float = 0.05
    saturation: float = 0.3

    def __post_init__(self) -> None:
        if not 0 < self.error < 0.5 or self.saturation <= 0:
            raise ConfigError(f"PersonModel needs 0 < error < 0.5 and saturation > 0, got {self}")

    def answers(
        self, question: InducedQuestion, in_title: np.ndarray, share: np.ndarray, members: np.ndarray | None = None
    ) -> np.ndarray:
        """[R, Y] answer distribution over the question's options for every label; ``members`` [Y] bool: the
        labels of the facet's group (the others answer "something else")."""
        strength = np.minimum(1.0, share / self.saturation)
        if not question.facet:
            yes = np.where(in_title[0], 1.0, strength[0])
            p_yes = self.error + (1.0 - 2.0 * self.error) * yes
            return np.stack([p_yes, 1.0 - p_yes])
        titled = np.asarray(in_title.any(axis=0))
        named = in_title / np.maximum(in_title.sum(axis=0), 1)
        told = strength / np.maximum(strength.sum(axis=0), 1.0)
        values = np.where(titled[None, :], named, told)
        if members is not None:
            values = values * members[None, :]
        base = np.vstack([values, 1.0 - values.sum(axis=0, keepdims=True)])
        return (1.0 - self.error) * base + self.error / base.shape[0]


def person_answers(
    questions: Sequence[InducedQuestion], evidence: MentionEvidence, model: PersonModel
) -> list[np.ndarray]:
    """Per question, the [R, Y] answer distribution of ``model`` given ``evidence``."""
    return [
        model.answers(q, evidence.in_title[i], evidence.share[i], evidence.members[i]) for i, q in enumerate(questions)
    ]


ERROR_GRID = (0.01, 0.02, 0.03, 0.05, 0.08, 0.12, 0.2)
SATURATION_GRID = (0.15, 0.3, 0.5)


def fit_person_model(
    questions: Sequence[InducedQuestion],
    evidence: MentionEvidence,
    observed_texts: Sequence[Sequence[str]],
    max_error: float | None = None,
) -> tuple[PersonModel, float]:
    """The error rate and saturation that best predict the facet values that ``observed_texts`` (dev
    queries, per label) name, one value alone; returns (model, mean log-likelihood per observation).
    ``max_error``: the largest error rate to consider (few, noisy observations, e.g. synthesized queries,
    otherwise pull it to the grid's ceiling)."""
    index = _value_index(questions)
    facets = {q for q, question in enumerate(questions) if question.facet}
    rows: list[tuple[int, int, int]] = []  # (question, option, label)
    for label, texts in enumerate(observed_texts):
        for text in texts:
            named: dict[int, list[int]] = defaultdict(list)
            for q, v in _mentioned(text, index):
                if q in facets:
                    named[q].append(v)
            rows.extend(
                (q, values[0], label)
                for q, values in named.items()
                if len(values) == 1 and ((members := evidence.members[q]) is None or members[label])
            )
    if not rows:
        return PersonModel(), float("nan")
    best, best_ll = PersonModel(), -np.inf
    for error in [e for e in ERROR_GRID if max_error is None or e <= max_error]:
        for saturation in SATURATION_GRID:
            model = PersonModel(error, saturation)
            answers = person_answers(questions, evidence, model)
            ll = float(np.mean([np.log(answers[q][r, y]) for q, r, y in rows]))
            if ll > best_ll:
                best, best_ll = model, ll
    return best, best_ll
