"""When two phrases of a domain say the same thing: forms of one word, one-letter typos, opposites, and the
text pooled MiniLM compares (assistant.induction.wording's ``same_meaning`` uses them)."""

from __future__ import annotations

from assistant.text.lemmas import inflect

# cosine of pooled MiniLM vectors (actions as -ing forms, ``meaning_text``) from which two values of a facet
# say the same, read off the faq, banking and clinc value lists: searching/finding 0.78, deleting/removing
# 0.72, photo/picture 0.85, image/picture 0.77 are one; exporting/importing 0.62, downloading/uploading 0.61,
# sending/receiving 0.60, changing/editing 0.59, payment/transaction 0.64, tax/income 0.61, file/folder 0.57
# are two (buying/selling, 0.75, would be one: MiniLM puts some opposites close)
SYNONYM_SIMILARITY = 0.70
# derivational endings that make one word a variant of another ("time" -> "timer", "sync" -> "syncing")
VARIANT_SUFFIXES = ("s", "es", "r", "er", "ers", "ing", "ed", "d", "ion", "ation", "ment")


def meaning_text(kind: str, shown: str) -> str:
    """What MiniLM compares: an action as its -ing form ("backing up": "sending" / "receiving" 0.60, while the
    bare verbs are 0.67, as close as "search" / "find"), anything else as shown."""
    if kind != "action":
        return shown
    first, _, rest = shown.partition(" ")
    return " ".join(w for w in (inflect(first, "VBG"), rest) if w)


def opposites(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """One word is the other with a negating prefix ("disable" / "enable", "unblock" / "block")."""
    if len(a) != 1 or len(b) != 1:
        return False
    for x, y in ((a[0], b[0]), (b[0], a[0])):
        for prefix, other in (("dis", ""), ("un", ""), ("de", ""), ("in", ""), ("dis", "en")):
            if x.startswith(prefix) and other + x[len(prefix) :] == y:
                return True
    return False


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
