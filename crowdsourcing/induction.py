"""Induce questions from label texts when no crowd tags exist (FAQ, banking).

IC asks experts for tags and workers for tag annotations. Without them, Clarify proposes questions a
person can answer at once, from each label's name (its own question text) and training queries:

- *phrases by kind* (assistant.text.phrases): products ("Gmail", "Google Docs"), actions ("delete",
  "back up"), objects ("account", "exchange rate") and attributes ("pending"), matched by lemma;
- *binary questions* on the phrases that characterise a label, scored by (share of the label's texts that
  mention the phrase, the name counted ``title_weight`` times) x idf over labels, ``tags_per_label`` per
  label; worded per kind by the template set "induced" ("Is it about Gmail?", "Do you want to delete
  something?");
- *multiple-choice facet questions*, one per kind with enough values: the ``facet_values`` values that the
  most labels mention, plus "something else" ("Which service is it about?" Gmail / Google Docs / ... /
  something else; "What do you want to do?" delete / download / ... / something else).

How a person answers (``PersonModel``): a person who has the label in mind says "yes" to a phrase of the
label's own name almost surely (1 - error), and picks a facet value its name names; otherwise the answer
follows how often the label's texts mention the phrase (saturating at ``saturation``; for a facet, what
the texts leave unmentioned goes to "something else"); a share ``error`` of answers go elsewhere. The
error rate and the saturation are fitted on dev queries (``fit_person_model``): a dev query that names
exactly one value of a facet is that person's answer to the facet's question.

Induced questions are marked ``induced`` in the store and are replaced when crowd annotations for the tag
are imported.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from assistant.errors import ConfigError
from assistant.store import BINARY_OPTIONS, SOMETHING_ELSE
from assistant.text.lemmas import is_known, phrase_key, word_classes
from assistant.text.phrases import Phrase, make_tag, split_tag, text_keys, text_phrases, tokens, words
from assistant.text.tokens import STOPWORDS

# the kinds that get a multiple-choice question, and its tag (the group of that kind's binary questions too)
FACET_KINDS: tuple[str, ...] = ("product", "action", "object")


@dataclass(frozen=True)
class InductionConfig:
    """Parameters of question induction (see the module docstring)."""

    max_ngram: int = 3
    tags_per_label: int = 6
    min_label_support: int = 2
    max_label_fraction: float = 0.15
    title_weight: int = 3
    facet_values: int = 9
    min_facet_labels: int = 3
    min_product_mentions: int = 2

    def __post_init__(self) -> None:
        if self.max_ngram not in (1, 2, 3):
            raise ConfigError(f"max_ngram must be 1, 2 or 3, got {self.max_ngram}")
        if self.tags_per_label < 1:
            raise ConfigError(f"tags_per_label must be >= 1, got {self.tags_per_label}")
        if not 0 < self.max_label_fraction <= 1:
            raise ConfigError(f"max_label_fraction must be in (0, 1], got {self.max_label_fraction}")
        if self.facet_values < 2:
            raise ConfigError(f"facet_values must be >= 2, got {self.facet_values}")


@dataclass(frozen=True)
class InducedQuestion:
    """One induced question: a binary question about one phrase (``tag`` "product::Gmail") or a facet
    (``tag`` = its kind, "product") about several; ``values`` are the phrases as shown, ``keys`` their lemmas."""

    tag: str
    kind: str
    values: tuple[str, ...]
    keys: tuple[tuple[str, ...], ...]
    facet: bool = False

    @property
    def options(self) -> tuple[str, ...]:
        return (*self.values, SOMETHING_ELSE) if self.facet else BINARY_OPTIONS

    @property
    def group(self) -> str:
        return self.kind


def question_from_tag(tag: str, options: Sequence[str]) -> InducedQuestion | None:
    """The induced question behind a stored tag and options (None when the tag is not an induced one)."""
    kind, value = split_tag(tag)
    if kind is not None and tuple(options) == BINARY_OPTIONS:
        return InducedQuestion(tag, kind, (value,), (phrase_key(words(value)),))
    if tag in FACET_KINDS and options and options[-1] == SOMETHING_ELSE:
        values = tuple(options[:-1])
        return InducedQuestion(tag, tag, values, tuple(phrase_key(words(v)) for v in values), facet=True)
    return None


def find_products(names: Sequence[str], texts: Sequence[str], min_mentions: int = 2) -> dict[tuple[str, ...], str]:
    """Product names of a domain: {key: display}. A product is a run of capitalised words that do not start
    a sentence ("Google Docs", "Apple Pay") and is written so in at least half of the label names that
    mention it (names are written with care), or ``min_mentions`` times in the texts and, unless no
    dictionary knows one of its words ("gmail", "trello"), in at least a quarter of the texts that mention
    it. Short all-capital words ("FB", "USA") are abbreviations, not products."""
    name_caps, text_caps = _capitalised_runs(names), _capitalised_runs(texts)
    candidates = set(name_caps) | {k for k, (c, _) in text_caps.items() if c >= min_mentions}
    name_mentions, text_mentions = _mentions(names, candidates), _mentions(texts, candidates)
    products = {}
    for key in candidates:
        # a longer run must recur, in any case ("Social Translation" once is no product)
        recurs = len(key) == 1 or name_mentions[key] + text_mentions[key] >= min_mentions
        in_names = recurs and name_caps[key][0] >= 1 and name_caps[key][0] >= 0.5 * name_mentions[key]
        named = any(not is_known(w) for w in key) or text_caps[key][0] >= 0.25 * text_mentions[key]
        if not (in_names or (text_caps[key][0] >= min_mentions and named)):
            continue
        spellings = name_caps[key][1] + text_caps[key][1]
        display = sorted(spellings.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        if not (display.isupper() and len(display) <= 3):
            products[key] = display
    return products


def _capitalised_runs(texts: Sequence[str]) -> dict[tuple[str, ...], list]:
    """{key: [count, Counter of spellings]} of the runs of capitalised words that do not start a sentence."""
    found: dict[tuple[str, ...], list] = defaultdict(lambda: [0, Counter()])
    for text in texts:
        run: list = []
        for token in [*tokens(text), None]:
            if token is not None and token.capitalised and token.lower not in STOPWORDS and (run or not token.initial):
                run.append(token)
                continue
            for n in range(1, len(run) + 1):  # the run and its beginnings: "Google Docs", "Google"
                entry = found[phrase_key([t.lower for t in run[:n]])]
                entry[0] += 1
                entry[1][" ".join(t.text for t in run[:n])] += 1
            run = []
    return found


def _mentions(texts: Sequence[str], keys: set[tuple[str, ...]]) -> Counter:
    counts: Counter = Counter()
    for text in texts:
        counts.update(keys & text_keys(text))
    return counts


def _label_docs(
    texts_by_label: Sequence[Sequence[str]], titles: Sequence[str], config: InductionConfig
) -> list[list[str]]:
    return [
        [titles[y]] * config.title_weight + [t for t in texts if t.strip()] for y, texts in enumerate(texts_by_label)
    ]


def induce_questions(
    texts_by_label: Sequence[Sequence[str]], titles: Sequence[str], config: InductionConfig | None = None
) -> list[InducedQuestion]:
    """Binary questions on characteristic phrases and one facet question per kind (module docstring).
    Deterministic."""
    config = config or InductionConfig()
    if len(titles) != len(texts_by_label):
        raise ConfigError("induce_questions needs one title per label")
    docs = _label_docs(texts_by_label, titles, config)
    products = find_products(titles, [t for texts in texts_by_label for t in texts], config.min_product_mentions)
    counts: list[Counter] = []
    display: dict[tuple[str, tuple[str, ...]], Counter] = defaultdict(Counter)
    label_freq: Counter = Counter()
    for doc in docs:
        c: Counter = Counter()
        for text in doc:
            seen: dict[tuple[str, tuple[str, ...]], Phrase] = {}
            for phrase in text_phrases(text, products, config.max_ngram):
                seen.setdefault((phrase.kind, phrase.key), phrase)
            for ident, phrase in seen.items():
                c[ident] += 1
                display[ident][phrase.display] += 1
        counts.append(c)
        label_freq.update(c.keys())

    num_labels = len(docs)
    max_labels = max(2, int(config.max_label_fraction * num_labels))
    chosen: dict[tuple[str, tuple[str, ...]], float] = {}
    for y, c in enumerate(counts):
        n = max(1, len(docs[y]))
        scored = []
        for ident, k in c.items():
            df = label_freq[ident]
            if k < config.min_label_support or df > max_labels:
                continue
            scored.append(((k / n) * np.log(num_labels / df) * (1.0 + 0.25 * (len(ident[1]) - 1)), ident))
        scored.sort(key=lambda item: (-item[0], item[1]))
        scored = [
            item
            for item in scored
            if not (item[1][0] == "object" and label_freq[("action", item[1][1])] >= label_freq[item[1]])
        ]
        for score, ident in scored[: config.tags_per_label]:
            chosen[ident] = max(chosen.get(ident, 0.0), score)

    def shown(ident: tuple[str, tuple[str, ...]]) -> str:
        text = sorted(display[ident].items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        if ident[0] == "object":  # "exchange rate", not "exchange rates"
            return " ".join([*text.split()[:-1], ident[1][-1]])
        return text

    questions: list[InducedQuestion] = []
    tags: set[str] = set()
    for ident in sorted(chosen, key=lambda i: (-chosen[i], i)):
        tag = make_tag(ident[0], shown(ident))
        if tag not in tags:
            tags.add(tag)
            questions.append(InducedQuestion(tag, ident[0], (shown(ident),), (ident[1],)))
    named = Counter(ident for title in titles for ident in {(p.kind, p.key) for p in text_phrases(title, products)})
    for kind in FACET_KINDS:
        values = [
            ident
            for ident, df in label_freq.items()
            if ident[0] == kind
            and df >= config.min_facet_labels
            and named[ident] >= 1
            # a word used more often as an action than as an object is no object ("search", "link"); nor is
            # a lone word that may be an adjective ("specific")
            and not (kind == "object" and (named[("action", ident[1])] >= named[ident] or _adjective(ident[1])))
        ]
        values.sort(key=lambda i: (-named[i], -label_freq[i], i))
        if kind != "product":  # "card" and "card payment" side by side confuse; "Google", "Google Docs" do not
            values = _without_overlaps(values)
        values = values[: config.facet_values]
        if len(values) >= 3:
            questions.append(
                InducedQuestion(kind, kind, tuple(shown(v) for v in values), tuple(v[1] for v in values), facet=True)
            )
    return questions


def _without_overlaps(values: list[tuple[str, tuple[str, ...]]]) -> list[tuple[str, tuple[str, ...]]]:
    """Values that do not contain one another, the earlier first."""
    kept: list[tuple[str, tuple[str, ...]]] = []
    for ident in values:
        if not any(_contains(ident[1], k[1]) or _contains(k[1], ident[1]) for k in kept):
            kept.append(ident)
    return kept


def _adjective(key: tuple[str, ...]) -> bool:
    return len(key) == 1 and "ADJ" in word_classes(key[0])


def _contains(longer: tuple[str, ...], shorter: tuple[str, ...]) -> bool:
    n = len(shorter)
    return any(longer[i : i + n] == shorter for i in range(len(longer) - n + 1))


@dataclass
class MentionEvidence:
    """What a set of texts says about the values of each question: per question, ``in_title`` [V, Y] bool
    (the label's name mentions the value) and ``share`` [V, Y] (share of the label's texts that do)."""

    in_title: list[np.ndarray]
    share: list[np.ndarray]


def mention_evidence(
    questions: Sequence[InducedQuestion], titles: Sequence[str], texts_by_label: Sequence[Sequence[str]]
) -> MentionEvidence:
    """Which values each label's name and texts mention (see ``MentionEvidence``)."""
    index = _value_index(questions)
    num_labels = len(titles)
    in_title = [np.zeros((len(q.values), num_labels), dtype=bool) for q in questions]
    share = [np.zeros((len(q.values), num_labels), dtype=np.float64) for q in questions]
    for y in range(num_labels):
        for q, v in _mentioned(titles[y], index):
            in_title[q][v, y] = True
        texts = [t for t in texts_by_label[y] if t.strip()]
        for text in texts:
            for q, v in _mentioned(text, index):
                share[q][v, y] += 1.0 / len(texts)
    return MentionEvidence(in_title, share)


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
        if not any(q2 == q and len(k2) > len(key) and _contains(k2, key) for k2, q2, _ in found)
    }


