"""When two phrases of a domain say the same thing: opposites, and the text pooled MiniLM compares and from what
cosine (assistant.induction.wording's ``same_meaning`` uses them; forms of one word: assistant.text.word_forms)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from assistant.text.embeddings import phrase_vectors
from assistant.text.lemmas import inflect, phrase_key
from assistant.text.phrases import contains_phrase, words

# cosine of pooled MiniLM vectors (actions as -ing forms, ``meaning_text``) from which two values of a facet
# say the same, read off the faq, banking and clinc value lists: searching/finding 0.78, deleting/removing
# 0.72, photo/picture 0.85, image/picture 0.77 are one; exporting/importing 0.62, downloading/uploading 0.61,
# sending/receiving 0.60, changing/editing 0.59, payment/transaction 0.64, tax/income 0.61, file/folder 0.57
# are two (buying/selling, 0.75, would be one: MiniLM puts some opposites close)
SYNONYM_SIMILARITY = 0.70
# the cosine from which two tag phrases of an own FAQ are one idea however the desk uses them (a yes/no question
# on each would ask it twice), read off the six development desks' induced phrases (../shared/data/desks): above
# it only forms of one word and phrases inside one another (exhibitions / special exhibitions 0.92, scam /
# scammer 0.80); below it distinct things (university account / university password 0.74, free / international
# mail redirection 0.73, domestic / international service 0.66, flu / pneumonia vaccination 0.66). MiniLM does
# not know a pram for a stroller (0.19), a cabin bag for a carry-on (0.46): no threshold separates those
SAME_IDEA_SIMILARITY = 0.75


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


def similar_values(values: Sequence[tuple[str, str]], similarity: float = SAME_IDEA_SIMILARITY) -> list[list[str]]:
    """[kind, shown, shown] for each pair of (kind, shown) phrases of one kind whose pooled MiniLM vectors
    (``meaning_text``) are at least ``similarity`` close: what a desk's build stores so that an answer about one
    settles the other without an encoder at serving time (assistant.clarification.kinship). Not products
    ("Museum" / "Museum Shop", 0.88, are two places) nor phrases inside one another ("card" / "member card":
    the conversation reads those from the words, and "yes" to "card" leaves "member card?" to ask)."""
    values = sorted({(kind, shown) for kind, shown in values if kind != "product"})
    keys = [phrase_key(words(shown)) for _, shown in values]
    vectors = phrase_vectors([meaning_text(kind, shown) for kind, shown in values])
    close = np.triu(vectors @ vectors.T >= similarity, k=1)
    return [
        [values[i][0], values[i][1], values[j][1]]
        for i, j in zip(*np.nonzero(close))
        if values[i][0] == values[j][0] and not (contains_phrase(keys[i], keys[j]) or contains_phrase(keys[j], keys[i]))
    ]
