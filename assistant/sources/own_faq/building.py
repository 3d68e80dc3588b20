"""A desk's FAQ entries -> a knowledge base (``DomainData``) built from the texts alone, with no crowd data.

- Labels: one per entry (key, title as the name, description as the text, the answers attached).
- Queries: synthesized from the texts (assistant.sources.own_faq.synthesis), stored with source
  ``SYNTHESIZED`` in train (what the agent learns from) and dev (what it is tuned on); real queries a desk
  adds later keep their own source and split.
- Questions: induced from the titles and the synthesized training queries, the person model fitted on the
  synthesized dev queries (assistant.induction.induction, as for the bundled FAQ), plus, when the FAQ has
  categories, "Which topic is it about?" (the categories + "something else") and the induced facets within
  each category ("What do you want to do in Borrowing?"). Near-synonyms of a kind (MiniLM at least
  ``SAME_IDEA_SIMILARITY``) get one yes/no question, and their pairs among all the values asked about are stored
  (meta ``similar_tags``) so that an answer about one settles the other (assistant.clarification.kinship).
- The simulated user's answers (``DomainData.heldout``): the same person model over *all* of an entry's
  synthesized queries, including the ``held`` third that is never stored and that the agent never sees
  (as the bundled domains use all of a label's crowd queries against the agent's training ones). The
  topic question: the right category with probability 1 - ``CATEGORY_ERROR`` for both sides, an assumption
  as for CLINC150's area question.
- Out of scope: dev queries no entry answers, drawn from the other bundled domains' train and dev queries
  (banking, CLINC150's in-scope and out-of-scope queries, StackFAQ), leaving out any that shares two content
  words with one entry's title and description or names a word the FAQ's titles capitalise.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Sequence

import numpy as np

from assistant.induction.induction import InductionConfig, find_products
from assistant.induction.synonyms import similar_values
from assistant.sources.adapters.induced import heldout_answers, induced_questions, pseudo_count
from assistant.sources.own_faq.entries import FaqEntry
from assistant.sources.own_faq.synthesis import synthesize
from assistant.store import SIMILAR_TAGS, SOMETHING_ELSE, DomainData, Label, Question
from assistant.text.lemmas import lemma
from assistant.text.phrases import split_facet_tag, split_tag, words
from assistant.text.tokens import STOPWORDS

SYNTHESIZED = "synthesized"
FAQ_SOURCE = "faq-file"
CATEGORY_TAG = "category"
CATEGORY_QUESTION = "Which topic is it about?"
CATEGORY_ERROR = 0.1
OUT_OF_SCOPE_PER_SOURCE = 50
OUT_OF_SCOPE_SEED = 29
OUT_OF_SCOPE_SOURCES = ("banking", "clinc", "clinc-oos", "faq")
# the synthesized kinds that say what a person with the entry in mind would say (assistant.sources.own_faq.synthesis)
PERSON_KINDS = ("title", "core", "description", "situation")
# The person model's error rate is fitted on few synthesized observations, a handful of which name another
# entry's facet value: unbounded, the fit went to the grid's ceiling (0.2) on both the example FAQ and StackFAQ's
# texts. Bounded by what real people showed: the rate fitted on StackFAQ's crowd dev queries is 0.12.
MAX_PERSON_ERROR = 0.12
# A FAQ's titles name its own subject again and again ("the library Wi-Fi", "a library card"): a facet offering
# "library" made the Wi-Fi entry's person answer "library" to "What is it about?", where a real one says
# "something else" (seen in the example's transcript). Object and action values named by more than a third of
# the entries are not offered.
INDUCTION = InductionConfig(max_facet_label_fraction=1 / 3, merge_similar_binaries=True)


def labels_of(entries: Sequence[FaqEntry]) -> list[Label]:
    return [Label(key=e.key, name=e.title, text=e.description, answers=tuple(e.answers)) for e in entries]


def category_question(entries: Sequence[FaqEntry]) -> Question | None:
    """ "Which topic is it about?" over the FAQ's categories (None with fewer than two)."""
    names = list(dict.fromkeys(e.category for e in entries if e.category))
    if len(names) < 2:
        return None
    return Question(CATEGORY_TAG, CATEGORY_QUESTION, "choice", CATEGORY_TAG, (*names, SOMETHING_ELSE))


def category_answers(entries: Sequence[FaqEntry], question: Question) -> list[tuple[str, str, str, float]]:
    """(key, tag, option, probability): an entry's own category (without one: "something else") with
    probability 1 - CATEGORY_ERROR; of the rest, half on "something else" and half over the other categories
    (an entry without a category: the rest over the categories)."""
    categories = question.options[:-1]
    rows = []
    for entry in entries:
        for option in question.options:
            if entry.category:
                if option == entry.category:
                    p = 1.0 - CATEGORY_ERROR
                elif option == SOMETHING_ELSE:
                    p = CATEGORY_ERROR / 2
                else:
                    p = CATEGORY_ERROR / 2 / (len(categories) - 1)
            else:
                p = 1.0 - CATEGORY_ERROR if option == SOMETHING_ELSE else CATEGORY_ERROR / len(categories)
            rows.append((entry.key, CATEGORY_TAG, option, p))
    return rows


