"""Spelling merges of crowd tags must be typos or inflections of single words, never different words."""

from __future__ import annotations

from crowdsourcing.tags import merge_tags


def test_spelling_merges_need_matching_words():
    mapping, merges = merge_tags(
        ["has back color green", "has back color grey", "internatinal roaming", "international roaming",
         "card blocked", "card blokced", "lost card", "lost cards", "pass word", "password"]
    )  # fmt: skip
    assert mapping["has back color green"] != mapping["has back color grey"]
    assert mapping["internatinal roaming"] == mapping["international roaming"]
    assert mapping["card blocked"] == mapping["card blokced"]
    assert mapping["lost card"] == mapping["lost cards"]
    assert mapping["pass word"] == mapping["password"]
    reasons = {m.canonical: m.reason for m in merges}
    assert reasons[mapping["card blocked"]] == "spelling"
    assert reasons["lost card"] == "same words"
