"""Phrases of a text by kind (product, action, object, attribute), and the matching of phrases in texts.

Induced questions (assistant.induction.induction) are about phrases a person recognises at once:

- *product*: a name written with capitals ("Gmail", "Google Docs", "Apple Pay"), found by ``find_products``
  over a whole domain and then matched in any case;
- *action*: what the person wants to do: a verb where a request puts it ("how do I *delete*", "I want to
  *top up*", a title that starts "*Export* Gmail messages"), as its lemma with a following particle;
- *object*: a noun phrase of up to three content words ending in a noun ("account", "exchange rate");
- *attribute*: a single adjective that cannot be a noun and names a state or a rare property ("pending",
  "blocked", "urgent"; not "large", "easiest").

Words are matched by lemma (assistant.text.lemmas): ``text_keys`` gives every phrase key a text contains, so
that "topping up my cards" contains ("top", "up") and ("card",). Tags of induced questions are written
"kind::value" (``make_tag``, ``split_tag``).
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from assistant.text.lemmas import can_be_noun, lemma, lemma_of, lemmas, verb_lemma, word_classes
from assistant.text.tokens import STOPWORDS

TAG_KINDS: tuple[str, ...] = ("product", "action", "object", "attribute")
KIND_SEPARATOR = "::"
GROUP_SEPARATOR = "@"
# words after which a request names its verb: "how do I delete", "how to delete", "can you export"
VERB_SLOT = frozenset({"to", "i", "you", "we", "can", "please"})
# particles that belong to the verb before them: "back up", "top up", "find out", "turn off"; "in", "on" and
# "over" only where no noun phrase follows ("log in", "log in to"; not "post on Facebook", "click on the link")
PARTICLES = frozenset({"up", "out", "off", "back", "down", "in", "on", "over"})
PREPOSITIONS = frozenset({"in", "on", "over"})
DETERMINERS = frozenset("a an the my your our their his her its this that these those all some any me it them".split())  # noqa: SIM905
# verbs too general to be an answer to "What do you want to do?"
LIGHT_VERBS = frozenset(
    {"be", "have", "do", "get", "make", "want", "need", "like", "know", "try", "use", "let", "think", "wonder", "hear"}
    | {"ensure", "determine", "happen", "seem"}
)

_TOKEN = re.compile(r"[A-Za-z0-9]+(?:'[A-Za-z]+)?|[.!?:;\"()\[\]]")
_BREAK = frozenset('.!?:;"()[]')


def facet_tag(kind: str, within: str | None = None) -> str:
    """The tag of an induced facet question: its kind ("action"), or kind@group for a facet within a group of
    labels ("action@Gmail": "What do you want to do in Gmail?")."""
    return kind if within is None else f"{kind}{GROUP_SEPARATOR}{within}"


def split_facet_tag(tag: str) -> tuple[str, str | None]:
    """("action", "Gmail") for "action@Gmail"; ("action", None) for "action"."""
    kind, sep, within = tag.partition(GROUP_SEPARATOR)
    return (kind, within) if sep and within else (tag, None)


def make_tag(kind: str, value: str) -> str:
    """The tag of an induced binary question: "product::Gmail"."""
    return f"{kind}{KIND_SEPARATOR}{value}"


def split_tag(tag: str) -> tuple[str | None, str]:
    """("product", "Gmail") for "product::Gmail"; (None, tag) for a tag without a known kind."""
    kind, sep, value = tag.partition(KIND_SEPARATOR)
    return (kind, value) if sep and kind in TAG_KINDS else (None, tag)


@dataclass(frozen=True)
class Token:
    """A word of a text: as written, lowercase, and whether it starts a sentence."""

    text: str
    lower: str
    initial: bool

    @property
    def capitalised(self) -> bool:
        """Written with a capital that is not just the sentence's ("Gmail", "YouTube", "ATM")."""
        return self.text[:1].isupper() and not self.text.isdigit()


def tokens(text: str) -> list[Token]:
    """The words of ``text`` with their case and sentence-initial flag (punctuation starts a new sentence)."""
    out: list[Token] = []
    initial = True
    for match in _TOKEN.finditer(unicodedata.normalize("NFKC", text)):
        word = match.group(0)
        if word in _BREAK:
            initial = True
            continue
        out.append(Token(word, word.casefold().replace("'", ""), initial))
        initial = False
    return out


def words(text: str) -> list[str]:
    """Lowercase words (apostrophes dropped), as ``tokens`` reads them."""
    return [t.lower for t in tokens(text)]


def text_keys(text: str, max_ngram: int = 3, max_variants: int = 16) -> set[tuple[str, ...]]:
    """Every phrase key of up to ``max_ngram`` words the text contains, each word by any of its lemmas."""
    alternatives = [sorted(lemmas(w)) for w in words(text)]
    found: set[tuple[str, ...]] = set()
    for n in range(1, max_ngram + 1):
        for i in range(len(alternatives) - n + 1):
            window = alternatives[i : i + n]
            for variant in itertools.islice(itertools.product(*window), max_variants):
                found.add(variant)
    return found


@dataclass(frozen=True)
class Phrase:
    """A candidate phrase of one text: its kind, matching key (lemmas) and display form."""

    kind: str
    key: tuple[str, ...]
    display: str


