"""Lemmas and word classes of English words, from lemminflect's lexicon (no hand-written stemmer).

Tag induction, tag clean-up and the mention detector match words by lemma ("cards" = "card", "archived"
= "archive", "topping up" = "top up"); induction also needs to know which words can be verbs (actions) and
nouns (objects). lemminflect gives, for a known word, its lemma for each word class it can belong to; a word
it does not know (product names: "gmail", "trello") is its own lemma, with a plural -s removed by
lemminflect's rules for unknown nouns ("docs" -> "doc").
"""

from __future__ import annotations

import importlib.abc
import sys
import threading
from functools import lru_cache
from types import ModuleType

# the order in which a word's classes give its one lemma for matching: "settings" -> "setting" (noun),
# "archived" -> "archive" (verb)
CLASS_ORDER = ("NOUN", "VERB", "ADJ", "ADV", "AUX")


@lru_cache(maxsize=1)
def _lemminflect() -> ModuleType:
    """lemminflect, imported on first use and without spaCy (issue 33).

    Its lexicon and rules (``lemminflect.core``) need nothing but numpy, but its ``__init__`` imports spaCy, when
    it can, only to register ``Token._.lemma`` and ``Token._.inflect``, which Clarify never calls (it looks words
    up directly); spaCy imports thinc and torch, seconds a conversation's first question must not wait for. So
    when spaCy is not loaded yet, lemminflect is imported while spaCy reads as absent to this thread: the same
    lexicon, the same lemmas. A spaCy imported later (induction's parser) works as before."""
    if "spacy" in sys.modules:
        import lemminflect

        return lemminflect
    hide = _HideSpacy(threading.get_ident())
    sys.meta_path.insert(0, hide)
    try:
        import lemminflect
    finally:
        sys.meta_path.remove(hide)
    return lemminflect


class _HideSpacy(importlib.abc.MetaPathFinder):
    """An import finder under which ``import spacy`` fails with ImportError, in one thread only (another
    thread importing spaCy at the same moment, e.g. a GUI worker, gets it as usual)."""

    def __init__(self, thread: int) -> None:
        self.thread = thread

    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] == "spacy" and threading.get_ident() == self.thread:
            raise ModuleNotFoundError(f"{fullname} hidden while lemminflect loads", name=fullname)
        return None  # anything else: the next finder


@lru_cache(maxsize=65536)
def _known(word: str) -> dict[str, tuple[str, ...]]:
    return dict(_lemminflect().getAllLemmas(word))


def word_classes(word: str) -> frozenset[str]:
    """Universal POS classes the lexicon allows for ``word`` (lowercase); empty for unknown words."""
    return frozenset(_known(word))


def is_known(word: str) -> bool:
    """Whether the lexicon knows ``word`` (an ordinary English word rather than a name)."""
    return bool(_known(word))


@lru_cache(maxsize=65536)
def lemma(word: str) -> str:
    """One lemma of a lowercase word for matching (see CLASS_ORDER); unknown words lose a plural -s."""
    found = _known(word)
    for upos in CLASS_ORDER:
        if upos in found:
            return found[upos][0]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")) and word.isalpha():
        guessed = _lemminflect().getAllLemmasOOV(word, "NOUN").get("NOUN")
        if guessed:
            return guessed[0]
    return word


@lru_cache(maxsize=65536)
def noun_lemma(word: str) -> str:
    """The singular of a word that can be a noun ("cards" -> "card", "fees" -> "fee"), else the word itself:
    merges plural forms without merging "blocked" with "block" (tag clean-up compares the rest by spelling)."""
    found = _known(word)
    if "NOUN" in found:
        return found["NOUN"][0]
    return lemma(word) if not found else word


@lru_cache(maxsize=65536)
def lemmas(word: str) -> frozenset[str]:
    """Every lemma a word may stand for (one per class, plus ``lemma``): "topping" -> {"topping", "top"}."""
    found = _known(word)
    return frozenset({lemma(word), *(found[upos][0] for upos in CLASS_ORDER if upos in found)})


def lemma_of(word: str, upos: str) -> str | None:
    """The lemma of ``word`` as a word of class ``upos`` ("easiest", "ADJ" -> "easy"), None if it is none."""
    found = _known(word)
    return found[upos][0] if upos in found else None


def verb_lemma(word: str) -> str | None:
    """The verb lemma of ``word`` when it can be a verb ("deleted" -> "delete"), else None."""
    found = _known(word)
    return found["VERB"][0] if "VERB" in found else None


def can_be_noun(word: str) -> bool:
    """Whether ``word`` can be a noun (unknown words count: they are mostly names)."""
    found = _known(word)
    return not found or "NOUN" in found or "PROPN" in found


def phrase_key(words: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """The matching key of a phrase: the lemma of each of its (lowercase) words."""
    return tuple(lemma(w) for w in words)


@lru_cache(maxsize=65536)
def inflect(word: str, tag: str) -> str:
    """``word`` inflected for a Penn tag ("VBG": "delete" -> "deleting", "NNS": "card" -> "cards"); unchanged
    where the lexicon has no form."""
    forms = _lemminflect().getInflection(word, tag=tag)
    return forms[0] if forms else word


@lru_cache(maxsize=65536)
def plural_forms(word: str) -> frozenset[str]:
    """Every plural the lexicon gives a noun ("person" -> {"persons", "people"}); empty when it has none."""
    return frozenset(_lemminflect().getAllInflections(word, upos="NOUN").get("NNS", ()))
