"""The wording gate of induced questions: which phrases may become a question or a facet value, and how.

Question induction (assistant.induction.induction) finds candidate phrases with a word list and lemmas; this gate
checks each with spaCy's tagger and parser (assistant.text.grammar) before it is asked:

- an *object* ("Is it about the {phrase}?", a value of "What is it about?") must be a noun phrase with a
  noun head in its frame *and* mostly in the domain's own texts (``NOUN_SHARE``): "the private", "the
  long", "the inside", "the auto", "the continue loading", "the display mail" (a verb in "display mail
  size") are not; nor a tail cut from a longer compound ("factor authentication" of "two-factor
  authentication"), nor a word the texts use mostly as the first half of a compound ("auto-save":
  ``COMPOUND_SHARE``), nor a misspelt word ("adress"), a rare word no label name uses ("disjunction"), a
  short lowercase abbreviation ("pms"; written in capitals it is shown so: "ATM") or a vague noun ("the kind");
- an *action* ("Is it about deleting?", a value of "What do you want to do?") must be a verb the texts ask
  to do ("how do I delete", "Delete my account"), not one they only mention ("when you die");
- an *attribute* ("Is something pending?") an adjective or participle the texts say of something ("the
  transfer is pending"), not only put before a noun ("bibliographic references");
- a *product* a name, not an adjective ("European") nor the first word of a longer name ("Notting").

Values of one facet must not say the same thing (``same_meaning``): same lemmas, one a morphological
variant of the other ("time" / "timer", "mail" / "email"), or pooled MiniLM vectors of the two phrases at
least ``SYNONYM_SIMILARITY`` close (actions compared as -ing forms: "deleting" / "removing" 0.72,
"searching" / "finding" 0.78; "sending" / "receiving" 0.60, "payment" / "transaction" 0.64 and "tax" /
"income" 0.61 stay apart; "enable" / "disable" are opposites whatever MiniLM says). Of two yes/no
questions of one kind on forms of one word ("the time?", "the timer?"), only the first is kept. The gate
is deterministic; ``GateReport`` counts what it did.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from wordfreq import zipf_frequency

from assistant.induction.synonyms import SYNONYM_SIMILARITY, meaning_text, opposites
from assistant.text.embeddings import phrase_vectors
from assistant.text.grammar import (
    PhraseUses,
    action_problems,
    agreement_problems_of,
    attribute_problems,
    is_request_verb,
    noun_phrase_problems,
    parse,
    phrase_uses,
    request_verbs,
    verb_key,
)
from assistant.text.lemmas import is_known, lemma, lemma_of, plural_forms, verb_lemma
from assistant.text.phrases import LIGHT_VERBS, text_keys, words
from assistant.text.word_forms import same_form

Ident = tuple[str, tuple[str, ...]]  # (kind, key): ("object", ("exchange", "rate"))

# share of a phrase's uses in the domain's texts that must be a noun phrase (objects)
NOUN_SHARE = 0.5
# share of uses as the first half of a compound from which a word is no object of its own ("auto-save")
COMPOUND_SHARE = 0.8
# share of uses as the noun of a compound from which a word is no object of its own ("engine" of "search engine")
TAIL_SHARE = 0.6
# a word the lexicon does not know, this close (difflib ratio) to a commoner word of the texts, is misspelt
MISSPELLING_RATIO = 0.85
# a word the lexicon does not know and English rarely uses (wordfreq Zipf) must come from a label name
RARE_ZIPF = 2.5
# texts of the domain (label names first) in which each candidate phrase is looked at
MAX_CONTEXTS = 3
# share of a verb's uses that must ask to do it (actions): "when you die" four times, "should I die" once
REQUEST_SHARE = 0.3
# adjectives that say which one in a context, not what kind ("the specific point", "the large list"), and
# those that need a plural ("the multiple email")
RELATIVE_ADJECTIVES = frozenset(
    """specific exact similar good best better viable important original current large small single simple entire
    whole certain particular different same other new old easy possible available multiple several many various
    few own real actual right wrong full next last first correct recent odd long short big little high low great
    usual normal additional extra strange weird unknown""".split()  # noqa: SIM905
)
# a label's own texts read to confirm that a headline name ("Change pin") asks to do its first word
HEADLINE_TEXTS = 8
# verbs too weak to be what a person chooses to do ("see", "look"), besides assistant.text.phrases'
MORE_LIGHT_VERBS = frozenset({"see", "look", "go", "say", "tell", "ask", "put", "give", "take", "keep", "force"})
# a verb rarer than this (wordfreq Zipf) is no everyday action ("pend", "untrust")
ACTION_ZIPF = 3.0
# particles a phrasal verb may take ("back up", "find out", "sign in"; not "card about")
PARTICLES = frozenset({"up", "out", "off", "back", "down", "in", "on", "over", "away"})
# nouns that say nothing on their own ("Is it about the kind?"), or only in a set phrase ("changed my mind",
# "in the future", "for instance", "what's the deal")
VAGUE_NOUNS = frozenset(
    """kind sort type way lot bit stuff thing couple half thought yesterday today tomorrow someone something mind
    future instance deal point choice method function basis front impression progress system matter case reason
    idea situation fact process side place end use work part addition factor holding""".split()  # noqa: SIM905
)
# the last words of names that take "the" ("the European Union", "the European Economic Area")
ARTICLE_NAMES = frozenset({"union", "area", "kingdom", "states", "republic", "ruble", "rouble", "emirates"})
# words of at most this many letters that the lexicon does not know are abbreviations ("pms", "auth")
ABBREVIATION_LETTERS = 4
# share of a phrase's uses in the plural from which it is shown in the plural ("personal details")
PLURAL_SHARE = 0.6
# how often the texts must say a state of a thing before "Is something <state>?" is asked
MIN_PREDICATES = 3
# share of a known word's uses written with a capital from which it is a name ("Office", "Drive")
NAME_SHARE = 0.8


@dataclass(frozen=True)
class Verdict:
    """What the gate says of one phrase: keep it (as ``display``) or not, and why."""

    keep: bool
    display: str
    reason: str = ""


@dataclass
class GateReport:
    """What the gate did: phrases checked, rejected (by reason), reworded (old, new), merged (dropped, kept)."""

    checked: int = 0
    rejected: Counter = field(default_factory=Counter)
    reworded: list[tuple[str, str]] = field(default_factory=list)
    merged: list[tuple[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "checked": self.checked,
            "rejected": sum(self.rejected.values()),
            "rejected_by_reason": dict(sorted(self.rejected.items())),
            "reworded": len(self.reworded),
            "merged": len(self.merged),
        }


class WordingGate:
    """The gate for one domain: its label names (``titles``) and texts are parsed once; ``check`` then judges
    a batch of candidate phrases, ``verdict`` answers for one, ``title_actions`` says what each label name
    asks to do, ``same_meaning`` compares two phrases."""

    def __init__(self, titles: Sequence[str], texts: Sequence[str]) -> None:
        self.titles = list(titles)
        named = set(self.titles)
        self.texts = [t for t in dict.fromkeys(texts) if t.strip() and t not in named]
        self.title_docs = parse(self.titles)
        self._title_actions: list[set[tuple[str, ...]]] = [set() for _ in self.titles]
        self._title_candidates: list[list[tuple[str, ...]]] = [[] for _ in self.titles]
        self.verdicts: dict[Ident, Verdict] = {}
        self.report = GateReport()
        self._title_words = {w for title in self.titles for w in words(title)}
        self._vocabulary: list[str] | None = None
        self._vectors: dict[str, np.ndarray] = {}
        self._meanings: dict[tuple[str, str], str] = {}
        # how the label names use the phrases of the latest ``check`` (set there, read by the judges)
        self._title_uses = PhraseUses()

    # ---- label names -------------------------------------------------------------------------------------
    def title_actions(self, label: int) -> set[tuple[str, ...]]:
        """The action key label ``label``'s name asks to do ("Change pin" -> {("change",)}; empty: none), as
        ``read_title_actions`` found it."""
        return self._title_actions[label]

    def read_title_actions(self, texts_by_label: Sequence[Sequence[str]]) -> None:
        """What each name asks to do: the first verb the name asks for ("How do I retrieve a message I
        archived?": retrieve) or, for a name written as a headline ("Change pin", "Request refund", which the
        tagger often reads as nouns), its first word when "How do I <name>?" parses it as a verb; in either
        case confirmed by the label's own texts asking for it ("I want to change my PIN"), so that a misread
        name ("Export Gmail messages to *text*") does not count. A label without texts keeps the name's verb."""
        candidates: list[list[tuple[str, ...]]] = []
        heads = []
        for y, doc in enumerate(self.title_docs):
            candidates.append([k for k in request_verbs(doc) if choosable_verb(k)])
            if len(doc) > 1 and doc[0].is_alpha and verb_lemma(doc[0].lower_) is not None:
                heads.append(y)
        framed = parse(f"How do I {self.titles[y][:1].lower()}{self.titles[y][1:]}?" for y in heads)
        for y, doc in zip(heads, framed):
            if len(doc) > 3 and is_request_verb(doc[3]) and choosable_verb(verb_key(doc[3])):
                key = verb_key(doc[3])
                candidates[y] = [*candidates[y], *(k for k in (key, key[:1]) if k not in candidates[y])]
        self._title_candidates = candidates
        own_texts = [list(texts_by_label[y][:HEADLINE_TEXTS]) if candidates[y] else [] for y in range(len(self.titles))]
        docs = iter(parse(t for texts in own_texts for t in texts))
        for y, texts in enumerate(own_texts):
            asked = Counter(k for _ in texts for k in set(request_verbs(next(docs))))
            confirmed = [k for k in candidates[y] if asked[k]]
            # "How do I back up my photos?": a name that asks in so many words needs no confirmation
            surely = [k for k in request_verbs(self.title_docs[y], asked_by_person=True) if choosable_verb(k)]
            if confirmed:
                self._title_actions[y] = {confirmed[0]}
            elif surely:
                self._title_actions[y] = {surely[0]}
            elif not texts and candidates[y]:
                self._title_actions[y] = {candidates[y][0]}

    # ---- judging phrases -----------------------------------------------------------------------------------
    def check(self, candidates: Mapping[Ident, str]) -> None:
        """Judge every candidate {(kind, key): display} not judged yet (one parse of their contexts)."""
        todo = {ident: shown for ident, shown in candidates.items() if ident not in self.verdicts}
        if not todo:
            return
        by_kind: dict[str, list[Ident]] = {}
        for ident in sorted(todo):
            by_kind.setdefault(ident[0], []).append(ident)
        frames = {
            "object": noun_phrase_problems,
            "action": action_problems,
            "attribute": attribute_problems,
            "product": lambda shown: noun_phrase_problems([s.lower() for s in shown]),
        }
        in_frame: dict[Ident, str | None] = {}
        for kind, idents in by_kind.items():
            check_frame = frames.get(kind)
            in_frame.update(
                zip(idents, check_frame([todo[i] for i in idents]) if check_frame else [None] * len(idents))
            )
        # only phrases that read well in their question's frame are looked up in the texts
        keys = {ident[1] for ident, problem in in_frame.items() if problem is None}
        uses = phrase_uses([*self.title_docs, *parse(self._contexts(keys))], keys)
        self._title_uses = phrase_uses(self.title_docs, keys)
        for idents in by_kind.values():
            for ident in idents:
                verdict = self._judge(ident, todo[ident], in_frame[ident], uses)
                self.verdicts[ident] = verdict
                self.report.checked += 1
                if not verdict.keep:
                    self.report.rejected[verdict.reason.split(":")[0]] += 1
                elif verdict.display != todo[ident]:
                    self.report.reworded.append((todo[ident], verdict.display))

    def verdict(self, ident: Ident, shown: str) -> Verdict:
        """The verdict on one phrase (judged now if ``check`` has not seen it)."""
        self.check({ident: shown})
        return self.verdicts[ident]

    def _contexts(self, keys: set[tuple[str, ...]]) -> list[str]:
        """Up to ``MAX_CONTEXTS`` texts per phrase key (label names are parsed anyway), in text order."""
        wanted: Counter = Counter()
        chosen = []
        for text in self.texts:
            found = keys & text_keys(text)
            if any(wanted[k] < MAX_CONTEXTS for k in found):
                chosen.append(text)
                wanted.update(found)
        return chosen

    def _judge(self, ident: Ident, shown: str, frame_problem: str | None, uses) -> Verdict:
        kind, key = ident
        if kind == "product":
            return _judge_product(key, shown, frame_problem, uses)
        if frame_problem is not None:
            return Verdict(False, shown, f"not a {_WANTED[kind]}: {frame_problem}")
        if kind == "action":
            if not choosable_verb(key):
                return Verdict(False, shown, f"not an everyday action: '{shown}'")
            if any(key in actions for actions in self._title_actions):
                return Verdict(True, shown)
            if uses.request[key] == 0 or uses.request[key] < REQUEST_SHARE * uses.verb[key]:
                return Verdict(False, shown, "not asked for: the texts rarely ask to do it")
            return Verdict(True, shown)
        if kind == "attribute":
            if uses.predicate[key] < MIN_PREDICATES or uses.predicate[key] < NOUN_SHARE * uses.total[key]:
                return Verdict(False, shown, "not said of anything: mostly before a noun")
            return Verdict(True, shown)
        return self._judge_object(key, shown, uses)

    def _judge_object(self, key: tuple[str, ...], shown: str, uses) -> Verdict:
        """An object that reads well in its frame: vague, relative, a name, no noun phrase in the texts, cut
        from a compound, or judged by its words (``_judge_words``)."""
        total = uses.total[key]
        if key[-1] in VAGUE_NOUNS or any(w in VAGUE_NOUNS for w in key):
            return Verdict(False, shown, "vague: the noun says nothing on its own")
        first = shown.split()[0]
        degree = lemma_of(first, "ADJ") not in (None, first)  # "higher", "oldest": than what?
        if len(key) > 1 and (first in RELATIVE_ADJECTIVES or first.endswith("est") or degree):
            return Verdict(False, shown, f"relative: '{shown.split()[0]}' says which one, not what")
        known = all(is_known(w) for w in key)
        if total and uses.capitalised[key] > (NAME_SHARE if known else 0.5) * total:
            return Verdict(False, shown, "a name: the texts write it with a capital")
        if total and uses.noun[key] < NOUN_SHARE * total:
            return Verdict(False, shown, "not a noun phrase in the texts")
        elsewhere = uses.noun[key] - self._title_uses.noun[key]  # noun-phrase uses outside the label names
        if len(key) > 1 and elsewhere == 0 and self._starts_with_named_action(key):
            return Verdict(False, shown, "not a noun phrase: a name's action and its object ('Change pin')")
        if total >= 2 and uses.fragment[key] >= NOUN_SHARE * total:
            return Verdict(False, shown, "cut from a longer compound")
        if len(key) == 1 and total >= 2 and uses.compound_head[key] >= COMPOUND_SHARE * total:
            return Verdict(False, shown, "cut from a longer compound: only the first half of one")
        if len(key) == 1 and total >= 2 and uses.tail[key] >= TAIL_SHARE * total:
            return Verdict(False, shown, "cut from a longer compound: only its last noun")
        named = self._title_uses
        if len(key) == 1 and named.total[key] and named.noun[key] == named.tail[key]:
            return Verdict(False, shown, "cut from a longer compound: so in every label name")
        return self._judge_words(shown, key, uses)

    def _starts_with_named_action(self, key: tuple[str, ...]) -> bool:
        """Whether ``key`` opens a label name whose first word is the action that name asks for ("change pin"
        of "Change pin", "display mail size" of "Display mail size in Gmail"): the tagger may read such a
        headline as a noun phrase, the name means a request."""
        for y, title in enumerate(self.titles):
            lemmas = [lemma(w) for w in words(title)[: len(key)]]
            asked = [*self._title_actions[y], *self._title_candidates[y]]
            if tuple(lemmas) == key and any(a[0] == key[0] for a in asked):
                return True
        return False

    def _judge_words(self, shown: str, key: tuple[str, ...], uses) -> Verdict:
        """Spelling, rarity and abbreviations of an object's words; its display: in capitals where the texts
        write it so ("PIN", "ATM"), in the plural where they mostly do ("personal details")."""
        display = shown
        total = max(uses.total[key], 1)
        if uses.plural[key] >= PLURAL_SHARE * total and uses.total[key] >= 2:
            own = zipf_frequency(key[-1], "en")  # "people" is plural already: "peoples" is rare
            plural = sorted(f for f in plural_forms(key[-1]) if f != key[-1] and zipf_frequency(f, "en") >= own - 1.5)
            if plural and key[-1] == shown.split()[-1]:
                display = " ".join([*shown.split()[:-1], plural[0]])
        if len(key) == 2 and uses.hyphenated[key] * 2 >= total and uses.total[key]:
            display = "-".join(display.split())  # "auto-save", as the texts write it
        for word in shown.split():
            short = len(word) <= ABBREVIATION_LETTERS and word.isalpha()
            if short and len(key) == 1 and uses.capitals[key] * 2 >= total and zipf_frequency(word, "en") >= RARE_ZIPF:
                display = word.upper()
                continue
            if is_known(word):
                continue
            if short:
                return Verdict(False, shown, f"abbreviation: '{word}' is written in lowercase")
            misspelt = self._misspelling_of(word)
            if misspelt:
                return Verdict(False, shown, f"misspelt: '{word}' for '{misspelt}'")
            if zipf_frequency(word, "en") < RARE_ZIPF and word not in self._title_words:
                return Verdict(False, shown, f"rare: '{word}' is in no label name")
        return Verdict(True, display)

    def _misspelling_of(self, word: str) -> str | None:
        if len(word) < 5:
            return None
        if self._vocabulary is None:
            found = {w for text in [*self.titles, *self.texts] for w in words(text) if len(w) >= 5 and is_known(w)}
            self._vocabulary = sorted(found)
        close = difflib.get_close_matches(word, self._vocabulary, n=3, cutoff=MISSPELLING_RATIO)
        own = zipf_frequency(word, "en")
        for other in close:
            if other[0] == word[0] and lemma(other) != lemma(word) and zipf_frequency(other, "en") >= own + 1:
                return other
        return None

    # ---- meaning -----------------------------------------------------------------------------------------
    def embed(self, phrases: Sequence[tuple[str, str]]) -> None:
        """Compute (once) the MiniLM vectors ``same_meaning`` compares, for (kind, display) pairs."""
        todo = sorted({t for t in (self._meaning(kind, shown) for kind, shown in phrases) if t not in self._vectors})
        if todo:
            self._vectors.update(zip(todo, phrase_vectors(todo)))

    def _meaning(self, kind: str, shown: str) -> str:
        """``meaning_text``, worked out once per phrase (the pairs compared share their phrases)."""
        if (kind, shown) not in self._meanings:
            self._meanings[kind, shown] = meaning_text(kind, shown)
        return self._meanings[kind, shown]

    @staticmethod
    def same_form(key_a: tuple[str, ...], key_b: tuple[str, ...]) -> bool:
        """Whether two phrase keys are forms of one phrase (assistant.induction.synonyms.same_form)."""
        return same_form(key_a, key_b)

    def same_meaning(
        self,
        a: tuple[tuple[str, ...], str],
        b: tuple[tuple[str, ...], str],
        kind: str = "object",
        similarity: float = SYNONYM_SIMILARITY,
    ) -> bool:
        """Whether two phrases (key, display) of ``kind`` say the same (module docstring): MiniLM's cosine at
        least ``similarity``."""
        (key_a, shown_a), (key_b, shown_b) = a, b
        if self.same_form(key_a, key_b):
            return True
        if opposites(key_a, key_b):
            return False  # "enable" / "disable", "block" / "unblock"
        self.embed([(kind, shown_a), (kind, shown_b)])
        text_a, text_b = self._meaning(kind, shown_a), self._meaning(kind, shown_b)
        return float(self._vectors[text_a] @ self._vectors[text_b]) >= similarity


