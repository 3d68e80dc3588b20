"""Induce questions from label texts when no crowd tags exist (FAQ, banking).

IC asks experts for tags and workers for tag annotations. Without them, Clarify proposes questions a
person can answer at once, from each label's name (its own question text) and training queries:

- *phrases by kind* (assistant.text.phrases): products ("Gmail", "Google Docs"), actions ("delete",
  "back up"), objects ("account", "exchange rate") and attributes ("pending"), matched by lemma;
- *binary questions* on the phrases that characterise a label, scored by (share of the label's texts that
  mention the phrase, the name counted ``title_weight`` times) x idf over labels, ``tags_per_label`` per
  label; worded per kind by the template set "induced" ("Is it about Gmail?", "Do you want to delete
  something?");
- *multiple-choice facet questions*, one per kind with enough values, offering the ``facet_values`` values
  named in label names that say most about the label (assistant.induction.facets: greedy on the entropy of the
  answer), plus "something else" ("Which service is it about?" Gmail / Google Docs / ... / something else;
  "What do you want to do?" delete / download / ... / something else);
- *facets within a group*: the same for the labels of one group, a product named by at least
  ``min_group_labels`` label names or a group the adapter gives (CLINC150's areas): "What do you want to do
  in Gmail?" archive / filter / forward / ... / something else. A person outside the group answers
  "something else".

How a person answers these questions is assistant.induction.person_model's part.

Induced questions are marked ``induced`` in the store and are replaced when crowd annotations for the tag
are imported.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from assistant.errors import ConfigError
from assistant.induction.facets import choose_facet_values, facet_tag, group_members, split_facet_tag, without_overlaps
from assistant.induction.synonyms import SAME_IDEA_SIMILARITY
from assistant.induction.wording import WordingGate
from assistant.store import BINARY_OPTIONS, SOMETHING_ELSE
from assistant.text.lemmas import can_be_noun, is_known, lemma, phrase_key, word_classes
from assistant.text.phrases import Phrase, make_tag, split_tag, text_keys, text_phrases, tokens, words
from assistant.text.tokens import STOPWORDS

# the kinds that get a multiple-choice question, and its tag (the group of that kind's binary questions too)
FACET_KINDS: tuple[str, ...] = ("product", "action", "object")
Ident = tuple[str, tuple[str, ...]]  # (kind, key): ("object", ("exchange", "rate"))


@dataclass(frozen=True)
class InductionConfig:
    """Parameters of question induction (see the module docstring)."""

    max_ngram: int = 3
    tags_per_label: int = 6
    min_label_support: int = 2
    max_label_fraction: float = 0.15
    title_weight: int = 3
    facet_values: int = 9
    # an action facet offers more: a name asks for one verb, and a person finds a short verb in a longer list
    action_facet_values: int = 12
    min_facet_labels: int = 3
    min_product_mentions: int = 2
    min_group_labels: int = 6
    min_group_value_labels: int = 1
    # an object or action facet value named by the texts of more than this share of the labels says what the
    # whole domain is about ("library" in a library's FAQ): a person whose entry's title happens to name it
    # still answers "something else" (1.0: no limit, as the bundled domains are built; products are names
    # people recognise and stay)
    max_facet_label_fraction: float = 1.0
    # candidates per label handed to the wording gate (assistant.induction.wording) for its ``tags_per_label``
    gate_candidates_per_label: int = 12
    wording_gate: bool = True
    # one yes/no question per idea: of two phrases of a kind whose MiniLM cosine reaches SAME_IDEA_SIMILARITY
    # the better scored one (an own FAQ's; the bundled domains keep both, as their release models were built)
    merge_similar_binaries: bool = False

    def __post_init__(self) -> None:
        if self.max_ngram not in (1, 2, 3):
            raise ConfigError(f"max_ngram must be 1, 2 or 3, got {self.max_ngram}")
        if self.tags_per_label < 1:
            raise ConfigError(f"tags_per_label must be >= 1, got {self.tags_per_label}")
        if not 0 < self.max_label_fraction <= 1:
            raise ConfigError(f"max_label_fraction must be in (0, 1], got {self.max_label_fraction}")
        if self.facet_values < 2:
            raise ConfigError(f"facet_values must be >= 2, got {self.facet_values}")
        if self.min_group_labels < 2 or self.min_group_value_labels < 1:
            raise ConfigError(
                f"min_group_labels must be >= 2 and min_group_value_labels >= 1, got {self.min_group_labels} "
                f"and {self.min_group_value_labels}"
            )


@dataclass(frozen=True)
class InducedQuestion:
    """One induced question: a binary question about one phrase (``tag`` "product::Gmail") or a facet
    (``tag`` = its kind, "product", or kind@group within a group, "action@Gmail") about several; ``values``
    are the phrases as shown, ``keys`` their lemmas, ``within`` the group of a facet within a group."""

    tag: str
    kind: str
    values: tuple[str, ...]
    keys: tuple[tuple[str, ...], ...]
    facet: bool = False
    within: str | None = None

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
    facet_kind, within = split_facet_tag(tag)
    if facet_kind in FACET_KINDS and options and options[-1] == SOMETHING_ELSE:
        values = tuple(options[:-1])
        keys = tuple(phrase_key(words(v)) for v in values)
        return InducedQuestion(tag, facet_kind, values, keys, facet=True, within=within)
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
    texts_by_label: Sequence[Sequence[str]],
    titles: Sequence[str],
    config: InductionConfig | None = None,
    groups: Mapping[str, Collection[int]] | None = None,
    gate: WordingGate | None = None,
) -> list[InducedQuestion]:
    """Binary questions on characteristic phrases, one facet question per kind and facets within groups
    (module docstring). ``groups``: named groups of label indices the adapter knows (areas), besides the
    products that enough label names name. ``gate``: the wording gate to use (made here from the titles and
    texts unless given; none when ``config.wording_gate`` is off). Deterministic."""
    config = config or InductionConfig()
    if len(titles) != len(texts_by_label):
        raise ConfigError("induce_questions needs one title per label")
    docs = _label_docs(texts_by_label, titles, config)
    adjectives = _adjectival_words([t for doc in docs for t in doc])
    products = find_products(titles, [t for texts in texts_by_label for t in texts], config.min_product_mentions)
    counts, display, label_freq = _count_phrases(docs, products, config.max_ngram)
    if not config.wording_gate:
        gate = None
    elif gate is None:
        gate = make_gate(titles, texts_by_label)
    phrases = _Phrases(config, gate, display, label_freq, adjectives)
    questions = _binary_questions(phrases, _chosen_phrases(phrases, counts, docs))
    phrases.read_titles(titles, products)
    return questions + _facet_questions(phrases, titles, products, groups)


def _count_phrases(
    docs: Sequence[Sequence[str]], products: dict[tuple[str, ...], str], max_ngram: int
) -> tuple[list[Counter], dict[Ident, Counter], Counter]:
    """Per label, in how many of its texts each phrase occurs; each phrase's spellings; in how many labels."""
    counts: list[Counter] = []
    display: dict[Ident, Counter] = defaultdict(Counter)
    label_freq: Counter = Counter()
    for doc in docs:
        c: Counter = Counter()
        for text in doc:
            seen: dict[Ident, Phrase] = {}
            for phrase in text_phrases(text, products, max_ngram):
                seen.setdefault((phrase.kind, phrase.key), phrase)
            for ident, phrase in seen.items():
                c[ident] += 1
                display[ident][phrase.display] += 1
        counts.append(c)
        label_freq.update(c.keys())
    return counts, display, label_freq


