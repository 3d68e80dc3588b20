"""Induce candidate tags from label texts when no crowd tags exist (FAQ, banking).

IC asks experts for tags and workers for tag annotations. Without them, Clarify proposes tags itself: the
words and two-word phrases that characterise a label's texts (its FAQ question, example queries, answers)
while occurring for few other labels, scored by (fraction of the label's texts that mention the phrase) x
idf. Each label contributes its best ``tags_per_label`` phrases. How strongly a tag applies to a label is
the fraction of the label's texts mentioning it; ``yes_probability`` turns that into the answer
distribution a user who has that label in mind would give to "Is it about <tag>?". Induced questions are
marked ``induced`` in the store and are replaced when crowd annotations for the tag are imported.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from assistant.errors import ConfigError
from assistant.text.tokens import STOPWORDS, singular, words


@dataclass(frozen=True)
class InductionConfig:
    """Parameters of tag induction (see the module docstring)."""

    max_ngram: int = 2
    tags_per_label: int = 8
    min_label_support: int = 2
    max_label_fraction: float = 0.15
    min_word_length: int = 3
    title_weight: int = 3

    def __post_init__(self) -> None:
        if self.max_ngram not in (1, 2, 3):
            raise ConfigError(f"max_ngram must be 1, 2 or 3, got {self.max_ngram}")
        if self.tags_per_label < 1:
            raise ConfigError(f"tags_per_label must be >= 1, got {self.tags_per_label}")
        if not 0 < self.max_label_fraction <= 1:
            raise ConfigError(f"max_label_fraction must be in (0, 1], got {self.max_label_fraction}")


@dataclass
class InducedTags:
    """``tags[t]`` (display form) with ``relevance[t, y]`` = share of label y's texts mentioning tag t."""

    tags: list[str]
    relevance: np.ndarray


def phrases(text: str, max_ngram: int = 2, min_word_length: int = 3) -> dict[tuple[str, ...], str]:
    """Candidate phrases of one text: {normalised token tuple: surface form}.

    A phrase is a run of 1..max_ngram content words (no stopwords) with at least one word of
    ``min_word_length`` letters; tokens are singularised for matching.
    """
    tokens = words(text)
    found: dict[tuple[str, ...], str] = {}
    for n in range(1, max_ngram + 1):
        for i in range(len(tokens) - n + 1):
            window = tokens[i : i + n]
            if any(w in STOPWORDS or w.isdigit() for w in window):
                continue
            if max(len(w) for w in window) < min_word_length:
                continue
            key = tuple(singular(w.replace("'", "")) for w in window)
            found.setdefault(key, " ".join(window))
    return found


def phrase_key(tag: str) -> tuple[str, ...]:
    """The matching key of a whole tag: its tokens, singularised ("Disposable cards" -> ("disposable", "card"))."""
    return tuple(singular(w.replace("'", "")) for w in words(tag))


def _label_texts(
    texts_by_label: Sequence[Sequence[str]], titles: Sequence[str] | None, config: InductionConfig
) -> list[list[str]]:
    docs = []
    for y, texts in enumerate(texts_by_label):
        title = [titles[y]] * config.title_weight if titles is not None and titles[y] else []
        docs.append(title + [t for t in texts if t.strip()])
    return docs


def phrase_relevance(
    tag_keys: Sequence[tuple[str, ...]],
    texts_by_label: Sequence[Sequence[str]],
    titles: Sequence[str] | None = None,
    config: InductionConfig | None = None,
) -> np.ndarray:
    """[T, Y] share of each label's texts (title counted ``title_weight`` times) that mention each phrase."""
    config = config or InductionConfig()
    docs = _label_texts(texts_by_label, titles, config)
    index = {k: t for t, k in enumerate(tag_keys)}
    relevance = np.zeros((len(tag_keys), len(docs)), dtype=np.float32)
    for y, texts in enumerate(docs):
        if not texts:
            continue
        hits = Counter()
        for text in texts:
            for key in phrases(text, config.max_ngram, 1):
                if key in index:
                    hits[index[key]] += 1
        for t, c in hits.items():
            relevance[t, y] = c / len(texts)
    return relevance


def induce_tags(
    texts_by_label: Sequence[Sequence[str]],
    titles: Sequence[str] | None = None,
    config: InductionConfig | None = None,
) -> InducedTags:
    """Propose tags that tell labels apart (see the module docstring). Deterministic."""
    config = config or InductionConfig()
    docs = _label_texts(texts_by_label, titles, config)
    num_labels = len(docs)
    support: list[Counter] = []
    surface: dict[tuple[str, ...], Counter] = defaultdict(Counter)
    label_freq: Counter = Counter()
    for texts in docs:
        counts: Counter = Counter()
        for text in texts:
            for key, form in phrases(text, config.max_ngram, config.min_word_length).items():
                counts[key] += 1
                surface[key][form] += 1
        support.append(counts)
        label_freq.update(counts.keys())

    max_labels = max(2, int(config.max_label_fraction * num_labels))
    chosen: dict[tuple[str, ...], float] = {}
    for y, counts in enumerate(support):
        n = max(1, len(docs[y]))
        scored = []
        for key, c in counts.items():
            df = label_freq[key]
            if c < config.min_label_support or df > max_labels:
                continue
            score = (c / n) * np.log(num_labels / df) * (1.0 + 0.25 * (len(key) - 1))
            scored.append((score, key))
        scored.sort(key=lambda item: (-item[0], item[1]))
        for score, key in scored[: config.tags_per_label]:
            chosen[key] = max(chosen.get(key, 0.0), score)

    keys = sorted(chosen, key=lambda k: (-chosen[k], k))
    # display form: the most frequent surface spelling (ties: alphabetical)
    display = [sorted(surface[k].items(), key=lambda kv: (-kv[1], kv[0]))[0][0] for k in keys]
    relevance = phrase_relevance(keys, texts_by_label, titles, config)
    return InducedTags(tags=display, relevance=relevance)


def yes_probability(relevance: np.ndarray, floor: float = 0.05, saturation: float = 0.3) -> np.ndarray:
    """P(user says yes to 'Is it about <tag>?' | label) from relevance.

    Rises linearly from ``floor`` (tag never mentioned) to ``1 - floor`` once ``saturation`` of the
    label's texts mention the tag.
    """
    if not 0 <= floor < 0.5 or saturation <= 0:
        raise ConfigError(
            f"yes_probability needs 0 <= floor < 0.5 and saturation > 0, got floor={floor}, saturation={saturation}"
        )
    return (floor + (1 - 2 * floor) * np.minimum(1.0, np.asarray(relevance) / saturation)).astype(np.float32)