_WANTED = {"object": "noun phrase", "action": "verb", "attribute": "state"}


def _judge_product(key: tuple[str, ...], shown: str, frame_problem: str | None, uses) -> Verdict:
    """A product is a name, not an adjective nor the first word of a longer name."""
    total = uses.total[key]
    if frame_problem is not None:
        return Verdict(False, shown, f"not a name: {frame_problem}")
    if total >= 2 and uses.fragment[key] + uses.compound_head[key] >= total:
        return Verdict(False, shown, "part of a longer name")
    if key[-1] in ARTICLE_NAMES and len(key) > 1:  # "the European Union", "the Russian ruble"
        return Verdict(True, f"the {shown}")
    return Verdict(True, shown)


def choosable_verb(key: tuple[str, ...]) -> bool:
    """Whether an action key is a verb a person would choose: not a light verb ("get", "see"), an everyday
    word, and a particle that is one ("back up", not "card about")."""
    verb = key[0]
    if verb in LIGHT_VERBS or verb in MORE_LIGHT_VERBS or zipf_frequency(verb, "en") < ACTION_ZIPF:
        return False
    if verb_lemma(verb) != verb:  # the lexicon knows no such verb ("pending")
        return False
    return len(key) == 1 or (len(key) == 2 and key[1] in PARTICLES)


def question_problems(texts: Sequence[str]) -> list[list[str]]:
    """Per question text, what a reader would call broken English that the parser sees in the question alone:
    what "about" introduces is no noun phrase or -ing form ("Is it about the private?"), and subject-verb
    agreement ("Is its underparts white?"). Phrases that read well alone but not in their texts ("the display
    mail") are the gate's part (``WordingGate``)."""
    out = []
    for doc in parse(texts):
        problems = [f"agreement: {p}" for p in agreement_problems_of(doc)]
        for token in doc:
            if token.lower_ == "about" and token.dep_ == "prep":
                # "What in Gmail is it about?": a stranded "about" is English; what follows "about" must be a noun
                for obj in (c for c in token.children if c.dep_ in ("pobj", "pcomp") and c.i > token.i):
                    if obj.pos_ not in ("NOUN", "PROPN", "PRON") and obj.tag_ != "VBG":
                        problems.append(f"'{obj.text}' after 'about' is {obj.pos_.lower()}, not a noun")
        out.append(problems)
    return out
