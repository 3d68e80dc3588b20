"""A rejection's note read as words (issue 40): what it says the person wants, and what it says they do not.

"my photos are not on facebook, they are in google drive" says two things: the photos are in Google Drive (the
person's words about what they look for: read as words added to the query, the prior recomputed on them) and
they are *not* on Facebook. Added to the query as they are, the words "not on facebook" raised the Facebook
entries, so the negated part is read apart: the entries whose own words (title and description) hold what it
negates are made less likely (``NOTE_AGAINST``, a likelihood: later answers may still bring one back).

The negation is the one the induction's parser sees (``assistant.text.grammar``: spaCy's ``neg`` relation:
"not", "n't", "never"), and "no", "without" and "except" before a noun. It covers the content words after it in
its clause (a clause ends at punctuation or at "but"); the rest of the note is what the person wants.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from assistant.text.lemmas import lemma

# P(the person writes "not X" | the entry is about X), against 1 for an entry that is not: a note is a clear
# statement, but the person's "X" may not be the entry's X (a word of two meanings)
NOTE_AGAINST = 0.1
# words that negate what follows them in their clause, besides the parser's ``neg`` relation
NEGATING_WORDS = frozenset({"not", "n't", "never", "no", "without", "except", "nor"})
CLAUSE_ENDS = frozenset({",", ";", ".", "!", "?", "but", "however", "instead"})
# what a negation can be about: a thing or a quality ("not on facebook", "no android app"); not a verb, which
# would lower every entry that says "use"
CONTENT_POS = frozenset({"NOUN", "PROPN", "ADJ", "X"})
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class NoteWords:
    """A note split into the words a person wants (``wanted``: the note without its negated parts, as words
    to add to the query) and the content words it negates (``unwanted``, as lemmas)."""

    wanted: str
    unwanted: tuple[str, ...]


def read_note(note: str) -> NoteWords:
    """The note's wanted words and the lemmas of what it negates (module docstring)."""
    note = " ".join(note.split())
    if not note:
        return NoteWords("", ())
    from assistant.text.grammar import parse

    [doc] = parse([note])
    wanted: list[str] = []
    unwanted: list[str] = []
    negated = False
    says_something = False  # a content word outside the negations: the wanted words are worth adding
    for token in doc:
        word = token.lower_
        if word in CLAUSE_ENDS or token.is_punct:
            negated = False
            wanted.append(token.text_with_ws)
            continue
        if token.dep_ == "neg" or word in NEGATING_WORDS:
            negated = True
            continue
        if not negated:
            wanted.append(token.text_with_ws)
            says_something |= token.pos_ in CONTENT_POS and not token.is_stop
        elif token.pos_ in CONTENT_POS and not token.is_stop:
            unwanted.append(lemma(word))
    text = " ".join("".join(wanted).replace(" ,", ",").split()).strip(" ,;.") if says_something else ""
    return NoteWords(text, tuple(dict.fromkeys(unwanted)))


def entry_words(name: str, text: str) -> frozenset[str]:
    """An entry's own words as lemmas (its title and its description)."""
    return frozenset(lemma(w) for w in _WORD.findall(f"{name} {text}".lower()))


def note_log_likelihood(unwanted: Sequence[str], entries: Sequence[frozenset[str]]) -> np.ndarray | None:
    """[Y] log-likelihood of "not X" for each entry: log ``NOTE_AGAINST`` where its words hold one of the negated
    lemmas, 0 elsewhere; None when no entry holds one (the note says nothing about these entries)."""
    if not unwanted:
        return None
    against = np.array([any(word in words for word in unwanted) for words in entries], dtype=bool)
    if not against.any() or against.all():
        return None
    return np.where(against, np.log(NOTE_AGAINST), 0.0)
