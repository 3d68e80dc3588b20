"""Words of a text: the tokeniser and the stopword list that tag induction, tag clean-up, the crowd export
and the mention detector share (lemmas are in ``assistant.text.lemmas``).

The stopwords are the SMART information-retrieval list (Salton's SMART system, 571 words) as the sumy
package ships it, with its contractions also written without the apostrophe ("dont"), plus the few words
of how people phrase requests that it lacks (``REQUEST_WORDS``).

(The text priors tokenise with their own models: MiniLM word pieces, bm25s' tokeniser in ``text.bm25``.)
"""

from __future__ import annotations

import re
import unicodedata
from importlib import resources

# request filler and web debris the SMART list lacks ("thing", "make", "anymore", "www")
REQUEST_WORDS = frozenset(
    "thing things make made making great anymore recently ago www http https html org net".split()  # noqa: SIM905 - a word list reads better as one string
)


def _smart_list() -> frozenset[str]:
    text = (resources.files("sumy") / "data" / "stopwords" / "english.txt").read_text(encoding="utf-8")
    listed = {w.strip().casefold() for w in text.split() if w.strip()}
    return frozenset(listed | {w.replace("'", "") for w in listed})


STOPWORDS = _smart_list() | REQUEST_WORDS

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def words(text: str) -> list[str]:
    """Lowercase word tokens (letters/digits, with an inner apostrophe)."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())