@dataclass(frozen=True)
class PersonModel:
    """How a person who has a label in mind answers induced questions (see the module docstring)."""

    error: float = 0.05
    saturation: float = 0.3

    def __post_init__(self) -> None:
        if not 0 < self.error < 0.5 or self.saturation <= 0:
            raise ConfigError(f"PersonModel needs 0 < error < 0.5 and saturation > 0, got {self}")

    def answers(self, question: InducedQuestion, in_title: np.ndarray, share: np.ndarray) -> np.ndarray:
        """[R, Y] answer distribution over the question's options for every label."""
        strength = np.minimum(1.0, share / self.saturation)
        if not question.facet:
            yes = np.where(in_title[0], 1.0, strength[0])
            p_yes = self.error + (1.0 - 2.0 * self.error) * yes
            return np.stack([p_yes, 1.0 - p_yes])
        titled = in_title.any(axis=0)
        named = in_title / np.maximum(in_title.sum(axis=0), 1)
        told = strength / np.maximum(strength.sum(axis=0), 1.0)
        values = np.where(titled[None, :], named, told)
        base = np.vstack([values, 1.0 - values.sum(axis=0, keepdims=True)])
        return (1.0 - self.error) * base + self.error / base.shape[0]


def person_answers(
    questions: Sequence[InducedQuestion], evidence: MentionEvidence, model: PersonModel
) -> list[np.ndarray]:
    """Per question, the [R, Y] answer distribution of ``model`` given ``evidence``."""
    return [model.answers(q, evidence.in_title[i], evidence.share[i]) for i, q in enumerate(questions)]


