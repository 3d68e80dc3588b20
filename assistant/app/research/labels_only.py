"""The labels-only protocol (issue 25): a bundled domain rebuilt from its label texts alone, as a desk's FAQ
would be, and evaluated on the bundled domain's real held-out queries.

- faq: each StackFAQ entry's title and answers, nothing else (no crowd queries, no tags) ->
  domain ``faq-texts``;
- banking, clinc (no answer texts): each intent's name and ``k`` of its training queries as the entry's
  description (a few-shot start) -> ``banking-k5``, ``clinc-k5``.

The rebuilt domain goes through the same path as a desk's FAQ (assistant.sources.own_faq.building: questions
induced from the texts, queries synthesized from them, out-of-scope examples from the *other* bundled
domains). Then the bundled domain's real **test** queries (crowd and out-of-scope) are attached, with their
own source (``REAL_TEST_SOURCE``) and split, so that `clarify evaluate` plays them: nothing is trained or
tuned on them. ``confirmed_sessions`` simulates learning from use: ``n`` (query, label) pairs drawn from the
bundled domain's *training* queries (which the rebuilt domain never saw) are stored as accepted sessions'
queries would be.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path

import numpy as np

from assistant.errors import ConfigError
from assistant.progress import Progress
from assistant.settings import PROTOCOL_DOMAINS
from assistant.sources.adapters import label_rng
from assistant.sources.own_faq import FaqEntry
from assistant.sources.own_faq.building import faq_domain_data
from assistant.store import KnowledgeBase, Label, write_domain

REAL_TEST_SOURCE = "bundled-test"
SESSION_SOURCE = "session"  # as assistant.app.desk.learning stores accepted sessions' queries
OUT_OF_SCOPE_EXCLUDE = {"faq": ("faq",), "banking": ("banking",), "clinc": ("clinc", "clinc-oos")}


def protocol_name(source: str, k: int | None) -> str:
    """The rebuilt domain's name: 'faq-texts', 'banking-k5'."""
    return f"{source}-texts" if k is None else f"{source}-k{k}"


def _source_data(source: str):
    """(labels, queries, out-of-scope rows, categories by key) of a bundled domain, from its adapter's files."""
    from assistant.sources.adapters import banking77, clinc150, stackfaq
    from assistant.sources.adapters.out_of_scope_queries import draw_out_of_scope, in_scope_counts

    if source == "faq":
        labels, queries = stackfaq.read_threads()
        return labels, queries, draw_out_of_scope("faq", in_scope_counts(queries)), {}
    if source == "banking":
        keys, queries = banking77.read_queries()
        labels = [Label(k, banking77.intent_name(k)) for k in keys]
        return labels, queries, draw_out_of_scope("banking", in_scope_counts(queries)), {}
    if source == "clinc":
        areas = clinc150.read_areas()
        queries, _texts, oos = clinc150.read_queries(areas)
        keys = list(dict.fromkeys(k for k, _t, _s in queries))
        labels = [Label(k, clinc150.intent_name(k)) for k in keys]
        return labels, queries, oos, {k: clinc150.readable(areas[k]) for k in keys}
    raise ConfigError(f"the labels-only protocol runs on {', '.join(PROTOCOL_DOMAINS)}, not {source!r}")


def protocol_entries(source: str, k: int | None = None) -> tuple[list[FaqEntry], list, list]:
    """(entries, the source's (label, text, split) queries, its (text, split) out-of-scope queries)."""
    labels, queries, out_of_scope, categories = _source_data(source)
    if k is None and not any(label.answers for label in labels):
        raise ConfigError(f"{source} has no answer texts: run its labels-only protocol with k examples (--k 5)")
    examples: dict[str, list[str]] = {}
    if k is not None:
        if k < 1:
            raise ConfigError(f"k must be at least 1, got {k}")
        for label in labels:
            train = [t for key, t, s in queries if key == label.key and s == "train"]
            order = label_rng(label.key, "k-shot").permutation(len(train))
            examples[label.key] = [train[i] for i in order[:k]]
    entries = [
        FaqEntry(
            key=label.key,
            title=label.name,
            answers=tuple(label.answers),
            description="\n".join(examples.get(label.key, [])),
            category=categories.get(label.key, ""),
        )
        for label in labels
    ]
    return entries, queries, out_of_scope


