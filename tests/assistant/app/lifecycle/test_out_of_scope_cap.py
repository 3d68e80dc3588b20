"""A large FAQ tunes its out-of-scope hypothesis on at most ``OWN_FAQ_MAX_IN_SCOPE`` in-scope dev episodes (issue
33): a seeded draw in their order, every out-of-scope episode kept, nothing dropped below the cap."""

from __future__ import annotations

from assistant.app.lifecycle.out_of_scope_jobs import at_most_in_scope
from assistant.simulation.episodes import EpisodeSpec


def _episodes(in_scope: int, out: int) -> list[EpisodeSpec]:
    made = [EpisodeSpec(i % 7, f"query {i}", i, "in_scope") for i in range(in_scope)]
    return made + [EpisodeSpec(7, f"elsewhere {i}", i, "out_of_scope") for i in range(out)]


def test_the_cap_draws_in_scope_episodes_and_keeps_every_out_of_scope_one():
    episodes = _episodes(50, 10)
    kept = at_most_in_scope(episodes, 20, seed=3)
    assert sum(e.kind == "in_scope" for e in kept) == 20
    assert [e for e in kept if e.kind == "out_of_scope"] == episodes[50:]
    assert kept == [e for e in episodes if e in kept]  # in their order
    assert at_most_in_scope(episodes, 20, seed=3) == kept  # same seed, same draw


def test_no_cap_or_few_episodes_keep_them_all():
    episodes = _episodes(15, 4)
    assert at_most_in_scope(episodes, None) is episodes
    assert at_most_in_scope(episodes, 15) is episodes