ERROR_GRID = (0.01, 0.02, 0.03, 0.05, 0.08, 0.12, 0.2)
SATURATION_GRID = (0.15, 0.3, 0.5)


def fit_person_model(
    questions: Sequence[InducedQuestion],
    evidence: MentionEvidence,
    observed_texts: Sequence[Sequence[str]],
) -> tuple[PersonModel, float]:
    """The error rate and saturation that best predict the facet values that ``observed_texts`` (dev
    queries, per label) name, one value alone; returns (model, mean log-likelihood per observation)."""
    index = _value_index(questions)
    facets = {q for q, question in enumerate(questions) if question.facet}
    rows: list[tuple[int, int, int]] = []  # (question, option, label)
    for label, texts in enumerate(observed_texts):
        for text in texts:
            named: dict[int, list[int]] = defaultdict(list)
            for q, v in _mentioned(text, index):
                if q in facets:
                    named[q].append(v)
            rows.extend((q, values[0], label) for q, values in named.items() if len(values) == 1)
    if not rows:
        return PersonModel(), float("nan")
    best, best_ll = PersonModel(), -np.inf
    for error in ERROR_GRID:
        for saturation in SATURATION_GRID:
            model = PersonModel(error, saturation)
            answers = person_answers(questions, evidence, model)
            ll = float(np.mean([np.log(answers[q][r, y]) for q, r, y in rows]))
            if ll > best_ll:
                best, best_ll = model, ll
    return best, best_ll
