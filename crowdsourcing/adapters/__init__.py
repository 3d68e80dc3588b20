"""Adapters from the bundled real data sets to knowledge bases.

Each adapter reads its raw files and returns an ``assistant.store.DomainData``; ``build_domain`` writes it
into the domain's SQLite file in one transaction (``assistant.store.write_domain``); a first build goes into a
file of its own, renamed into place when it is complete (``assistant.store.new_knowledge_base``).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Generator

import numpy as np

from assistant import paths
from assistant.errors import DomainNotFoundError
from assistant.progress import Progress
from assistant.store import DomainData, new_knowledge_base, write_domain


def label_rng(key: str, salt: str = "") -> np.random.Generator:
    """A random generator seeded by a label key, so that per-label splits are stable across builds."""
    return np.random.default_rng(zlib.crc32(f"{salt}{key}".encode()))


def split_counts(n: int, dev: float, test: float) -> tuple[int, int, int]:
    """(train, dev, test) sizes for ``n`` items: at least one test and, with 3+ items, one dev item."""
    if n <= 1:
        return n, 0, 0
    n_test = max(1, round(test * n))
    n_dev = max(1, round(dev * n)) if n - n_test >= 2 and dev > 0 else 0
    return n - n_test - n_dev, n_dev, n_test


def texts_by_label(keys: list[str], queries: list[tuple[str, str, str]], split: str) -> list[list[str]]:
    """The texts of ``split`` of each label in ``keys``, from (label key, text, split) query rows."""
    found: dict[str, list[str]] = {key: [] for key in keys}
    for key, text, s in queries:
        if s == split:
            found[key].append(text)
    return [found[key] for key in keys]


def _adapters() -> dict[str, Callable[[], DomainData]]:
    from crowdsourcing.adapters import banking77, clinc150, cub, stackfaq
    from crowdsourcing.adapters.out_of_scope import with_out_of_scope

    return {
        "birds": cub.load,
        "faq": with_out_of_scope("faq", stackfaq.load),
        "banking": with_out_of_scope("banking", banking77.load),
        "clinc": clinc150.load,
    }


BUNDLED_DOMAINS: dict[str, str] = {
    "birds": "CUB-200-2011 bird species: 200 labels, attribute questions from crowd percentages, captions as queries",
    "faq": "StackFAQ: 125 FAQs with answers, crowd paraphrases as queries, induced tags",
    "banking": "BANKING77: 77 banking intents, customer queries, induced tags",
    "clinc": "CLINC150: 150 assistant intents in 10 areas (an area question), out-of-scope queries, induced tags",
}


def build_domain(name: str) -> Generator[Progress, None, dict]:
    """Build (or refresh) the bundled domain ``name``; yields progress, returns the store's stats."""
    adapters = _adapters()
    if name not in adapters:
        raise DomainNotFoundError(
            f"no bundled domain {name!r}: choose one of {', '.join(sorted(adapters))}, or make one from your own FAQ "
            "with `clarify domain create NAME --from FILE`"
        )
    yield Progress(0, 3, f"reading the bundled {name} files")
    # opened first: a damaged file or an unusable CLARIFY_HOME stops us before work; a first build is written
    # under a temporary name and appears (renamed into place) only once it is complete
    with new_knowledge_base(name) as kb:
        data = adapters[name]()
        yield Progress(1, 3, f"writing {len(data.labels)} labels and {len(data.questions)} questions")
        write_domain(kb, data)
        yield Progress(2, 3, "checking the result")
        kb.load_domain()  # fails loudly if what was written is inconsistent
        stats = {**kb.stats(), "path": str(paths.domain_db_path(name))}  # where it is once renamed into place
    yield Progress(3, 3, f"built {name}")
    return stats