@dataclass
class _Phrases:
    """What induction knows of a domain's phrases while it asks: their spellings, in how many labels each
    occurs, the gate's verdicts and (``read_titles``) the phrases each label name names."""

    config: InductionConfig
    gate: WordingGate | None
    display: dict[Ident, Counter]
    label_freq: Counter
    adjectives: set[str]
    title_idents: list[set[Ident]] = field(default_factory=list)
    named: Counter = field(default_factory=Counter)

    def shown(self, ident: Ident) -> str:
        if self.gate is not None and ident in self.gate.verdicts:
            return self.gate.verdicts[ident].display
        return _shown(self.display, ident)

    def no_object(self, ident: Ident, freq: Counter) -> bool:
        """A word used (``freq``) as often as an action as as an object is no object ("search", "link"); nor
        is a lone word the texts use as an adjective ("specific")."""
        key = ident[1]
        return ident[0] == "object" and (
            freq[("action", key)] >= freq[ident] or (len(key) == 1 and key[0] in self.adjectives)
        )

    def read_titles(self, titles: Sequence[str], products: dict[tuple[str, ...], str]) -> None:
        """The phrases each label name names; with the gate, its action as the parser reads it ("Change pin":
        change), judged and embedded."""
        idents = [{(p.kind, p.key) for p in text_phrases(title, products)} for title in titles]
        gate = self.gate
        if gate is not None:
            idents = [
                {i for i in ids if i[0] != "action"} | {("action", key) for key in gate.title_actions(y)}
                for y, ids in enumerate(idents)
            ]
            gate.check({i: _shown(self.display, i) for ids in idents for i in ids})
            gate.embed([(i[0], self.shown(i)) for ids in idents for i in ids if gate.verdicts[i].keep])
        self.title_idents = idents
        self.named = Counter(ident for ids in idents for ident in ids)

    def one_idea(self, a: Ident, b: Ident) -> bool:
        """Whether two phrases of a kind would ask one yes/no question twice (``merge_similar_binaries``)."""
        assert self.gate is not None
        if not self.config.merge_similar_binaries or a[0] == "product":
            return self.gate.same_form(a[1], b[1])
        return self.gate.same_meaning((a[1], self.shown(a)), (b[1], self.shown(b)), a[0], SAME_IDEA_SIMILARITY)

    def facet_values(self, kind: str, members: Sequence[int], min_labels: int, excluded: set) -> list:
        """The values of a facet of ``kind`` over the labels ``members`` (assistant.induction.facets)."""
        local = Counter(ident for y in members for ident in self.title_idents[y] if ident[0] == kind)
        candidates = [
            ident
            for ident, count in local.items()
            if count >= min_labels and ident not in excluded and not self.no_object(ident, self.named)
        ]
        candidates.sort(key=lambda i: (-local[i], -self.label_freq[i], i))
        gate = self.gate
        if gate is not None:
            candidates = [i for i in candidates if gate.verdicts[i].keep]
        if kind != "product":  # "card" and "card payment" side by side confuse; "Google", "Google Docs" do not
            candidates = without_overlaps(candidates)
            if gate is not None:  # nor "delete" and "remove": the better-covering one stays
                candidates = _without_synonyms(gate, candidates, self.shown)
        most = self.config.action_facet_values if kind == "action" else self.config.facet_values
        return choose_facet_values(candidates, [self.title_idents[y] for y in members], most)

    def facet_question(
        self, tag: str, kind: str, values: Sequence[Ident], within: str | None = None
    ) -> InducedQuestion:
        shown, keys = tuple(self.shown(v) for v in values), tuple(v[1] for v in values)
        return InducedQuestion(tag, kind, shown, keys, facet=True, within=within)


