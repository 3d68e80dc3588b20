"""Simulated conversations to run: a target label, the initial query and a seed for the user's answers.

``sample_episodes`` draws them from a split of the stored queries; ``episodes_from_file`` reads them from
a TSV of the researcher's own (label, query) rows.
"""

from __future__ import annotations

import csv
import io
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from assistant.clarification.query_check import check_query
from assistant.errors import ClarifyError, ConfigError, UnknownLabelError
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
    targets: Sequence[int] | np.ndarray | None = None,
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


OUT_OF_SCOPE_LABEL = "out_of_scope"


def episodes_from_file(
    domain: Domain, path: str | Path, count: int | None, seed: int, out_of_scope: bool = False, repeats: int = 1
) -> list[EpisodeSpec]:
    """Episodes from a TSV with columns ``label`` and ``query`` (labels matched leniently, see
    ``normalize_label_name``); rows are used in order and repeated to reach ``count`` (default: ``repeats``
    passes over the file, each row with new answer draws). With ``out_of_scope``
    the label ``out_of_scope`` marks a query that no label answers (target = the number of labels, kind
    "out_of_scope"; the others get kind "in_scope")."""
    path = Path(path)
    reader = csv.DictReader(io.StringIO(_read_queries_text(path), newline=""), delimiter="\t")
    rows = []
    try:
        if not reader.fieldnames or not {"label", "query"} <= {f.strip().lower() for f in reader.fieldnames}:
            raise ConfigError(f"{path}: expected a tab-separated header with columns 'label' and 'query'")
        fields = {f.strip().lower(): f for f in reader.fieldnames}
        for row in reader:
            line = reader.line_num
            label, query = (row.get(fields["label"]) or "").strip(), (row.get(fields["query"]) or "").strip()
            try:
                if out_of_scope and label.lower() == OUT_OF_SCOPE_LABEL:
                    rows.append((domain.num_labels, check_query(query)))
                else:
                    rows.append((domain.label_index(label), check_query(query)))
            except (ClarifyError, UnknownLabelError) as exc:
                raise ConfigError(f"{path}:{line}: {exc}") from exc
    except csv.Error as exc:
        line = reader.line_num
        if "field limit" in str(exc):
            raise ConfigError(
                f"{path}:{line}: a field is longer than 128 KiB: a query is a few words; check for an unclosed quote"
            ) from exc
        raise ConfigError(f"{path}:{line}: not a valid TSV file ({exc})") from exc
    if not rows:
        raise ConfigError(f"{path} has no rows: add lines '<label>\\t<query>' below the header")
    count = count or repeats * len(rows)
    rng = np.random.default_rng(seed)
    episodes = []
    for i in range(count):
        target, query = rows[i % len(rows)]
        kind = ("out_of_scope" if target == domain.num_labels else "in_scope") if out_of_scope else "crowd"
        episodes.append(EpisodeSpec(target, query, int(rng.integers(2**31)), kind))
    return episodes


MAX_QUERIES_FILE_BYTES = 64 * 1024 * 1024


def _read_queries_text(path: Path) -> str:
    """The UTF-8 text of a queries file; ConfigError (saying what to do) for a missing, non-regular (a FIFO,
    /dev/zero), oversized or non-UTF-8 file."""
    hint = "give a UTF-8 TSV file with columns 'label' and 'query'"
    try:
        info = path.stat()
    except FileNotFoundError as exc:
        raise ConfigError(f"queries file {path} does not exist: {hint}") from exc
    except OSError as exc:
        raise ConfigError(f"cannot read the queries file {path} ({exc.strerror}): {hint}") from exc
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"queries file {path} is not a regular file (a folder, pipe or device): {hint}")
    if info.st_size > MAX_QUERIES_FILE_BYTES:
        raise ConfigError(f"queries file {path} is larger than 64 MiB: {hint}")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read the queries file {path} ({exc.strerror}): {hint}") from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        encoding = "UTF-16" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else "probably Latin-1 or Windows-1252"
        raise ConfigError(f"{path}:{line}: the file is not UTF-8 ({encoding}): save it as UTF-8 and try again") from exc
