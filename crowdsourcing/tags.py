"""Tag clean-up: normalise free-form crowd tags and merge near-duplicates.

Experts and workers write tags freely, so "International roaming", "international-roaming " and
"internatinal roaming" must become one tag. ``normalize_tag`` fixes case, punctuation and spacing;
``merge_tags`` then groups tags whose content words agree up to plural forms and word order, or whose
spelling differs by a typo, and reports every merge so that a person can check it.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

import numpy as np

from assistant.errors import ConfigError
from assistant.text.lemmas import noun_lemma
from assistant.text.tokens import STOPWORDS, words


def normalize_tag(tag: str) -> str:
    """Lowercase, unify Unicode, turn '_' and '-' into spaces, drop other punctuation at the ends, collapse spaces."""
    text = unicodedata.normalize("NFKC", str(tag)).casefold()
    text = re.sub(r"[_\-/]+", " ", text)
    text = re.sub(r"[^\w\s'&+#.]", " ", text)
    text = re.sub(r"\s+", " ", text).strip(" .'")
    return text


def tag_key(tag: str) -> str:
    """Canonical key: content words, plurals singular, sorted. Tags with equal keys are the same tag."""
    tokens = [noun_lemma(w.replace("'", "")) for w in words(normalize_tag(tag)) if w not in STOPWORDS]
    return " ".join(sorted(tokens)) or normalize_tag(tag)


@dataclass(frozen=True)
class TagMerge:
    """Tags ``merged`` were folded into ``canonical`` because of ``reason`` ('same words' or 'spelling')."""

    canonical: str
    merged: tuple[str, ...]
    reason: str


def _similar(a: str, b: str, threshold: float) -> bool:
    if abs(len(a) - len(b)) > max(2, int(0.2 * max(len(a), len(b)))):
        return False
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return (
        matcher.real_quick_ratio() >= threshold and matcher.quick_ratio() >= threshold and matcher.ratio() >= threshold
    )


def _close_pairs(keys: list[str], threshold: float) -> Iterator[tuple[int, int]]:
    """Index pairs (i < j) of ``keys`` that pass the cheap bounds of ``_similar``: lengths close enough, and
    difflib's quick_ratio (2 * shared characters / total length, an upper bound of the ratio) at least
    ``threshold``. Computed with character-count vectors, so that thousands of new tags are not compared
    pair by pair in Python (1,500 tags: 1.1 million difflib matchers before)."""
    if len(keys) < 2:
        return
    alphabet = {ch: i for i, ch in enumerate(sorted(set("".join(keys))))}
    counts = np.zeros((len(keys), len(alphabet)), dtype=np.int32)
    for row, key in enumerate(keys):
        for ch in key:
            counts[row, alphabet[ch]] += 1
    lengths = np.array([len(k) for k in keys], dtype=np.int64)
    for i in range(len(keys) - 1):
        others = slice(i + 1, len(keys))
        longest = np.maximum(lengths[others], lengths[i])
        near = np.abs(lengths[others] - lengths[i]) <= np.maximum(2, (0.2 * longest).astype(np.int64))
        shared = np.minimum(counts[others], counts[i]).sum(axis=1)
        bound = 2.0 * shared >= threshold * (lengths[others] + lengths[i]) - 1e-9
        for j in np.flatnonzero(near & bound):
            yield i, i + 1 + int(j)


def _words_agree(a: str, b: str, threshold: float = 0.85) -> bool:
    """Whether two keys differ only by typos inside words, not by whole words.

    A high whole-string ratio alone would merge "has back color green" with "has back color grey"; a spelling
    merge therefore also needs the same number of words, each differing word close to its counterpart
    ("adress" / "address") or an inflection of it ("block" / "blocked"), or the keys to differ only in
    spacing ("top up" / "topup").
    """
    if a.replace(" ", "") == b.replace(" ", ""):
        return True
    words_a, words_b = a.split(), b.split()
    only_a, only_b = sorted(set(words_a) - set(words_b)), sorted(set(words_b) - set(words_a))
    if len(words_a) != len(words_b) or len(only_a) != len(only_b):
        return False

    def close(x: str, y: str) -> bool:
        ratio = difflib.SequenceMatcher(None, x, y, autojunk=False).ratio()
        short, long = sorted((x, y), key=len)
        return ratio >= threshold or (len(short) >= 4 and long.startswith(short) and ratio >= 0.75)

    return all(close(x, y) for x, y in zip(only_a, only_b))


def merge_tags(
    tags: Iterable[str],
    weights: Mapping[str, float] | None = None,
    similarity: float = 0.9,
) -> tuple[dict[str, str], list[TagMerge]]:
    """Map every given tag to its canonical form and report the merges.

    Tags are first normalised; tags with the same ``tag_key`` merge ('same words'); then keys whose
    spelling is at least ``similarity`` alike (difflib ratio) merge ('spelling') provided both keys are
    longer than five characters (short tags like "visa" and "fiat" are too close to judge by spelling), have
    the same number of words and differ only by typos inside words ("dark green" and "dark grey" stay apart).
    The canonical form of a group is its most weighted member (``weights``, e.g. annotation counts;
    default 1 each), then the shortest, then alphabetical.

    Returns ({original tag: canonical tag}, [TagMerge, ...]).
    """
    if not 0 < similarity <= 1:
        raise ConfigError(f"similarity must be in (0, 1], got {similarity}")
    weights = weights or {}
    originals = list(dict.fromkeys(tags))
    normal = {t: normalize_tag(t) for t in originals}
    weight_of: dict[str, float] = {}
    for t in originals:
        weight_of[normal[t]] = weight_of.get(normal[t], 0.0) + float(weights.get(t, 1.0))

    # union-find over normalised tags
    parent = {n: n for n in weight_of}
    reasons: dict[str, str] = {}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a: str, b: str, reason: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[rb] = ra
            reasons.setdefault(ra, reason)
            reasons.setdefault(rb, reason)

    by_key: dict[str, str] = {}
    for n in weight_of:
        key = tag_key(n)
        if key in by_key:
            union(by_key[key], n, "same words")
        else:
            by_key[key] = n
    keys = sorted(k for k in by_key if len(k) > 5)
    for i, j in _close_pairs(keys, similarity):
        a, b = keys[i], keys[j]
        if _similar(a, b, similarity) and _words_agree(a, b):
            union(by_key[a], by_key[b], "spelling")

    groups: dict[str, list[str]] = {}
    for n in weight_of:
        groups.setdefault(find(n), []).append(n)
    originals_of: dict[str, list[str]] = {}
    for t in originals:
        originals_of.setdefault(normal[t], []).append(t)
    canonical_of: dict[str, str] = {}
    merges: list[TagMerge] = []
    for members in groups.values():
        best = sorted(members, key=lambda m: (-weight_of[m], len(m), m))[0]
        for m in members:
            canonical_of[m] = best
        originals_merged = tuple(sorted(t for m in members for t in originals_of[m] if t != best))
        if originals_merged:
            reason = "same words" if all(tag_key(m) == tag_key(best) for m in members) else "spelling"
            merges.append(TagMerge(best, originals_merged, reason))
    mapping = {t: canonical_of[normal[t]] for t in originals}
    merges.sort(key=lambda m: m.canonical)
    return mapping, [m for m in merges if m.merged]