def faq_domain_data(
    name: str,
    entries: Sequence[FaqEntry],
    title: str = "",
    description: str = "",
    out_of_scope_exclude: Sequence[str] = (),
    meta: dict[str, str] | None = None,
) -> DomainData:
    """The knowledge base of a FAQ (module docstring). ``out_of_scope_exclude``: bundled domains not to draw
    out-of-scope examples from (the labels-only protocol builds faq from its own texts: not from faq)."""
    labels = labels_of(entries)
    keys = [label.key for label in labels]
    synthesized = synthesize(entries)
    by_split: dict[str, dict[str, list[str]]] = {s: defaultdict(list) for s in ("train", "dev", "held")}
    for query in synthesized:
        by_split[query.split][query.key].append(query.text)
    groups: dict[str, list[int]] = defaultdict(list)
    for y, entry in enumerate(entries):
        if entry.category:
            groups[entry.category].append(y)
    # The person model's error rate is fitted on what a person with the entry in mind would say of it (its
    # title, description and situations), not on the keyword pairs and quoted messages, which name facet
    # values of other entries as often as their own (fitted on every kind, the error rate hit the grid's
    # ceiling, 0.2, and every induced question became weak evidence).
    fit_dev: dict[str, list[str]] = defaultdict(list)
    for query in synthesized:
        if query.split == "dev" and query.kind in PERSON_KINDS:
            fit_dev[query.key].append(query.text)
    induced, annotations, induced_meta = induced_questions(
        labels,
        [by_split["train"][k] for k in keys],
        [fit_dev[k] for k in keys],
        config=INDUCTION,
        groups=dict(groups) if len(groups) >= 2 else None,
        max_error=MAX_PERSON_ERROR,
    )
    stored = [(q.key, q.text, q.split) for q in synthesized if q.split in ("train", "dev")]
    everything = [(q.key, q.text, "train") for q in synthesized]
    fit_all = [(q.key, q.text, "train") for q in synthesized if q.kind in PERSON_KINDS]
    groups_or_none = dict(groups) if len(groups) >= 2 else None
    heldout = heldout_answers(
        labels, induced, everything, groups_or_none, fit_queries=fit_all, max_error=MAX_PERSON_ERROR
    )
    questions = list(induced)
    similar = similar_values([v for q in induced for v in _values(q)])
    topic = category_question(entries)
    if topic is not None:
        rows = category_answers(entries, topic)
        per_option = pseudo_count(len(topic.options))
        annotations += [(k, tag, option, round(per_option * p, 4)) for k, tag, option, p in rows]
        heldout += rows
        questions.insert(0, topic)
    kinds = Counter(q.kind for q in synthesized)
    return DomainData(
        name=name,
        title=title or name,
        description=description or f"Your own FAQ: {len(entries)} entries.",
        labels=labels,
        questions=questions,
        annotations=annotations,
        annotation_source="induced",
        queries=stored,
        meta={
            **induced_meta,
            **(meta or {}),
            "own_faq": "true",
            SIMILAR_TAGS: json.dumps(similar),
            "synthesized_queries": json.dumps({**dict(sorted(kinds.items())), **_split_counts(synthesized)}),
            "category_error": f"{CATEGORY_ERROR:g}" if topic is not None else "",
        },
        heldout=heldout,
        out_of_scope=out_of_scope_examples(entries, out_of_scope_exclude),
        label_source=FAQ_SOURCE,
        query_source=SYNTHESIZED,
        exact_labels=True,
    )


def _values(question: Question) -> list[tuple[str, str]]:
    """(kind, shown) of the values an induced question asks about: its phrase, or a facet's offered values."""
    kind, value = split_tag(question.tag)
    if question.kind == "binary" and kind is not None:
        return [(kind, value)]
    return [(split_facet_tag(question.tag)[0], option) for option in question.options[:-1]]


def _split_counts(synthesized) -> dict[str, int]:
    counts = Counter(q.split for q in synthesized)
    return {f"split_{s}": counts[s] for s in ("train", "dev", "held")}


def _rows(source: str) -> list[tuple[str, str]]:
    """(text, split) of one bundled source of out-of-scope examples."""
    from assistant.sources.adapters import banking77, clinc150, stackfaq

    if source == "banking":
        return [(t, s) for _k, t, s in banking77.read_queries()[1]]
    if source == "faq":
        return [(t, s) for _k, t, s in stackfaq.read_threads()[1]]
    areas = clinc150.read_areas()
    queries, _texts, oos = clinc150.read_queries(areas)
    return oos if source == "clinc-oos" else [(t, s) for _k, t, s in queries]


def _content(text: str) -> set[str]:
    return {lemma(w) for w in words(text) if w not in STOPWORDS and len(w) > 2}


def out_of_scope_examples(
    entries: Sequence[FaqEntry], exclude: Sequence[str] = (), per_source: int = OUT_OF_SCOPE_PER_SOURCE
) -> list[tuple[str, str]]:
    """(text, "dev") queries of the other bundled domains that no entry seems to answer (module docstring)."""
    entry_words = [_content(f"{e.title} {e.description}") for e in entries]
    products = {k for key in find_products([e.title for e in entries], []) for k in key}
    rng = np.random.default_rng(OUT_OF_SCOPE_SEED)
    drawn: list[tuple[str, str]] = []
    seen: set[str] = set()
    for source in OUT_OF_SCOPE_SOURCES:
        if source in exclude:
            continue
        pool = sorted({t for t, s in _rows(source) if s in ("train", "dev")})
        order = rng.permutation(len(pool))
        taken = 0
        for i in order:
            text = pool[i]
            content = _content(text)
            if text.lower() in seen or content & products or any(len(content & own) >= 2 for own in entry_words):
                continue
            seen.add(text.lower())
            drawn.append((text, "dev"))
            taken += 1
            if taken >= per_source:
                break
    return drawn
