"""BANKING77 -> the "banking" domain.

- Labels: the 77 intents (key "card_arrival", name "Card arrival"); no answer texts exist.
- Queries: the official train set (10% of each intent's queries, chosen by a seed derived from the
  intent, go to dev) and the official test set.
- Questions: induced from the intent names and training queries, the person model fitted on the dev
  queries, marked induced (see assistant.induction.induction); importing crowd annotations replaces them.
- Out of scope: dev and test queries from faq and CLINC150 that no banking intent answers
  (added by assistant.sources.adapters.out_of_scope_queries), stored apart from the labelled queries.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict

from assistant.errors import ConfigError
from assistant.sources.adapters.induced import heldout_answers, induced_questions
from assistant.sources.adapters.splits import label_rng, texts_by_label
from assistant.sources.bundled import bundled_file
from assistant.store import DomainData, Label

DATASET = "banking77"
DEV_FRACTION = 0.1


def intent_name(key: str) -> str:
    """'card_arrival' -> 'Card arrival'."""
    text = key.replace("_", " ").strip()
    return text[:1].upper() + text[1:]


def _read_split(name: str, known: set[str]) -> dict[str, list[str]]:
    path = bundled_file(DATASET, f"{name}.csv")
    by_intent: dict[str, list[str]] = defaultdict(list)
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames != ["text", "category"]:
            raise ConfigError(f"{path}: expected columns text,category, got {reader.fieldnames}")
        for line, row in enumerate(reader, start=2):
            if row["category"] not in known:
                raise ConfigError(f"{path}:{line}: unknown intent {row['category']!r}")
            text = " ".join(row["text"].split())
            if text:
                by_intent[row["category"]].append(text)
    return by_intent


def read_queries() -> tuple[list[str], list[tuple[str, str, str]]]:
    """The 77 intent keys and the queries as (intent, text, split) rows: the official train set less 10%
    of each intent's queries (chosen by a seed derived from the intent) for dev, and the official test set."""
    keys = json.loads(bundled_file(DATASET, "categories.json").read_text(encoding="utf-8"))
    known = set(keys)
    train, test = _read_split("train", known), _read_split("test", known)
    queries: list[tuple[str, str, str]] = []  # (label key, text, split)
    for key in keys:
        texts = list(dict.fromkeys(train[key]))
        order = label_rng(key, "split").permutation(len(texts))
        n_dev = max(1, round(DEV_FRACTION * len(texts)))
        dev_ids = set(order[:n_dev].tolist())
        queries.extend((key, text, "dev" if i in dev_ids else "train") for i, text in enumerate(texts))
        seen = set(texts)
        queries.extend((key, text, "test") for text in dict.fromkeys(test[key]) if text not in seen)
    return keys, queries


def load() -> DomainData:
    keys, queries = read_queries()
    labels = [Label(key=k, name=intent_name(k), text=intent_name(k)) for k in keys]
    train_texts = texts_by_label(keys, queries, "train")
    dev_texts = texts_by_label(keys, queries, "dev")
    questions, annotations, induced_meta = induced_questions(labels, train_texts, dev_texts)
    return DomainData(
        name="banking",
        title="Banking (BANKING77)",
        description="Route a banking customer's question to one of 77 intents.",
        labels=labels,
        questions=questions,
        annotations=annotations,
        annotation_source="induced",
        queries=queries,
        heldout=heldout_answers(labels, questions, queries),
        meta={**induced_meta, "citation": "Casanueva et al. 2020 (BANKING77, CC BY 4.0)"},
    )
