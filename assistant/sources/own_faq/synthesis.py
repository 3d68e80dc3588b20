"""Queries synthesized from a FAQ's texts: what a person might type for an entry, when no one has typed yet.

A desk's FAQ has no crowd queries. The models that bundled domains train or tune on queries (the text
prior, the STOP/ASK policy, the coverage rule, the out-of-scope hypothesis) get these instead. They are
built from the parts of an entry a person *talks about*, not the steps of its answer:

- ``title``: the entry's title as written ("How do I renew a book online?");
- ``core``: the title without its question words ("renew a book online"), the way people type;
- ``description``: each sentence of the description (written from the person's side);
- ``situation``: the condition clauses of the answer ("If your card has expired, ..." -> "my card has
  expired"), put in the first person: an answer's "if ..." says what state the person is in;
- ``message``: short quoted text in the answer ("Access denied", "Renew all"): what the person sees on
  the screen;
- ``mention``: a product or object the answer names but the title does not, with a word of the title
  ("eduroam certificate"): what the person sees, in keywords.

The answer's instructions ("Click Renew", "Go to My loans") are left out: they are what the person does
*not* know yet. The vague-query mix (assistant.simulation.queries: windows, keywords, without the label's
name, tag rewrites) is then applied to these wherever queries are drawn for training and tuning.

Each entry's queries are shuffled with a seed of its key and split three ways: ``train`` (what the agent
learns from: the prior, the induced questions), ``dev`` (what it is tuned on) and ``held`` (never stored
as queries: only the simulated user's answers are computed from them). Real test queries, when a desk
has some, are stored apart and never mixed with these (they keep their own source).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from assistant.sources.adapters import label_rng
from assistant.sources.own_faq.entries import FaqEntry, clean
from assistant.text.lemmas import is_known
from assistant.text.phrases import text_phrases, tokens, words
from assistant.text.tokens import STOPWORDS

SYNTH_KINDS = ("title", "core", "description", "situation", "message", "mention")
SPLIT_SHARES = {"train": 0.5, "dev": 0.25, "held": 0.25}
MAX_PER_KIND = {"description": 8, "situation": 4, "message": 2, "mention": 4}
CLAUSE_WORDS = (2, 12)  # a condition clause of fewer or more words says nothing a person would type
MESSAGE_WORDS = (1, 8)
CONDITIONS = ("if", "when", "whenever", "in case", "once", "after")
# the question scaffolding people leave out when they type ("how do i", "can you", "what is the")
_SCAFFOLD = frozenset(
    [
        "how",
        "what",
        "why",
        "where",
        "when",
        "who",
        "which",
        "whom",
        "whose",
        "can",
        "could",
        "do",
        "does",
        "did",
        "is",
        "are",
        "was",
        "were",
        "am",
        "will",
        "would",
        "should",
        "shall",
        "may",
        "might",
        "must",
        "i",
        "im",
        "ive",
        "we",
        "you",
        "my",
        "our",
        "your",
        "a",
        "an",
        "the",
        "to",
        "there",
        "it",
        "its",
        "please",
        "is",
        "isnt",
        "cant",
        "dont",
        "doesnt",
        "wont",
    ]
)
# "you" is "I" where it is the subject (the clause's start, after a conjunction), else "me" ("it asks you")
_SUBJECT_BEFORE = frozenset({"and", "or", "but", "if", "when", "that", "because", "so", "then", "once", "after"})
_FIRST_PERSON = {
    "you": "I",
    "your": "my",
    "yours": "mine",
    "yourself": "myself",
    "you're": "I'm",
    "youre": "I'm",
    "you've": "I've",
    "you'll": "I'll",
    "you'd": "I'd",
}
_AFTER_I = {"are": "am", "were": "was", "aren't": "am not", "weren't": "wasn't"}
_QUOTES = (('"', '"'), ("“", "”"), ("‘", "’"), ("«", "»"))


@dataclass(frozen=True)
class SynthesizedQuery:
    """One synthesized query of an entry: its text, the part of the texts it came from and its split."""

    key: str
    text: str
    kind: str
    split: str


@lru_cache(maxsize=1)
def _segmenter():
    """One pysbd segmenter for every text (issue 33: one per call was rebuilt ~5,000 times for 1,000 entries)."""
    import pysbd

    return pysbd.Segmenter(language="en", clean=False)


def sentences(text: str) -> list[str]:
    """The sentences of a text (pysbd; a line break always ends one)."""
    segmenter = _segmenter()
    out = []
    for line in text.split("\n"):
        line = line.strip().removeprefix("- ").strip()
        if line:
            out += [clean(s) for s in segmenter.segment(line) if clean(s)]
    return out


def title_core(title: str) -> str:
    """The title without its leading question words and final punctuation ("How do I renew a book?" ->
    "renew a book"); the title itself when nothing would be left."""
    parts = title.rstrip(" ?!.:").split()
    start = 0
    while start < len(parts) and "".join(words(parts[start])) in _SCAFFOLD:
        start += 1
    core = " ".join(parts[start:])
    return core if len(words(core)) >= 1 and start > 0 else ""


def first_person(text: str) -> str:
    """ "your card has expired" -> "my card has expired" (the answer speaks to the person; the person says I)."""
    out: list[str] = []
    for raw in text.split():
        core = raw.strip(",.;:!?()")
        folded = core.casefold().replace("’", "'")
        swapped: str | None
        if out and out[-1] == "I" and folded in _AFTER_I:
            swapped = _AFTER_I[folded]
        elif folded == "you" and out and out[-1].casefold() not in _SUBJECT_BEFORE:
            swapped = "me"
        else:
            swapped = _FIRST_PERSON.get(folded)
        out.append(raw.replace(core, swapped) if swapped and core else raw)
    return " ".join(out)


def condition_clauses(sentence: str) -> list[str]:
    """The clauses of a sentence that say in what situation it applies ("If X, do Y" and "Do Y if X" -> X)."""
    lower = sentence.casefold()
    found = []
    for word in CONDITIONS:
        at = 0 if lower.startswith(word + " ") else lower.find(f" {word} ") + 1
        if at <= 0 and not lower.startswith(word + " "):
            continue
        rest = sentence[at + len(word) :].strip()
        for stop in (",", ";", ":", " then ", "."):
            if stop in rest:
                rest = rest.split(stop, 1)[0]
        size = len(rest.split())
        if CLAUSE_WORDS[0] <= size <= CLAUSE_WORDS[1]:
            found.append(first_person(rest.strip()))
    return found


def quoted(text: str) -> list[str]:
    """Short quoted strings of a text (messages and button labels a person sees)."""
    found = []
    for left, right in _QUOTES:
        pieces = text.split(left)
        if left == right:
            candidates = pieces[1::2]
        else:
            candidates = [p.split(right, 1)[0] for p in pieces[1:] if right in p]
        for candidate in candidates:
            size = len(candidate.split())
            if MESSAGE_WORDS[0] <= size <= MESSAGE_WORDS[1] and any(w not in STOPWORDS for w in words(candidate)):
                found.append(clean(candidate))
    return found


def answer_phrases(entry: FaqEntry) -> Counter:
    """{(key, display): sentences} of the products and objects (one or two ordinary words, no digits) that the
    answers name and the title does not: what the person may see or have at hand."""
    in_title = {p.key for p in text_phrases(entry.title)}
    found: Counter = Counter()
    shown: dict[tuple[str, ...], str] = {}
    for answer in entry.answers:
        for sentence in sentences(answer):
            if not _prose(sentence):
                continue
            keys = set()
            for phrase in text_phrases(sentence, max_ngram=2):
                plain = all(w.isalpha() and (is_known(w) or phrase.kind == "product") for w in phrase.key)
                if phrase.kind in ("object", "product") and plain and phrase.key not in in_title:
                    keys.add(phrase.key)
                    shown.setdefault(phrase.key, phrase.display)
            found.update(keys)
    return Counter({(key, shown[key]): n for key, n in found.items()})


def _prose(text: str) -> bool:
    """Whether a text reads as words, not code or a URL (most of its tokens are alphabetic words)."""
    parts = text.split()
    if not parts or any(c in text for c in "{}=<>;$\\"):
        return False
    return sum(p.strip(",.:!?()'\"").isalpha() for p in parts) >= 0.7 * len(parts)


def candidate_queries(
    entry: FaqEntry, phrases: Counter, rarity: Counter, num_entries: int, rng: np.random.Generator
) -> list[tuple[str, str]]:
    """(text, kind) of every query synthesized for ``entry`` (module docstring), without repeats.
    ``phrases``: its answer phrases (``answer_phrases``); ``rarity``: in how many entries each answer phrase
    occurs: a phrase the entry's answers repeat and few other entries name says most (tf x idf)."""
    out: list[tuple[str, str]] = [(entry.title, "title")]
    core = title_core(entry.title)
    if core:
        out.append((core, "core"))
    for sentence in sentences(entry.description)[: MAX_PER_KIND["description"]]:
        out.append((sentence, "description"))
    clauses, messages = [], []
    for answer in entry.answers:
        for sentence in sentences(answer):
            clauses += [c for c in condition_clauses(sentence) if _prose(c)]
        messages += [m for m in quoted(answer) if _prose(m) and len(m.split()) >= 2]
    out += [(c, "situation") for c in list(dict.fromkeys(clauses))[: MAX_PER_KIND["situation"]]]
    out += [(m, "message") for m in list(dict.fromkeys(messages))[: MAX_PER_KIND["message"]]]
    title_words = [w for w in words(core or entry.title) if w not in STOPWORDS and len(w) > 2]
    scored = sorted(
        ((n * np.log((1 + num_entries) / (1 + rarity[key])), key, display) for (key, display), n in phrases.items()),
        key=lambda item: (-item[0], item[2]),
    )
    for _score, key, display in scored[: MAX_PER_KIND["mention"]]:
        word = title_words[int(rng.integers(len(title_words)))] if title_words else ""
        text = display if len(key) > 1 or not word or word in words(display) else f"{word} {display}"
        out.append((text, "mention"))
    seen: set[str] = set()
    unique = []
    for text, kind in out:
        parts = text.split()
        text = " ".join(w for i, w in enumerate(parts) if i == 0 or w.casefold() != parts[i - 1].casefold())
        form = " ".join(t.lower for t in tokens(text))
        if form and form not in seen:
            seen.add(form)
            unique.append((text, kind))
    return unique


