"""Vague first queries: what people really type before they know how to say what they need.

The crowd's held-out queries are paraphrases written while looking at the answer, so they usually name it
("how do I cross out text in Gmail"). People's first queries are shorter and rarely do ("my email
disappeared"). The simulator therefore draws each first query from a documented mix (``VagueQueryMix``,
proportions as a parameter) of the held-out crowd query and vague versions of it:

- ``crowd``: the crowd query as it is;
- ``window``: 1 to 4 consecutive words of it ("email disappeared");
- ``keywords``: up to three of its content words, stopwords dropped ("email archive");
- ``unnamed``: the query without the words that name the label (the content words of the label's name:
  "how do I cross out text in" for the FAQ "Strikethrough in Gmail");
- ``tags``: a generic rewrite from one or two of the label's tags, the way a person describes it by its
  properties ("red wing small" for a cardinal; the tags come from the agent's annotations, not queries).

Where a transformation leaves nothing (a one-word query has no shorter window, a query made only of the
label's name), the next vaguer kind that gives something is used and recorded as such.

Which split feeds what: ``TRAINING_SPLIT`` (dev) builds the queries that train or tune anything (the stop
policy, the prior's calibration, the threshold baseline, the coverage rule); the test split only the
evaluation's episodes. ``training_queries`` is the one door for the former and never reads test queries.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from assistant.errors import ConfigError
from assistant.simulation.episodes import EpisodeSpec
from assistant.store import Domain, Question
from assistant.store.domain import SOMETHING_ELSE
from assistant.text.lemmas import noun_lemma
from assistant.text.tokens import STOPWORDS, words

QUERY_KINDS: tuple[str, ...] = ("crowd", "window", "keywords", "unnamed", "tags")
# what can be made of a query that no label answers (out of scope): no label's name to drop, no tags
LABEL_FREE_KINDS: tuple[str, ...] = ("crowd", "window", "keywords")
TRAINING_SPLIT = "dev"
MAX_WINDOW_WORDS = 4
MAX_KEYWORDS = 3
# A tag that at least this share of a label's answers say "yes" to describes the label.
TAG_MIN_PROBABILITY = 0.5
TAGS_PER_LABEL = 6
# Parts of a bird attribute's group name that say what kind of attribute it is, not what it is about.
_ATTRIBUTE_KINDS = frozenset({"color", "pattern", "shape", "size", "length", "primary"})


@dataclass(frozen=True)
class VagueQueryMix:
    """Proportions of each kind of first query (normalised; see the module docstring for the kinds).

    The default is one crowd query in five: most first queries are vague, some are already precise.
    """

    proportions: dict[str, float] = field(
        default_factory=lambda: {"crowd": 0.2, "window": 0.3, "keywords": 0.15, "unnamed": 0.2, "tags": 0.15}
    )

    def __post_init__(self) -> None:
        unknown = sorted(set(self.proportions) - set(QUERY_KINDS))
        if unknown:
            raise ConfigError(f"unknown query kind(s) {', '.join(unknown)}: use {', '.join(QUERY_KINDS)}")
        values = np.array(list(self.proportions.values()), dtype=np.float64)
        if values.size == 0 or np.any(values < 0) or not np.isfinite(values).all() or values.sum() <= 0:
            raise ConfigError("query mix proportions must be finite, non-negative and not all zero")

    @classmethod
    def crowd_only(cls) -> VagueQueryMix:
        return cls({"crowd": 1.0})

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(k for k in QUERY_KINDS if self.proportions.get(k, 0.0) > 0)

    @property
    def weights(self) -> np.ndarray:
        w = np.array([self.proportions[k] for k in self.kinds], dtype=np.float64)
        return w / w.sum()

    def describe(self) -> str:
        return ", ".join(f"{k} {w:.0%}" for k, w in zip(self.kinds, self.weights))


def tag_phrase(question: Question, option: int) -> str:
    """How a person would say "answer ``option`` to ``question``" in a query: an induced phrase itself
    ("product::Gmail" -> "gmail"), or a bird attribute in words ("has_wing_color::red" -> "red wing", bill
    shape "curved" -> "curved bill"); "" for "no" and "something else", which describe nothing."""
    value = question.options[option]
    if question.kind == "binary":
        if question.options[option] != "yes":
            return ""
        tag = question.tag
        if "::" not in tag:
            return tag.replace("_", " ")
        group, value = tag.split("::", 1)
    else:
        group = question.group
    if value == SOMETHING_ELSE:
        return ""
    value = re.sub(r"\s*\(.*?\)", "", value.replace("_", " ")).strip()
    if question.induced:  # "kind::phrase": the phrase is what people say
        return value.casefold()
    part = [w for w in group.removeprefix("has_").split("_") if w not in _ATTRIBUTE_KINDS]
    return " ".join([value, *part]).strip()


class VagueQueries:
    """Turns crowd queries of a domain into vague first queries (``make``), one kind at a time.

    ``answers`` [Q, R, Y] are the answer distributions the ``tags`` kind describes labels by (default: the
    domain's smoothed annotations, i.e. the agent's knowledge, never a test query)."""

    def __init__(self, domain: Domain, answers: np.ndarray | None = None) -> None:
        self.domain = domain
        answers = domain.p_hat(alpha=0.5) if answers is None else np.asarray(answers)
        self._tags: list[list[str]] = []
        for y in range(domain.num_labels):
            flat = answers[:, :, y]
            order = np.argsort(-flat, axis=None, kind="stable")
            found: list[str] = []
            for index in order:
                q, r = np.unravel_index(index, flat.shape)
                if flat[q, r] < TAG_MIN_PROBABILITY or len(found) >= TAGS_PER_LABEL:
                    break
                phrase = tag_phrase(domain.questions[q], int(r)) if r < len(domain.questions[q].options) else ""
                if phrase and phrase not in found:
                    found.append(phrase)
            self._tags.append(found)
        self._name_words = [
            {noun_lemma(w) for w in words(label.name) if w not in STOPWORDS and len(w) > 2} for label in domain.labels
        ]

    def tags(self, label: int) -> list[str]:
        """The phrases that describe ``label`` (most certain first)."""
        return list(self._tags[label])

    def make(self, query: str, label: int | None, kind: str, rng: np.random.Generator) -> tuple[str, str]:
        """(vague query, the kind it really is) for ``query`` of ``label``: ``kind`` when that gives
        something, else the next vaguer kind that does (always ends with a non-empty query). ``label`` None
        (a query no label answers) allows only the kinds that need no label (``LABEL_FREE_KINDS``)."""
        if kind not in QUERY_KINDS or (label is None and kind not in LABEL_FREE_KINDS):
            allowed = QUERY_KINDS if label is not None else LABEL_FREE_KINDS
            raise ConfigError(f"unknown query kind {kind!r}: use one of {', '.join(allowed)}")
        for attempt in QUERY_KINDS[QUERY_KINDS.index(kind) :] + QUERY_KINDS[: QUERY_KINDS.index(kind)]:
            if label is None and attempt not in LABEL_FREE_KINDS:
                continue
            text = self._make(query, label, attempt, rng)
            if text.strip():
                return text, attempt
        return query, "crowd"

    def _make(self, query: str, label: int | None, kind: str, rng: np.random.Generator) -> str:
        tokens = query.split()
        if kind == "crowd":
            return query
        if kind == "window":
            if len(tokens) <= 1:
                return ""
            size = int(rng.integers(1, min(MAX_WINDOW_WORDS, len(tokens) - 1) + 1))
            start = int(rng.integers(0, len(tokens) - size + 1))
            return " ".join(tokens[start : start + size])
        if kind == "keywords":
            content = [w for w in words(query) if w not in STOPWORDS]
            if len(content) <= 1:
                return ""
            keep = np.sort(rng.choice(len(content), size=min(MAX_KEYWORDS, len(content) - 1), replace=False))
            return " ".join(content[i] for i in keep)
        if label is None:  # never reached: ``make`` asks only the label-free kinds above without a label
            return ""
        if kind == "unnamed":
            naming = self._name_words[label]
            kept = [t for t in tokens if not any(noun_lemma(w) in naming for w in words(t))]
            if len(kept) == len(tokens) or not any(w not in STOPWORDS for t in kept for w in words(t)):
                return ""
            return " ".join(kept)
        # tags
        phrases = self._tags[label]
        if not phrases:
            return ""
        count = min(len(phrases), int(rng.integers(1, 3)))
        chosen = rng.choice(len(phrases), size=count, replace=False)
        return " ".join(phrases[i] for i in sorted(chosen))


def vague_episodes(
    domain: Domain,
    episodes: Sequence[EpisodeSpec],
    mix: VagueQueryMix | None = None,
    seed: int = 0,
    answers: np.ndarray | None = None,
) -> list[EpisodeSpec]:
    """The same episodes (targets, answer seeds) with first queries drawn from ``mix``: each keeps its
    target and seed, so a crowd and a vague evaluation meet the same simulated users."""
    mix = mix or VagueQueryMix()
    maker = VagueQueries(domain, answers)
    rng = np.random.default_rng(seed)
    kinds = rng.choice(len(mix.kinds), size=len(episodes), p=mix.weights)
    out = []
    for spec, k in zip(episodes, kinds):
        text, kind = maker.make(spec.query, spec.target, mix.kinds[int(k)], rng)
        out.append(EpisodeSpec(spec.target, text, spec.seed, kind))
    return out


def training_queries(
    domain: Domain, mix: VagueQueryMix | None = None, seed: int = 0, copies: int = 1
) -> tuple[list[str], np.ndarray, list[str]]:
    """(texts, labels, kinds): ``copies`` vague versions of every dev query (``TRAINING_SPLIT``), for
    whatever is trained or tuned on the mix. Reads no other split."""
    texts, labels = domain.queries(TRAINING_SPLIT)
    specs = [EpisodeSpec(int(label), text, 0) for _ in range(copies) for text, label in zip(texts, labels)]
    made = vague_episodes(domain, specs, mix, seed)
    return [e.query for e in made], np.array([e.target for e in made], dtype=np.int64), [e.kind for e in made]
