"""The project's one BM25 (assistant.text.bm25)."""

import logging

from assistant.text.bm25 import BM25Index, bm25_tokens


def test_the_best_document_shares_most_query_words():
    index = BM25Index(bm25_tokens(["red wine from France", "blue cheese", "red cheese on toast"]))
    assert index.top(bm25_tokens(["red cheese"])[0], 1).tolist() == [2]
    assert index.scores(bm25_tokens(["purple"])[0]).tolist() == [0.0, 0.0, 0.0]


def test_indexing_prints_no_debug_lines_when_another_library_configured_logging(caplog):
    # bm25s sets its logger to DEBUG; with a root handler (as some libraries install) every index printed a line
    caplog.set_level(logging.DEBUG)
    BM25Index(bm25_tokens(["red wine", "blue cheese"]))
    assert [r.getMessage() for r in caplog.records if r.name.startswith("bm25s")] == []
