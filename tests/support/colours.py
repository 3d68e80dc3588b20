"""The four-colour bird domain of the encoder tests, written into a knowledge base (domain "colours")."""

from __future__ import annotations

from assistant.store import DomainData, KnowledgeBase, write_domain
from tests.assistant.training.test_encoder import make_colour_domain


def store_colour_domain() -> None:
    domain = make_colour_domain()
    annotations = [
        (label.key, question.tag, option, float(domain.counts[q, o, y]))
        for y, label in enumerate(domain.labels)
        for q, question in enumerate(domain.questions)
        for o, option in enumerate(question.options)
        if domain.counts[q, o, y] > 0
    ]
    queries = [
        (domain.labels[y].key, text, split)
        for text, y, split in zip(domain.query_texts, domain.query_labels, domain.query_splits)
    ]
    data = DomainData(
        name="colours",
        title="Colour birds",
        description="four birds told apart by colour",
        labels=domain.labels,
        questions=domain.questions,
        annotations=annotations,
        annotation_source="test",
        queries=queries,
    )
    with KnowledgeBase.create("colours") as kb:
        write_domain(kb, data)
