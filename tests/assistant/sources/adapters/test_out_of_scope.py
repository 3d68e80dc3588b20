"""faq's and banking's out-of-scope queries: drawn from the other bundled data sets, dev apart from test,
without what the domain could answer, the same on every build."""

from __future__ import annotations

from collections import Counter

import pytest

from assistant.errors import ConfigError
from assistant.sources.adapters import banking77, stackfaq
from assistant.sources.adapters.out_of_scope_queries import (
    BANKING_WORDS,
    FAQ_SERVICES,
    MIN_PER_SPLIT,
    OUT_OF_SCOPE_SHARE,
    draw_out_of_scope,
    in_scope_counts,
    sources,
)


@pytest.mark.parametrize("domain", ["faq", "banking"])
def test_the_splits_get_their_share_from_their_own_source_splits(domain):
    rows = (stackfaq.read_threads() if domain == "faq" else banking77.read_queries())[1]
    counts = in_scope_counts(rows)
    drawn = draw_out_of_scope(domain, counts)
    by_split = Counter(split for _, split in drawn)
    for split, count in counts.items():
        wanted = 3 * round(max(OUT_OF_SCOPE_SHARE * count, MIN_PER_SPLIT) / 3)
        assert by_split[split] == wanted
    dev = {t.lower() for t, s in drawn if s == "dev"}
    test = {t.lower() for t, s in drawn if s == "test"}
    assert not dev & test, "a test query must never be tuned on"
    own = {t.lower() for _, t, _ in rows}
    assert not (dev | test) & own, "the domain's own queries are in scope"
    # test queries come from the sources' test splits only
    test_pool = {t.lower() for source in sources(domain).values() for t, s in source if s == "test"}
    assert test <= test_pool
    assert drawn == draw_out_of_scope(domain, counts), "same build, same queries"


def test_what_the_domain_could_answer_is_left_out():
    banking_sources = sources("banking")
    assert not any(BANKING_WORDS.search(t) for t, _ in banking_sources["clinc-oos"])
    clinc_banking = {"please tell me what my bank routing number is", "i must learn my routing number"}
    assert not clinc_banking & {t.lower() for t, _ in banking_sources["clinc"]}
    assert "can you tell a joke" in {t.lower() for t, _ in banking_sources["clinc"]}
    faq_sources = sources("faq")
    assert not any(FAQ_SERVICES.search(t) for t, _ in faq_sources["banking"] + faq_sources["clinc-oos"])


def test_unknown_domains_and_splits_are_refused():
    with pytest.raises(ConfigError, match="faq and banking"):
        sources("birds")
    with pytest.raises(ConfigError, match="dev and test"):
        draw_out_of_scope("faq", {"train": 10})