def split_sizes(n: int) -> dict[str, int]:
    """How many of an entry's ``n`` shuffled queries go to each split: at least one dev query from 2 on and
    one held query from 3 on, the title always in train."""
    held = max(1, round(SPLIT_SHARES["held"] * n)) if n >= 3 else 0
    dev = max(1, round(SPLIT_SHARES["dev"] * n)) if n >= 2 else 0
    return {"train": n - dev - held, "dev": dev, "held": held}


def synthesize(entries: Sequence[FaqEntry]) -> list[SynthesizedQuery]:
    """Every entry's synthesized queries with their splits (module docstring). Deterministic: an entry's
    queries depend only on its own texts, its key and how rare its answer phrases are in the FAQ."""
    phrases = [answer_phrases(entry) for entry in entries]
    rarity: Counter = Counter()
    for found in phrases:
        rarity.update({key for key, _ in found})
    out: list[SynthesizedQuery] = []
    for entry, own in zip(entries, phrases):
        rng = label_rng(entry.key, "synthesized")
        queries = candidate_queries(entry, own, rarity, len(entries), rng)
        title, rest = queries[0], queries[1:]
        rest = [rest[i] for i in rng.permutation(len(rest))]
        sizes = split_sizes(len(queries))
        splits = ["train"] * (sizes["train"] - 1) + ["dev"] * sizes["dev"] + ["held"] * sizes["held"]
        out.append(SynthesizedQuery(entry.key, title[0], title[1], "train"))
        out += [SynthesizedQuery(entry.key, text, kind, split) for (text, kind), split in zip(rest, splits)]
    return out
