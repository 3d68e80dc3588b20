"""Questions an answer makes redundant, among the induced questions of one kind (assistant.induction.induction).

The answer model treats answers as independent given the label, so after "What do you want to do in
Gmail?" -> archive it may still ask "Is it about archiving?" or "What do you want to do?": their answers
would only repeat what the person said, and a person asked twice takes the assistant for a form. An
answer settles, without a turn:

- a facet value (not "something else"): the binary question about that value, the binary questions about
  the other values the facet offered (the person chose "find" over "send": no "Is it about sending?") and
  every other facet of the same kind (the person has said what they want to do);
- "something else" to a facet: the binary questions about the values it offered (each would be "no");
- "yes" to a binary question: the facets of its kind that offer its value;
- and facets scoped to a value ("What do you want to do in Facebook?", tag "action@Facebook") follow the
  answers about that value's kind: "Google" to "Which service is it about?" (or "yes" to "Is it about
  Google?") settles the facets scoped to every other service, "something else" the facets scoped to the
  services it offered, "no" to "Is it about Facebook?" the facets scoped to Facebook (issue 32).

Questions whose tags are not induced ones (birds' attributes, crowd tags) settle nothing. Given the answer
counts, an answer also settles the yes/no questions one idea apart from it: other forms of its value,
near-synonyms, phrases inside one another, questions about the same entries (assistant.clarification.kinship).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np

from assistant.clarification.kinship import Value, kin_settled
from assistant.store import SOMETHING_ELSE, Question
from assistant.text.lemmas import phrase_key
from assistant.text.phrases import split_facet_tag, split_tag, words


def implied_questions(
    questions: Sequence[Question], counts: np.ndarray | None = None, similar: Iterable[tuple[Value, Value]] = ()
) -> list[list[tuple[int, ...]]]:
    """Per question and option, the indices of the other questions that answer settles (module docstring).
    With ``counts`` [Q, R, Y] (the domain's answer counts), the questions one idea apart are added
    (``kin_settled``, with ``similar``: near-synonym value pairs)."""
    binary: dict[tuple[str, tuple[str, ...]], int] = {}  # (kind, value key) -> binary question
    facets: dict[str, list[int]] = defaultdict(list)  # kind -> facet questions
    for q, question in enumerate(questions):
        if not question.induced:
            continue
        kind, value = split_tag(question.tag)
        if question.kind == "binary" and kind is not None:
            binary[(kind, phrase_key(words(value)))] = q
        elif question.kind == "choice" and question.options[-1] == SOMETHING_ELSE:
            facets[split_facet_tag(question.tag)[0]].append(q)
    offered = {q: [phrase_key(words(o)) for o in questions[q].options[:-1]] for qs in facets.values() for q in qs}
    scoped = _scoped_facets(questions, offered)  # once: the same for every question (it was per question, 0.3 s)
    implied: list[list[tuple[int, ...]]] = []
    for q, question in enumerate(questions):
        per_option: list[tuple[int, ...]] = [() for _ in question.options]
        if q in offered:
            kind = split_facet_tag(question.tag)[0]
            siblings = [other for other in facets[kind] if other != q]
            every_value = _present(binary.get((kind, key)) for key in offered[q])
            for r in range(len(offered[q])):
                per_option[r] = tuple(sorted({*siblings, *every_value}))
            per_option[-1] = tuple(sorted(_present(binary.get((kind, key)) for key in offered[q])))
        elif question.induced and question.kind == "binary":
            kind, value = split_tag(question.tag)
            if kind is not None:
                key = phrase_key(words(value))
                per_option[0] = tuple(other for other in facets.get(kind, ()) if key in offered[other])
        _add_scoped(per_option, question, scoped)
        implied.append(per_option)
    if counts is not None:
        for q, kin in enumerate(kin_settled(questions, counts, similar)):
            implied[q] = [tuple(sorted({*own, *extra})) for own, extra in zip(implied[q], kin)]
    return implied


def _scoped_facets(questions: Sequence[Question], offered: dict[int, list[tuple[str, ...]]]) -> dict[str, list]:
    """{kind: [(facet question, the key of the value it is scoped to)]}: the facets scoped to a value ("action@
    Facebook"), by the kind of that value (a binary question about it, or an unscoped facet offering it)."""
    kinds: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for q, question in enumerate(questions):
        kind, value = split_tag(question.tag)
        if question.induced and question.kind == "binary" and kind is not None:
            kinds[phrase_key(words(value))].add(kind)
        elif q in offered and split_facet_tag(question.tag)[1] is None:
            for key in offered[q]:
                kinds[key].add(split_facet_tag(question.tag)[0])
    scoped: dict[str, list] = defaultdict(list)
    for q, question in enumerate(questions):
        within = split_facet_tag(question.tag)[1] if question.induced and question.kind == "choice" else None
        if within is not None:
            key = phrase_key(words(within))
            for kind in kinds.get(key, ()):
                scoped[kind].append((q, key))
    return scoped


def _add_scoped(per_option: list[tuple[int, ...]], question: Question, scoped: dict[str, list]) -> None:
    """Add to ``per_option`` the scoped facets each answer of ``question`` settles (module docstring)."""
    if not question.induced:
        return
    if question.kind == "binary":
        kind, value = split_tag(question.tag)
        key = phrase_key(words(value))
        settled = {
            0: [q for q, scope in scoped.get(kind or "", ()) if scope != key],  # yes: every other value's
            1: [q for q, scope in scoped.get(kind or "", ()) if scope == key],  # no: this value's
        }
    elif question.kind == "choice" and split_facet_tag(question.tag)[1] is None:
        kind = split_facet_tag(question.tag)[0]
        keys = [phrase_key(words(o)) for o in question.options]
        settled = {r: [q for q, scope in scoped.get(kind, ()) if scope != keys[r]] for r in range(len(keys))}
        if question.options[-1] == SOMETHING_ELSE:
            settled[len(keys) - 1] = [q for q, scope in scoped.get(kind, ()) if scope in keys[:-1]]
    else:
        return
    for r, extra in settled.items():
        if r < len(per_option) and extra:
            per_option[r] = tuple(sorted({*per_option[r], *extra}))


def _present(indices) -> set[int]:
    return {i for i in indices if i is not None}
