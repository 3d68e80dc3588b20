"""Simulated conversations to run: a target label, the initial query and a seed for the user's answers.

``sample_episodes`` draws them from a split of the stored queries; ``episodes_from_file`` reads them from
a TSV of the researcher's own (label, query) rows.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from assistant.errors import ConfigError, UnknownLabelError
from assistant.store import Domain


@dataclass(frozen=True)
class EpisodeSpec:
    """One simulated conversation: the target label (domain index), the initial query, the answer seed, and
    what kind of first query it is (``assistant.simulation.queries``: "crowd", "window", ...)."""

    target: int
    query: str
    seed: int
    kind: str = "crowd"


def sample_episodes(
    domain: Domain,
    count: int,
    seed: int,
    split: str = "test",
    targets: Sequence[int] | None = None,
) -> list[EpisodeSpec]:
    """``count`` episodes: target uniform over ``targets`` (default: labels with queries in ``split``),
    query uniform among the target's queries in ``split``."""
    if count < 1:
        raise ConfigError(f"the number of episodes must be at least 1, got {count}")
    texts, labels = domain.queries(split)
    by_label: dict[int, list[str]] = {}
    for text, label in zip(texts, labels):
        by_label.setdefault(int(label), []).append(text)
    pool = sorted(by_label) if targets is None else [int(t) for t in targets if int(t) in by_label]
    if not pool:
        raise ConfigError(
            f"domain {domain.name!r} has no {split} queries for the chosen targets: rebuild the domain or "
            "pass --queries FILE"
        )
    rng = np.random.default_rng(seed)
    chosen = rng.choice(pool, size=count)
    episodes = []
    for target in chosen:
        queries = by_label[int(target)]
        episodes.append(EpisodeSpec(int(target), queries[int(rng.integers(len(queries)))], int(rng.integers(2**31))))
    return episodes


def episodes_from_file(domain: Domain, path: str | Path, count: int | None, seed: int) -> list[EpisodeSpec]:
    """Episodes from a TSV with columns ``label`` and ``query`` (labels matched leniently, see
    ``normalize_label_name``); rows are used in order and repeated to reach ``count``."""
    path = Path(path)
    try:
        handle = path.open(encoding="utf-8", newline="")
    except FileNotFoundError as exc:
        raise ConfigError(f"queries file {path} does not exist: give a TSV with columns 'label' and 'query'") from exc
    rows = []
    with handle:
        reader = csv.DictReader(handle, delimiter="\t")
        if not reader.fieldnames or not {"label", "query"} <= {f.strip().lower() for f in reader.fieldnames}:
            raise ConfigError(f"{path}: expected a tab-separated header with columns 'label' and 'query'")
        fields = {f.strip().lower(): f for f in reader.fieldnames}
        for line, row in enumerate(reader, start=2):
            label, query = (row.get(fields["label"]) or "").strip(), (row.get(fields["query"]) or "").strip()
            if not query:
                raise ConfigError(f"{path}:{line}: the query is empty; write the user's query in the 'query' column")
            try:
                rows.append((domain.label_index(label), query))
            except UnknownLabelError as exc:
                raise ConfigError(f"{path}:{line}: {exc}") from exc
    if not rows:
        raise ConfigError(f"{path} has no rows: add lines '<label>\\t<query>' below the header")
    count = count or len(rows)
    rng = np.random.default_rng(seed)
    return [EpisodeSpec(rows[i % len(rows)][0], rows[i % len(rows)][1], int(rng.integers(2**31))) for i in range(count)]
