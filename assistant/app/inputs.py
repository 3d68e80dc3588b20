"""What the terminal and the app check in a person's typing before a session sees it: the first query
(``check_query``) and the words added to it later (``check_added_words``: the query with them must still fit
``MAX_QUERY_CHARS``, since it is stored and read by the priors like the first query). Replaying a saved log
never checks again: what was accepted once stays resumable."""

from __future__ import annotations

from assistant.clarification.query_check import MAX_QUERY_CHARS, check_added_words, check_query

__all__ = ["MAX_QUERY_CHARS", "check_added_words", "check_query"]
