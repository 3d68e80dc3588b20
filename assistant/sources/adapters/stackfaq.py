"""StackFAQ -> the "faq" domain.

- Labels: the 125 FAQ threads (key "faq-001" ...), named by their StackExchange question title, with
  their top answers attached.
- Queries: the crowd paraphrases (placeholders "*" dropped), split per FAQ into train (60%), dev (10%,
  at least one when there are enough) and test (30%, at least one), shuffled by a seed derived from the
  label key so that builds are stable.
- Questions: no crowd tags exist, so questions are induced from each FAQ's title and training queries (not
  its answers: users know what they ask, not the words of the answer), with the person model's error rate
  fitted on the dev queries (see assistant.induction.induction), and marked induced; importing crowd annotations
  replaces them.
- Out of scope: dev and test queries from banking and CLINC150 that no FAQ answers
  (added by assistant.sources.adapters.out_of_scope_queries), stored apart from the labelled queries.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from assistant.errors import ConfigError
from assistant.sources.adapters.induced import heldout_answers, induced_questions
from assistant.sources.adapters.splits import label_rng, split_counts, texts_by_label
from assistant.sources.bundled import bundled_file
from assistant.store import DomainData, Label

DATASET = "stackfaq"
DEV_FRACTION = 0.1
TEST_FRACTION = 0.3


def _clean(text: str | None) -> str:
    return " ".join((text or "").split())


def _title(text: str | None) -> str:
    """The question title without StackExchange's moderation suffixes ("[closed]", "[duplicate]")."""
    return re.sub(r"\s*\[(closed|duplicate|on hold|migrated)\]\s*$", "", _clean(text), flags=re.IGNORECASE)


def read_threads() -> tuple[list[Label], list[tuple[str, str, str]]]:
    """The 125 FAQ labels and their paraphrases as (label key, text, split) rows."""
    path = bundled_file(DATASET, "stackExchange-FAQ.xml")
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise ConfigError(f"{path} is not valid XML ({exc}): reinstall Clarify") from exc
    labels, queries = [], []
    for number, pair in enumerate(root.findall("qapair"), start=1):
        key = f"faq-{number:03d}"
        title = _title(pair.findtext("question"))
        answers = tuple(a for a in (_clean(el.text) for el in pair.findall("answer")) if a)
        labels.append(Label(key=key, name=title, text=title, answers=answers))
        paraphrases = list(
            dict.fromkeys(t for t in (_clean(el.text) for el in pair.findall("rephr")) if t and t != "*")
        )
        order = label_rng(key, "split").permutation(len(paraphrases))
        n_train, n_dev, _ = split_counts(len(paraphrases), DEV_FRACTION, TEST_FRACTION)
        for rank, i in enumerate(order):
            split = "train" if rank < n_train else "dev" if rank < n_train + n_dev else "test"
            queries.append((key, paraphrases[i], split))
    return labels, queries


def load() -> DomainData:
    labels, queries = read_threads()
    train_texts = texts_by_label([label.key for label in labels], queries, "train")
    dev_texts = texts_by_label([label.key for label in labels], queries, "dev")
    questions, annotations, induced_meta = induced_questions(labels, train_texts, dev_texts)
    return DomainData(
        name="faq",
        title="Web services FAQ",  # what a person reads ("nothing in Web services FAQ fits"); the source is cited below
        description="Find the right answer among 125 frequently asked questions about web services and software.",
        labels=labels,
        questions=questions,
        annotations=annotations,
        annotation_source="induced",
        queries=queries,
        heldout=heldout_answers(labels, questions, queries),
        meta={**induced_meta, "citation": "Karan & Snajder 2018 (StackFAQ); StackExchange content CC BY-SA"},
    )