def _chosen_phrases(phrases: _Phrases, counts: Sequence[Counter], docs: Sequence[Sequence[str]]) -> dict[Ident, float]:
    """The phrases that get a yes/no question, with their best score over the labels they characterise."""
    config, gate = phrases.config, phrases.gate
    limit = config.gate_candidates_per_label if gate else config.tags_per_label
    ranked = [_ranked(phrases, c, max(1, len(docs[y])), len(docs))[:limit] for y, c in enumerate(counts)]
    if gate is not None:
        gate.check({ident: _shown(phrases.display, ident) for scored in ranked for _, ident in scored})
    chosen: dict[Ident, float] = {}
    for scored in ranked:
        kept = [item for item in scored if gate is None or gate.verdicts[item[1]].keep]
        for score, ident in kept[: config.tags_per_label]:
            chosen[ident] = max(chosen.get(ident, 0.0), score)
    return chosen


def _ranked(phrases: _Phrases, c: Counter, n: int, num_labels: int) -> list[tuple[float, Ident]]:
    """One label's phrases (``c``: in how many of its ``n`` texts) by share of texts x idf, best first."""
    max_labels = max(2, int(phrases.config.max_label_fraction * num_labels))
    scored = []
    for ident, k in c.items():
        df = phrases.label_freq[ident]
        if k < phrases.config.min_label_support or df > max_labels:
            continue
        scored.append(((k / n) * np.log(num_labels / df) * (1.0 + 0.25 * (len(ident[1]) - 1)), ident))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [item for item in scored if not phrases.no_object(item[1], phrases.label_freq)]


def _binary_questions(phrases: _Phrases, chosen: Mapping[Ident, float]) -> list[InducedQuestion]:
    """A yes/no question per chosen phrase, best first, one per tag and per form of a word."""
    gate, shown = phrases.gate, phrases.shown
    questions: list[InducedQuestion] = []
    tags: set[str] = set()
    asked: list[Ident] = []
    if gate is not None and phrases.config.merge_similar_binaries:
        gate.embed([(i[0], shown(i)) for i in chosen])  # in one batch: ``one_idea`` compares them pairwise
    for ident in sorted(chosen, key=lambda i: (-chosen[i], i)):
        tag = make_tag(ident[0], shown(ident))
        # forms of one word; near-synonyms only where the config says so (``merge_similar_binaries``)
        twin = next((a for a in asked if gate and a[0] == ident[0] and phrases.one_idea(a, ident)), None)
        if twin is not None and gate is not None:  # "the timer?" after "the time?" (a twin needs the gate)
            gate.report.merged.append((shown(ident), shown(twin)))
            continue
        if tag not in tags:
            tags.add(tag)
            asked.append(ident)
            questions.append(InducedQuestion(tag, ident[0], (shown(ident),), (ident[1],)))
    return questions


