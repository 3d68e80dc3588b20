"""What a query already says about the tags: "small bird with a red crown" mentions size = small and
crown color = red.

A mention of option r of question q is evidence the same way an answer is: it multiplies p(y) by
A[q, r, y]. This gives a prior that works for *every* label with annotations, including labels that have
no training queries at all (149 of the 200 bird species), which a text encoder trained on queries
cannot rank: in the birds domain the encoder almost never puts an uncaptioned species first, whatever
the caption says (see assistant.priors.base.CombinedPrior for how the two are joined).

Two kinds of tags are recognised:

- structured CUB tags "has_<part>_<aspect>::<value>" (birds): the value must modify the part ("red
  crown", "black and white wings", "cone shaped bill") or be predicated of it ("the crown is red");
  words that name a value on their own ("crested", "eyebrow") match alone; attribute groups with one
  multiple-choice question ("has_size") match their option words ("very small", "large");
- any other tag (induced FAQ/banking phrases "product::Gmail", crowd tags): all its words appear in a row,
  matched by lemma (assistant.text.phrases.text_keys); the values of an induced multiple-choice question
  ("Which service is it about?" Gmail / Google Docs / ...) likewise, the longest value that matches.

The bird vocabulary below says how English speakers name CUB's parts and colours (a beak is a bill, a
chest a breast, tan is buff).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from assistant.store import SOMETHING_ELSE, Domain
from assistant.text.lemmas import phrase_key
from assistant.text.phrases import GROUP_SEPARATOR, split_tag, text_keys
from assistant.text.phrases import words as phrase_words

# the words that name each CUB part (the key is the part as written in the tag)
PART_ALIASES = {
    "bill": {"bill", "bills", "beak", "beaks"},
    "wing": {"wing", "wings", "wingbar", "wingbars"},
    "leg": {"leg", "legs", "feet", "foot", "tarsus"},
    "eye": {"eye", "eyes"},
    "breast": {"breast", "chest"},
    "belly": {"belly", "stomach", "abdomen"},
    "tail": {"tail", "tails", "rectrices", "retrices"},
    "upper_tail": {"uppertail"},
    "under_tail": {"undertail"},
    "crown": {"crown", "head", "cap", "crest", "crested"},
    "head": {"head"},
    "nape": {"nape", "neck"},
    "primary": {"bird", "body", "plumage", "feathers"},
    "shape": {"bird", "body"},
}
VALUE_WORDS = {
    "gray": "grey",
    "beige": "buff",
    "tan": "buff",
    "cream": "buff",
    "golden": "yellow",
    "gold": "yellow",
    "chestnut": "rufous",
    "rust": "rufous",
    "rusty": "rufous",
    "spots": "spotted",
    "speckled": "spotted",
    "stripes": "striped",
    "streaked": "striped",
    "streaks": "striped",
    "stripe": "striped",
    "mask": "masked",
    "eyebrows": "eyebrow",
    "eyerings": "eyering",
}
# words that may stand between a value and the part it modifies ("black and white wings")
LINKING_WORDS = frozenset("and or with a an its light dark bright pale deep shaped colored coloured very".split())  # noqa: SIM905 - a word list reads better as one string
PREDICATE_WORDS = frozenset({"is", "are", "looks", "look"})
# value words that identify their tag without a part ("a crested bird")
STANDALONE_GROUPS = frozenset({"has_head_pattern"})
STANDALONE_SYNONYMS = {"crest": "crested"}
# option words of multiple-choice groups, longest first so that "very small" wins over "small"
CHOICE_WORDS = {
    "has_size": {
        "very small": "very small",
        "tiny": "very small",
        "very large": "very large",
        "huge": "very large",
        "small": "small",
        "medium": "medium",
        "large": "large",
        "big": "large",
    },
    "has_bill_length": {"long": "longer than head", "short": "shorter than head"},
}
CHOICE_PARTS = {"has_bill_length": "bill"}


def _tokens(text: str) -> list[str]:
    words = re.findall(r"[a-z]+", text.lower().replace("-", " "))
    return [VALUE_WORDS.get(w, w) for w in words]


@dataclass(frozen=True)
class Mention:
    """Option ``option`` of question ``question`` was mentioned (as ``words``)."""

    question: int
    option: int
    words: str


@dataclass(frozen=True)
class _PartValue:
    question: int
    option: int
    part_words: frozenset[str]
    value: tuple[str, ...]
    standalone: bool


class MentionDetector:
    """Finds tag mentions in queries (see the module docstring). Build with ``from_domain``."""

    def __init__(self, part_values: list[_PartValue], phrases: list[tuple[int, int, tuple[str, ...]]], choices):
        self.part_values = part_values
        self.phrases = phrases
        self.choices = choices  # [(question, {words: option index}, part words or None)]

    @classmethod
    def from_domain(cls, domain: Domain) -> MentionDetector:
        part_values, phrases, choices = [], [], []
        for q, question in enumerate(domain.questions):
            if "::" in question.tag and question.tag.startswith("has_"):
                group, _, value = question.tag.partition("::")
                part = re.sub(r"_(color|pattern|shape)$", "", group.removeprefix("has_"))
                aliases = frozenset(PART_ALIASES.get(part, {part.replace("_", "")}))
                noise = {"up", "or", "down", "like"} | aliases
                words = tuple(w for w in _tokens(value.replace("_", " ")) if w not in noise)
                if words:
                    standalone = group in STANDALONE_GROUPS and words[0] not in (
                        "plain",
                        "unique",
                        "spotted",
                        "striped",
                    )
                    part_values.append(_PartValue(q, 0, aliases, words, standalone))
            elif question.kind == "choice" and question.group in CHOICE_WORDS:
                index = {}
                for option_words, option_prefix in CHOICE_WORDS[question.group].items():
                    for r, option in enumerate(question.options):
                        if option.startswith(option_prefix):
                            index[option_words] = r
                choice_part = CHOICE_PARTS.get(question.group)
                ordered = dict(sorted(index.items(), key=lambda kv: -len(kv[0])))
                choices.append((q, ordered, frozenset(PART_ALIASES[choice_part]) if choice_part else None))
            elif (
                question.kind == "choice" and question.group.startswith("has_") and question.group.endswith("_pattern")
            ):
                part = question.group.removeprefix("has_").removesuffix("_pattern")
                aliases = frozenset(PART_ALIASES.get(part, {part}))
                for r, option in enumerate(question.options):
                    words = tuple(w for w in _tokens(option) if w != "colored")
                    if words:
                        part_values.append(_PartValue(q, r, aliases, words[:1], False))
            elif question.kind == "binary":
                key = phrase_key(phrase_words(split_tag(question.tag)[1]))
                if key:
                    phrases.append((q, 0, key))
            elif question.induced and GROUP_SEPARATOR not in question.tag:
                # an induced facet: its values, not "something else"; a facet within a group ("What do you
                # want to do in Gmail?") is not answered by "delete" alone
                for r, option in enumerate(question.options):
                    key = phrase_key(phrase_words(option))
                    if option != SOMETHING_ELSE and key:
                        phrases.append((q, r, key))
        return cls(part_values, phrases, choices)

    def detect(self, text: str) -> list[Mention]:
        """Every (question, option) the text mentions, each once, in question order."""
        tokens = _tokens(text)
        found: dict[tuple[int, int], str] = {}
        for pv in self.part_values:
            hit = self._part_value(tokens, pv)
            if hit:
                found.setdefault((pv.question, pv.option), hit)
        for q, words_to_option, part_words in self.choices:
            for words, r in words_to_option.items():
                if _follows(tokens, tuple(words.split()), part_words):
                    found.setdefault((q, r), words)
                    break
        if self.phrases:
            keys = text_keys(text)
            longest: dict[int, tuple[int, tuple[str, ...]]] = {}
            for q, r, key in self.phrases:
                if key in keys and len(key) > len(longest.get(q, (0, ()))[1]):
                    longest[q] = (r, key)
            for q, (r, key) in longest.items():
                found.setdefault((q, r), " ".join(key))
        return [Mention(q, r, w) for (q, r), w in sorted(found.items())]

    @staticmethod
    def _part_value(tokens: list[str], pv: _PartValue) -> str | None:
        n = len(pv.value)
        for i in range(len(tokens) - n + 1):
            window = tuple(tokens[i : i + n])
            if pv.standalone and tuple(STANDALONE_SYNONYMS.get(t, t) for t in window) == pv.value:
                return " ".join(window)
            if window != pv.value:
                continue
            # value ... part, with only linking words or other values between ("black and white wings")
            for j in range(i + n, min(len(tokens), i + n + 5)):
                if tokens[j] in pv.part_words:
                    return " ".join(tokens[i : j + 1])
                if tokens[j] not in LINKING_WORDS and tokens[j] not in _COLOURS:
                    break
            # part is value ("its crown is red")
            if i >= 2 and tokens[i - 1] in PREDICATE_WORDS and tokens[i - 2] in pv.part_words:
                return " ".join(tokens[i - 2 : i + n])
        return None

    def evidence(self, texts: Sequence[str], log_answers: np.ndarray) -> np.ndarray:
        """[N, Y] sum of log A[q, r, :] over each text's mentions (0 where nothing is mentioned)."""
        out = np.zeros((len(texts), log_answers.shape[2]), dtype=np.float64)
        for i, text in enumerate(texts):
            for m in self.detect(text):
                out[i] += log_answers[m.question, m.option]
        return out


_COLOURS = frozenset(
    "blue brown iridescent purple rufous grey yellow olive green pink orange black white red buff".split()  # noqa: SIM905 - a word list reads better as one string
)


def _follows(tokens: list[str], words: tuple[str, ...], part_words: frozenset[str] | None) -> bool:
    """Whether ``words`` occur in ``tokens`` (followed by a part word within three tokens, when given)."""
    n = len(words)
    for i in range(len(tokens) - n + 1):
        if tuple(tokens[i : i + n]) == words and (
            part_words is None or any(t in part_words for t in tokens[i + n : i + n + 3])
        ):
            return True
    return False
