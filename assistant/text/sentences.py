"""Sentences of a text (pysbd, rule-based): a FAQ answer's sentences for the desk prior, a summary's units."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def _segmenter():
    import pysbd

    return pysbd.Segmenter(language="en", clean=False)


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` (pysbd, rule-based); blank lines always end a sentence."""
    out: list[str] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        block = " ".join(block.split())
        if block:
            out.extend(s.strip() for s in _segmenter().segment(block) if s.strip())
    return out