def _facet_questions(phrases: _Phrases, titles, products, groups) -> list[InducedQuestion]:
    """One multiple-choice question per kind over every label, and per group the actions and objects within."""
    config, label_freq, num_labels = phrases.config, phrases.label_freq, len(titles)
    # a value must be mentioned by a few labels; an action a name asks to do counts whatever its frequency
    rare = {i for i in label_freq if label_freq[i] < config.min_facet_labels} - {
        i for ids in phrases.title_idents for i in ids if i[0] == "action"
    }
    common = {
        i for i in label_freq if i[0] != "product" and label_freq[i] > config.max_facet_label_fraction * num_labels
    }
    questions = []
    for kind in FACET_KINDS:
        values = phrases.facet_values(kind, range(num_labels), 1, rare | common)
        if len(values) >= 3:
            questions.append(phrases.facet_question(kind, kind, values))
    for within, members in _facet_groups(titles, products, config, groups).items():
        for kind in FACET_KINDS[1:]:  # what to do and what about, within a product or an area
            values = phrases.facet_values(kind, members, config.min_group_value_labels, common)
            if len(values) >= 3:
                questions.append(phrases.facet_question(facet_tag(kind, within), kind, values, within))
    return questions


def make_gate(titles: Sequence[str], texts_by_label: Sequence[Sequence[str]]) -> WordingGate:
    """The wording gate of a domain: its label names and texts parsed, the names' requested actions read."""
    gate = WordingGate(titles, [t for texts in texts_by_label for t in texts])
    gate.read_title_actions(texts_by_label)
    return gate


def _shown(display: Mapping, ident: Ident) -> str:
    """The display form of a phrase: its commonest spelling; an object's last word singular ("exchange rate",
    not "exchange rates")."""
    if ident not in display:
        return " ".join(ident[1])
    text = sorted(display[ident].items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    if ident[0] == "object":
        return " ".join([*text.split()[:-1], ident[1][-1]])
    return text


def _same_meaning(gate: WordingGate, a, b, shown) -> bool:
    return a[0] == b[0] and a[0] != "product" and gate.same_meaning((a[1], shown(a)), (b[1], shown(b)), a[0])


def _without_synonyms(gate: WordingGate, values: list, shown) -> list:
    """Values none of which says what an earlier one says (``WordingGate.same_meaning``), the earlier first."""
    gate.embed([(v[0], shown(v)) for v in values])
    kept: list = []
    for ident in values:
        twin = next((k for k in kept if _same_meaning(gate, k, ident, shown)), None)
        if twin is None:
            kept.append(ident)
        else:
            gate.report.merged.append((shown(ident), shown(twin)))
    return kept


def _facet_groups(titles, products, config: InductionConfig, groups) -> dict[str, list[int]]:
    """Groups that get facets of their own: the adapter's ``groups`` and the products named by at least
    ``min_group_labels`` label names, {display name: label indices}."""
    found = {
        name: sorted(members) for name, members in (groups or {}).items() if len(members) >= config.min_group_labels
    }
    for key in sorted(products):
        name = products[key]
        members = np.flatnonzero(group_members(name, titles, groups)).tolist()
        if len(members) >= config.min_group_labels:
            found.setdefault(name, members)
    return found


def _adjectival_words(texts: Sequence[str]) -> set[str]:
    """Lemmas of words that may be adjectives and, in these texts, mostly modify the content word after them
    ("specific portion", "good webapp"): "Is it about the specific?" is no question. "video" ("a YouTube
    video", "video is paused") stays a noun."""
    uses: Counter = Counter()
    before_noun: Counter = Counter()
    for text in texts:
        lower = words(text)
        for i, word in enumerate(lower):
            if "ADJ" not in word_classes(word):
                continue
            uses[lemma(word)] += 1
            if i + 1 < len(lower) and lower[i + 1] not in STOPWORDS and can_be_noun(lower[i + 1]):
                before_noun[lemma(word)] += 1
    return {w for w, n in uses.items() if before_noun[w] > 0.5 * n}
