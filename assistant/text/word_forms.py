"""When two phrase keys are forms of one phrase ("time" / "timer", "person" / "persons"), and when one names a
kind of the other ("portable cot" / "cot"): what induction merges and what an answer settles for both
(assistant.induction.synonyms, assistant.clarification.kinship)."""

from __future__ import annotations

from assistant.text.lemmas import plural_forms

# derivational endings that make one word a variant of another ("time" -> "timer", "sync" -> "syncing")
VARIANT_SUFFIXES = ("s", "es", "r", "er", "ers", "ing", "ed", "d", "ion", "ation", "ment")


def one_letter_apart(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Phrases of several words that differ in one letter of one word ("fiat currency", "flat currency")."""
    if len(a) != len(b) or len(a) < 2:
        return False
    differing = [(x, y) for x, y in zip(a, b) if x != y]
    if len(differing) != 1 or len(differing[0][0]) != len(differing[0][1]) or len(differing[0][0]) < 4:
        return False
    return sum(p != q for p, q in zip(*differing[0])) == 1


def is_variant(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether two one-word keys are forms of one word: one ends with the other ("mail", "email") or adds a
    derivational ending to it ("time" -> "timer", "sync" -> "syncing"), or they differ only in spaces
    ("back up", "backup")."""
    if "".join(a) == "".join(b):
        return True
    if len(a) != 1 or len(b) != 1:
        return False
    short, long = sorted((a[0], b[0]), key=len)
    if len(short) < 4:
        return False
    if long.endswith(short) and len(long) - len(short) == 1:  # "mail" / "email", not "change" / "exchange"
        return True
    stem = short[:-1] if short.endswith("e") else short
    return any(long in (short + s, stem + s) for s in VARIANT_SUFFIXES)


def same_form(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether two phrase keys are forms of one phrase: equal, a variant ("time" / "timer"), a plural ("person" /
    "persons"), a one-letter typo ("fiat currency" / "flat currency")."""
    if a == b or is_variant(a, b) or one_letter_apart(a, b):
        return True
    return len(a) == len(b) == 1 and (b[0] in plural_forms(a[0]) or a[0] in plural_forms(b[0]))


def head_contains(longer: tuple[str, ...], shorter: tuple[str, ...]) -> bool:
    """Whether the noun phrase ``longer`` names a kind of ``shorter``: it ends with it ("portable cot" of "cot",
    "admission ticket" of "ticket"; not "bus service" of "bus", whose head is "service")."""
    return len(shorter) < len(longer) and longer[len(longer) - len(shorter) :] == shorter
