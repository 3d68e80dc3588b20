"""What a first query must be to start a conversation."""

from __future__ import annotations

from assistant.errors import ConfigError, EmptyQueryError

__all__ = ["MAX_QUERY_CHARS", "check_query"]

# A question is a few words; a pasted document (or a 10 MB hostile string) would take the priors tens of
# seconds and be stored whole in the session log.
MAX_QUERY_CHARS = 1000


def check_query(query: str) -> str:
    """``query`` stripped, or EmptyQueryError / ConfigError saying why it cannot start a conversation: it is
    empty, has no letters or digits in any script, or is longer than ``MAX_QUERY_CHARS``."""
    text = (query or "").strip()
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
