"""Questions one idea apart: the induced yes/no questions an answer settles because they ask what it said again,
in other words or about the same entries (issue 39's "pram", then "stroller", then "cot").

``assistant.clarification.implied`` settles the questions about the values an answer named; a person also takes
these for the same question:

- *another form of the value* ("Is it about the timer?" after "the time?"; ``assistant.text.word_forms``);
- *a near-synonym* the desk's build found: the shipped MiniLM's cosine between the two phrases at least
  ``assistant.induction.synonyms.SAME_IDEA_SIMILARITY``, stored with the domain (meta ``similar_tags``) so that
  no encoder runs before the first question;
- *the value inside a phrase that was answered*: any answer about "the portable cot" settles "Is it about the
  cot?", and "no" to "the cot" settles "the portable cot" (a kind of it: ``head_contains``); "yes" to "the
  cot" leaves "the portable cot?" to ask, as it can tell two cots apart;
- *the same entries*: a yes/no question whose "yes" entries (those the person model answers "yes" more often
  than ``NAMES_SHARE``) are exactly those of the option chosen, or all name an option the person did not
  choose and not the one they did ("no" to "the pram?", or "checked baggage" chosen over "pram", and the
  infant entry that "the stroller?" and "the cot?" point to has had its answer). MiniLM puts "pram" and
  "stroller" far apart (0.19): what says they are one idea is that the desk's texts use them for one entry.

Only induced questions settle or are settled (crowd tags and birds' attributes are asked as the crowd wrote
them); the settled are yes/no questions (one facet per family is ``facet_families``' part).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np

from assistant.store import SIMILAR_TAGS, SOMETHING_ELSE, Domain, Question
from assistant.text.lemmas import phrase_key, plural_forms
from assistant.text.phrases import split_facet_tag, split_tag, words
from assistant.text.word_forms import VARIANT_SUFFIXES, head_contains, same_form

# the meta entry that marks a desk's own FAQ (assistant.sources.own_faq.building writes it)
OWN_FAQ = "own_faq"
# an entry "names" an option when the person model answers it with more than this probability
NAMES_SHARE = 0.5

Value = tuple[str, tuple[str, ...]]  # (kind, key): ("object", ("portable", "cot"))


def similar_tags(domain: Domain) -> list[tuple[Value, Value]]:
    """The near-synonym pairs the domain's build stored (``SIMILAR_TAGS``; none for bundled domains)."""
    pairs = json.loads(domain.meta.get(SIMILAR_TAGS, "[]"))
    return [((kind, phrase_key(words(a))), (kind, phrase_key(words(b)))) for kind, a, b in pairs]


def kin_settled(
    questions: Sequence[Question],
    counts: np.ndarray | None = None,
    similar: Iterable[tuple[Value, Value]] = (),
) -> list[list[set[int]]]:
    """Per question and option, the induced yes/no questions that answer settles as one idea with it (module
    docstring). ``counts`` [Q, R, Y]: the annotation counts (the same entries; None: not used); ``similar``:
    pairs of values that are near-synonyms."""
    binaries = _Binaries(questions, similar)
    same_entries = _SameEntries(questions, counts, binaries.indices)
    settled: list[list[set[int]]] = []
    for q, question in enumerate(questions):
        per_option: list[set[int]] = [set() for _ in question.options]
        if question.induced:
            for r, (chosen, others) in enumerate(_said(question)):
                for value in chosen:
                    per_option[r] |= binaries.synonyms(value) | binaries.generals(value)
                for value in others:
                    per_option[r] |= binaries.synonyms(value) | binaries.generals(value) | binaries.specifics(value)
            same_entries.add(per_option, q, question)
        for options in per_option:
            options.discard(q)
        settled.append(per_option)
    return settled


def _said(question: Question) -> list[tuple[list[Value], list[Value]]]:
    """Per option of an induced question, the values its answer says "yes" to and those it says "no" to."""
    kind, value = split_tag(question.tag)
    if question.kind == "binary" and kind is not None:
        own = [(kind, phrase_key(words(value)))]
        return [(own, []), ([], own)]
    if question.kind == "choice" and question.options and question.options[-1] == SOMETHING_ELSE:
        facet_kind = split_facet_tag(question.tag)[0]
        offered = [(facet_kind, phrase_key(words(o))) for o in question.options[:-1]]
        said = [([v], [o for o in offered if o != v]) for v in offered]
        return [*said, ([], offered)]
    return [([], []) for _ in question.options]