def _content(word: str) -> bool:
    return word not in STOPWORDS and not word.isdigit() and len(word) > 1


def _product_spans(lower: list[str], products: dict[tuple[str, ...], str]) -> list[tuple[int, int]]:
    """Longest matches of product keys, left to right."""
    spans, i = [], 0
    longest = max((len(k) for k in products), default=0)
    while i < len(lower):
        for n in range(min(longest, len(lower) - i), 0, -1):
            if tuple(lemma(w) for w in lower[i : i + n]) in products:
                spans.append((i, i + n))
                i += n
                break
        else:
            i += 1
    return spans


def _imperative(token: Token, verb: str, following: list[str]) -> bool:
    """A sentence that starts with a verb: "Export Gmail messages", "Downloading transcripts", "Activate my
    card"; a word that can also be a noun counts only before a determiner ("Card arrival" is no request)."""
    if not token.initial or not (token.lower == verb or token.lower.endswith("ing")):
        return False
    return (
        not can_be_noun(token.lower) or token.lower.endswith("ing") or bool(following and following[0] in DETERMINERS)
    )


def _ends_phrase(lower: list[str], i: int) -> bool:
    """Whether the word at ``i`` ends what the verb says: the text ends, or a word that starts no noun phrase
    follows ("log in to", "sign in with"; not "in Gmail", "on the link")."""
    return i + 1 >= len(lower) or (lower[i + 1] in STOPWORDS and lower[i + 1] not in DETERMINERS)


# Zipf frequency (wordfreq: log10 of uses per billion words) from which an adjective is an everyday word
EVERYDAY_ZIPF = 4.5


def _is_attribute(word: str) -> bool:
    """A state or property a person can confirm: an adjective that cannot be a noun and is either a
    participle ("pending", "blocked", "missing") or not an everyday word ("urgent", "contactless"); not a
    comparative or superlative ("longer", "easiest": of what?) nor "large", "similar", "specific"."""
    classes = word_classes(word)
    if "ADJ" not in classes or "NOUN" in classes:
        return False
    if lemma_of(word, "ADJ") != word:  # inflected: "easiest" -> "easy"
        return False
    participle = "VERB" in classes and lemma_of(word, "VERB") != word
    if participle:
        return True
    from wordfreq import zipf_frequency  # here: induction needs it, a conversation imports this module (0.15 s)

    return zipf_frequency(word, "en") < EVERYDAY_ZIPF


def text_phrases(text: str, products: dict[tuple[str, ...], str] | None = None, max_ngram: int = 3) -> list[Phrase]:
    """The typed candidate phrases of one text (see the module docstring); ``products``: key -> display name."""
    toks = tokens(text)
    lower = [t.lower for t in toks]
    used = [False] * len(toks)
    found: list[Phrase] = []
    for start, end in _product_spans(lower, products or {}):
        key = tuple(lemma(w) for w in lower[start:end])
        found.append(Phrase("product", key, (products or {})[key]))
        used[start:end] = [True] * (end - start)
    for i, token in enumerate(toks):
        if used[i]:
            continue
        before = [w for w in lower[max(0, i - 2) : i] if not w.endswith("ly")]  # "I accidentally deleted"
        verb = verb_lemma(token.lower)
        if verb is None or not (
            (bool(before) and before[-1] in VERB_SLOT) or _imperative(token, verb, lower[i + 1 : i + 2])
        ):
            continue
        if verb in LIGHT_VERBS or token.lower in STOPWORDS:
            continue
        used[i] = True
        # a particle right after the verb, or after "it"/"them" ("back it up")
        particle = next((j for j in (i + 1, i + 2) if j < len(toks) and lower[j] in PARTICLES and not used[j]), None)
        if particle is not None and lower[particle] in PREPOSITIONS and not _ends_phrase(lower, particle):
            particle = None
        if particle is not None and (particle == i + 1 or lower[i + 1] in ("it", "them")):
            used[particle] = True
            found.append(Phrase("action", (verb, lower[particle]), f"{verb} {lower[particle]}"))
        else:
            found.append(Phrase("action", (verb,), verb))
    runs: list[list[int]] = [[]]
    for i, w in enumerate(lower):
        if used[i] or not _content(w):
            runs.append([])
        else:
            runs[-1].append(i)
    for run in runs:
        for n in range(1, max_ngram + 1):
            for s in range(len(run) - n + 1):
                window = [lower[j] for j in run[s : s + n]]
                if max(len(w) for w in window) < 3:
                    continue
                key = tuple(lemma(w) for w in window)
                if n == 1 and _is_attribute(window[0]):
                    found.append(Phrase("attribute", key, window[0]))
                elif can_be_noun(window[-1]):
                    found.append(Phrase("object", key, " ".join(window)))
    return found


def phrases_of(texts: Iterable[str], products: dict[tuple[str, ...], str] | None = None) -> list[list[Phrase]]:
    """``text_phrases`` of every text."""
    return [text_phrases(t, products) for t in texts]


def contains_phrase(longer: tuple[str, ...], shorter: tuple[str, ...]) -> bool:
    """Whether the phrase key ``shorter`` occurs in ``longer`` (("google", "doc") contains ("google",))."""
    n = len(shorter)
    return any(longer[i : i + n] == shorter for i in range(len(longer) - n + 1))
