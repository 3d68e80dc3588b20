"""Adapters from the bundled real data sets to knowledge bases.

Each adapter reads its raw files and returns an ``assistant.store.DomainData``; ``build_domain`` writes it
into the domain's SQLite file in one transaction (``assistant.store.write_domain``); a first build goes into a
file of its own, renamed into place when it is complete (``assistant.store.new_knowledge_base``).
"""

from assistant.sources.adapters.registry import BUNDLED_DOMAINS, adapters, build_domain
from assistant.sources.adapters.splits import label_rng, split_counts, texts_by_label

__all__ = ["BUNDLED_DOMAINS", "adapters", "build_domain", "label_rng", "split_counts", "texts_by_label"]