def build_labels_only_job(source: str, k: int | None = None) -> Generator[Progress, None, dict]:
    """Build (afresh) the labels-only domain of ``source`` and attach its real test queries; returns stats."""
    from assistant import paths

    name = protocol_name(source, k)
    yield Progress(0, 3, f"reading the {source} texts" + (f" and {k} examples per label" if k else ""))
    entries, queries, out_of_scope = protocol_entries(source, k)
    data = faq_domain_data(
        name,
        entries,
        title=f"{source}, labels only" + (f" (k = {k})" if k else ""),
        out_of_scope_exclude=OUT_OF_SCOPE_EXCLUDE[source],
        meta={"own_faq": "true", "labels_only_protocol": source, "labels_only_k": str(k or "")},
    )
    yield Progress(1, 3, f"writing {name}: {len(data.labels)} entries, {len(data.questions)} questions")
    for suffix in ("", "-wal", "-shm"):  # afresh: the protocol starts from the texts every time
        path = paths.domain_db_path(name)
        path.with_name(path.name + suffix).unlink(missing_ok=True)
    with KnowledgeBase.create(name) as kb:
        write_domain(kb, data)
        ids = kb.label_ids()
        test = [(ids[key], text, "test", REAL_TEST_SOURCE, "") for key, text, split in queries if split == "test"]
        with kb.transaction():
            kb.add_queries(test)
            kb.replace_out_of_scope_queries([(t, s) for t, s in out_of_scope if s == "test"], REAL_TEST_SOURCE)
        stats = kb.stats()
    yield Progress(3, 3, f"built {name}")
    return stats


def confirmed_sessions(name: str, source: str, n: int, seed: int = 0) -> int:
    """Store ``n`` simulated confirmed sessions in domain ``name``: (query, label) pairs drawn from
    ``source``'s training queries, as accepted sessions' queries are stored (train split, source
    ``SESSION_SOURCE``); replaces earlier simulated ones. Returns how many were stored."""
    _labels, queries, _oos, _categories = _source_data(source)
    train = [(key, text) for key, text, split in queries if split == "train"]
    rng = np.random.default_rng(seed)
    picked = [train[i] for i in rng.choice(len(train), size=min(n, len(train)), replace=False)]
    with KnowledgeBase.open(name) as kb, kb.transaction():
        ids = kb.label_ids()
        kb.delete_queries(SESSION_SOURCE)
        return kb.add_queries([(ids[key], text, "train", SESSION_SOURCE, "") for key, text in picked])


DESK_QUERIES = Path(__file__).resolve().parents[3] / "benchmarks" / "desk_queries"


def _rows(report, wanted: tuple[str, ...]) -> dict[str, dict]:
    """{system: {acc1, acc3, mean_turns}} of the systems of ``wanted`` in an evaluation report."""
    out = {}
    for row in report.rows:
        name = row["system"] + (f"_{row['turns']}" if row["system"] == "fixed_turns" else "")
        if name in wanted:
            out[name] = {k: round(float(row[k]), 4) for k in ("acc1", "acc3", "mean_turns")}
    return out


TABLE_SYSTEMS = ("ours", "threshold", "fixed_turns_4", "no_interaction_neural", "no_interaction_bm25")


def evaluate_labels_only_job(
    source: str,
    k: int | None = None,
    episodes: int = 2000,
    seed: int = 0,
    sessions: tuple[int, ...] = (0, 50, 200),
    rebuild: bool = True,
) -> Generator[Progress, None, dict]:
    """The labels-only protocol of ``source`` (module docstring): build, prepare through the cold-start path,
    evaluate on the real test queries (crowd, vague, and the desk file where one exists; the out-of-scope
    test queries), then again after ``sessions`` simulated confirmed sessions were fed back. Returns
    {"domain", "prepared", "tables": {sessions: {queries: {system: figures}}}, "out_of_scope": ...}."""
    from assistant.app.desk.domains import prepare
    from assistant.app.lifecycle.out_of_scope_jobs import evaluate_out_of_scope_job
    from assistant.app.research.research import evaluate_job
    from assistant.evaluation.clarifier import SYSTEMS

    name = protocol_name(source, k)
    if rebuild:
        yield from build_labels_only_job(source, k)
    prepared = yield from prepare(name, seed=seed)
    desk = DESK_QUERIES / f"{source}.tsv"
    settings = ["crowd", "vague"] + ([str(desk)] if desk.exists() else [])
    systems = tuple(s for s in SYSTEMS if s in ("ours", "threshold", "fixed_turns") or s.startswith("no_interaction"))
    result: dict = {"domain": name, "source": source, "k": k, "prepared": prepared, "episodes": episodes}
    result["tables"], result["out_of_scope"], result["sessions_prepared"] = {}, {}, {}
    for n in sessions:
        if n:
            stored = confirmed_sessions(name, source, n, seed)
            yield Progress(0, 0, f"{stored} simulated confirmed sessions fed back: updating the models")
            result["sessions_prepared"][n] = yield from prepare(name, seed=seed)
        table = {}
        for queries in settings:
            report = yield from evaluate_job(name, episodes=episodes, seed=seed, systems=systems, queries=queries)
            table["desk" if queries == str(desk) else queries] = _rows(report, TABLE_SYSTEMS)
        result["tables"][n] = table
        oos = yield from evaluate_out_of_scope_job(name, seed=seed)
        result["out_of_scope"][n] = oos["rows"]
    return result


__all__ = [
    "build_labels_only_job",
    "confirmed_sessions",
    "evaluate_labels_only_job",
    "protocol_entries",
    "protocol_name",
]
