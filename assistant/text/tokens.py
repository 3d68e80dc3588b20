"""Words of a text: the tokeniser, the stopword list and the singular forms that tag induction, tag
clean-up and the crowd export share.

(The text priors tokenise with their own models: MiniLM word pieces, bm25s' tokeniser in ``text.bm25``.)
"""

from __future__ import annotations

import re
import unicodedata

STOPWORDS = frozenset(
    """a about above after again against all am an and any are aren't as at be because been before being below
    between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each
    few for from further had hadn't has hasn't have haven't having he her here hers herself him himself his how
    i i'm if in into is isn't it it's its itself just let's me might more most must mustn't my myself no nor not
    now of off on once only or other ought our ours ourselves out over own same shall she should shouldn't so
    some such than that that's the their theirs them themselves then there there's these they they're this those
    through to too under until up upon very was wasn't we we're were weren't what what's when where which while
    who whom why will with won't would wouldn't you you're your yours yourself yourselves also get got getting
    gets want wanted need needs like still yet way ways thing things using use used one someone something anyone
    anything please hi hello thanks thank possible able know make made many much even really go going im ive id
    dont cant doesnt isnt wont didnt via etc making great tried actually com www http https html org net best
    trying try new anymore recently currently ago already since every always never sure okay ok""".split()  # noqa: SIM905 - a word list reads better as one string
)

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def words(text: str) -> list[str]:
    """Lowercase word tokens (letters/digits, with an inner apostrophe)."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def singular(word: str) -> str:
    """A crude English singular, enough to merge 'cards' with 'card' and 'fees' with 'fee'."""
    if len(word) <= 3 or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    if word.endswith("s"):
        return word[:-1]
    return word
