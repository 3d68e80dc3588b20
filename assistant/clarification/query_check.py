"""What a first query must be to start a conversation."""

from __future__ import annotations

from assistant.errors import ConfigError, EmptyQueryError

__all__ = ["MAX_QUERY_CHARS", "check_added_words", "check_query", "check_text"]

# A question is a few words; a pasted document (or a 10 MB hostile string) would take the priors tens of
# seconds and be stored whole in the session log.
MAX_QUERY_CHARS = 1000


def check_text(text: str, what: str = "the question") -> str:
    """``text`` if it is text; ConfigError when it holds lone surrogates: what Python makes of bytes that are not
    UTF-8 in a command-line argument (``$'pass\\xffword'``), which no tokenizer or database takes."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = text[exc.start]
        byte = f"byte 0x{ord(bad) - 0xDC00:02x}" if 0xDC80 <= ord(bad) <= 0xDCFF else f"U+{ord(bad):04X}"
        raise ConfigError(
            f"{what} holds a {byte} at character {exc.start + 1}, which is not UTF-8 text: type it again "
            "(or set the terminal's encoding to UTF-8)"
        ) from None
    return text


def check_added_words(query: str, words: str) -> str:
    """``words`` (spaces collapsed) if the query with them added still fits ``MAX_QUERY_CHARS``; ConfigError
    otherwise: added words are part of the query, stored and read by the priors like it."""
    words = " ".join(check_text(words or "", "the added words").split())
    total = len(query) + 1 + len(words)
    if total > MAX_QUERY_CHARS:
        raise ConfigError(
            f"with these words the question would be {total:,} characters long; Clarify reads at most "
            f"{MAX_QUERY_CHARS:,}: add the gist in a few words"
        )
    return words


def check_query(query: str) -> str:
    """``query`` stripped, or EmptyQueryError / ConfigError saying why it cannot start a conversation: it is
    empty, not text (``check_text``), has no letters or digits in any script, or is longer than
    ``MAX_QUERY_CHARS``."""
    text = check_text((query or "").strip())
    if not text:
        raise EmptyQueryError("the question is empty: type a few words about what you are looking for")
    if len(text) > MAX_QUERY_CHARS:
        raise ConfigError(
            f"the question is {len(text):,} characters long; Clarify reads at most {MAX_QUERY_CHARS:,}: type the gist "
            "in a few words"
        )
    if not any(ch.isalnum() for ch in text):
        raise EmptyQueryError(
            f"the question {text[:40]!r} has no words (only punctuation or symbols): type a few words about what you "
            "are looking for"
        )
    return text
