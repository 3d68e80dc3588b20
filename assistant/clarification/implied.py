"""Questions an answer makes redundant, among the induced questions of one kind (assistant.induction.induction).

The answer model treats answers as independent given the label, so after "What do you want to do in
Gmail?" -> archive it may still ask "Is it about archiving?" or "What do you want to do?": their answers
would only repeat what the person said, and a person asked twice takes the assistant for a form. An
answer settles, without a turn:

- a facet value (not "something else"): the binary question about that value, the binary questions about
  the other values the facet offered (the person chose "find" over "send": no "Is it about sending?") and
  every other facet of the same kind (the person has said what they want to do);
- "something else" to a facet: the binary questions about the values it offered (each would be "no");
- "yes" to a binary question: the facets of its kind that offer its value.

Questions whose tags are not induced ones (birds' attributes, crowd tags) settle nothing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from assistant.store import SOMETHING_ELSE, Question
from assistant.text.lemmas import phrase_key
from assistant.text.phrases import split_facet_tag, split_tag, words


def implied_questions(questions: Sequence[Question]) -> list[list[tuple[int, ...]]]:
    """Per question and option, the indices of the other questions that answer settles (module docstring)."""
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
        implied.append(per_option)
    return implied


def _present(indices) -> set[int]:
    return {i for i in indices if i is not None}