class _SameEntries:
    """Which yes/no questions an answer settles through their entries (the entries that name each option: the
    person model's answers, as stored counts, more often than ``NAMES_SHARE``): those whose entries are exactly
    the chosen value's, and those whose entries all name a value the person did not choose and not the one
    they did (an entry that names both "time" and "items" is still in play after "time"). Sets indexed by
    entry, not a [B, Q x R] product: a 1,000-entry FAQ's tables would not fit a conversation's start."""

    def __init__(self, questions: Sequence[Question], counts: np.ndarray | None, binaries: np.ndarray) -> None:
        self.settled: dict[tuple[int, int], set[int]] = defaultdict(set)  # (question, answer) -> yes/no questions
        if counts is None or counts.shape[0] != len(questions) or binaries.size == 0:
            return
        named: dict[tuple[int, int], frozenset[int]] = {}
        exactly: dict[frozenset[int], list[tuple[int, int]]] = defaultdict(list)  # a value's entries -> answers
        away: dict[int, set[tuple[int, int]]] = defaultdict(set)  # entry -> the answers that turn it away
        for q, question in enumerate(questions):
            if not question.induced:
                continue
            table = counts[q, : len(question.options)]
            totals = table.sum(axis=0)
            share = np.divide(table, totals, out=np.zeros(table.shape), where=totals > 0) > NAMES_SHARE
            entries = [frozenset(np.flatnonzero(row).tolist()) for row in share]
            values = range(1 if question.kind == "binary" else len(question.options) - 1)
            for r, own in enumerate(entries):
                named[q, r] = own
                if r in values and own:
                    exactly[own].append((q, r))
                others = frozenset().union(*(entries[w] for w in values if w != r))
                for y in others - own:
                    away[y].add((q, r))
        for b in binaries.tolist():
            own = named.get((b, 0), frozenset())
            if not own:
                continue
            for answer in exactly.get(own, ()):
                self.settled[answer].add(b)
            for answer in set.intersection(*(away.get(y, set()) for y in own)):
                self.settled[answer].add(b)

    def add(self, per_option: list[set[int]], q: int, question: Question) -> None:
        """Add to ``per_option`` the yes/no questions each answer of ``question`` settles through their
        entries (the class docstring)."""
        for r in range(len(per_option)):
            per_option[r] |= self.settled.get((q, r), set())


class _Binaries:
    """The induced yes/no questions of a domain, indexed by their values' forms, their head words and the
    near-synonym pairs, so that the questions akin to a value are found without comparing every pair."""

    def __init__(self, questions: Sequence[Question], similar: Iterable[tuple[Value, Value]]) -> None:
        self.by_value: dict[Value, set[int]] = defaultdict(set)
        self.by_form: dict[tuple[str, str], set[Value]] = defaultdict(set)
        self.by_suffix: dict[Value, set[Value]] = defaultdict(set)
        indices = []
        for q, question in enumerate(questions):
            kind, shown = split_tag(question.tag)
            if question.induced and question.kind == "binary" and kind is not None:
                value = (kind, phrase_key(words(shown)))
                indices.append(q)
                self.by_value[value].add(q)
                for form in _forms(value[1]):
                    self.by_form[kind, form].add(value)
                for n in range(1, len(value[1])):
                    self.by_suffix[kind, value[1][n:]].add(value)
        self.indices = np.array(indices, dtype=np.int64)
        self.similar: dict[Value, set[Value]] = defaultdict(set)
        for a, b in similar:
            self.similar[a].add(b)
            self.similar[b].add(a)

    def _questions(self, values: Iterable[Value]) -> set[int]:
        return {q for value in values for q in self.by_value.get(value, ())}

    def synonyms(self, value: Value) -> set[int]:
        """The yes/no questions about another form of ``value`` or a near-synonym of it (and about it)."""
        kind, key = value
        candidates = {v for form in _forms(key) for v in self.by_form.get((kind, form), ())}
        forms = {v for v in candidates if same_form(v[1], key)}
        return self._questions({value, *forms, *self.similar.get(value, ())})

    def generals(self, value: Value) -> set[int]:
        """The yes/no questions about what ``value`` is a kind of ("cot" for "portable cot")."""
        kind, key = value
        return self._questions((kind, key[n:]) for n in range(1, len(key))) if kind == "object" else set()

    def specifics(self, value: Value) -> set[int]:
        """The yes/no questions about kinds of ``value`` ("portable cot" for "cot")."""
        kind, key = value
        if kind != "object":
            return set()
        return self._questions(v for v in self.by_suffix.get(value, ()) if head_contains(v[1], key))


def _forms(key: tuple[str, ...]) -> set[str]:
    """Strings two keys share when they may be forms of one phrase (``same_form`` decides): the joined key, a
    one-word key's plurals and derived forms and what it derives from, a word of a longer key with a letter
    left out. A superset: the index finds candidates, ``same_form`` checks each."""
    joined = "".join(key)
    forms = {joined}
    if len(key) == 1:
        word = key[0]
        stem = word[:-1] if word.endswith("e") else word
        forms |= plural_forms(word) | {word + s for s in VARIANT_SUFFIXES} | {stem + s for s in VARIANT_SUFFIXES}
        if len(word) >= 5:
            forms.add(word[1:])  # "email" -> "mail"
    else:
        for i, word in enumerate(key):
            for j in range(len(word)):
                forms.add(" ".join([*key[:i], word[:j] + "?" + word[j + 1 :], *key[i + 1 :]]))
    return forms
