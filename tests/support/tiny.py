"""The tiny hand-checkable domain (4 birds, 2 yes/no questions, 1 three-way choice) and what drives it: a
keyword prior and ``TinyAgents``, the stand-in for ``ModelRegistry`` in session, CLI and GUI tests."""

from __future__ import annotations

import numpy as np

from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.clarifier import Clarifier, ClarifierConfig
from assistant.clarification.stopping import FixedTurns
from assistant.store import BINARY_OPTIONS, Domain, DomainData, KnowledgeBase, Label, Question
from tests.support import WordHashEncoder


def make_tiny_domain(supports_not_visible: bool = True) -> Domain:
    """4 labels, 2 binary questions and 1 three-way choice; counts chosen so answers are informative."""
    labels = [Label(f"k{i}", name) for i, name in enumerate(["Robin", "Crow", "Cardinal", "Gull"])]
    questions = [
        Question("has_color::red", "Is it red?", "binary", "has_color", BINARY_OPTIONS),
        Question("has_color::black", "Is it black?", "binary", "has_color", BINARY_OPTIONS),
        Question("has_size", "How big?", "choice", "has_size", ("small", "medium", "large")),
    ]
    counts = np.zeros((3, 3, 4), dtype=np.float32)
    counts[0, :2] = [[6, 0, 9, 1], [4, 10, 1, 9]]  # red: robin sometimes, cardinal mostly
    counts[1, :2] = [[1, 9, 2, 3], [9, 1, 8, 7]]  # black: crow
    counts[2, :3] = [[8, 1, 7, 0], [2, 7, 3, 3], [0, 2, 0, 7]]  # size
    texts = ["red breast small bird", "black bird", "bright red crest", "white seabird", "orange breast", "black crow"]
    return Domain(
        name="tiny",
        title="Tiny birds",
        labels=labels,
        questions=questions,
        counts=counts,
        query_texts=texts,
        query_labels=np.array([0, 1, 2, 3, 0, 1]),
        query_splits=np.array(["train", "train", "train", "train", "test", "test"]),
        supports_not_visible=supports_not_visible,
    )


class KeywordPrior:
    """A transparent prior for tests: +1 logit per query word found in the label's training queries."""

    name = "keywords"

    def __init__(self, domain: Domain) -> None:
        self.words = [set() for _ in domain.labels]
        texts, labels = domain.queries("train")
        for text, label in zip(texts, labels):
            self.words[label].update(text.split())

    def scores(self, texts):
        return np.array([[float(len(set(t.split()) & w)) for w in self.words] for t in texts], dtype=np.float32)


class TinyAgents:
    """What a Session needs from an model registry, assembled from the tiny domain: a keyword prior, the crowd
    answer model and a fixed number of questions. Writes the labels into the domain ``name``'s store."""

    text_prior = "keywords"
    default_pace = "quick"

    def __init__(self, turns: int = 2, name: str = "tiny") -> None:
        self.name = name
        self.domain = make_tiny_domain()
        self.text_encoder = WordHashEncoder()
        self.turns = turns
        with KnowledgeBase.create(self.name) as kb:
            kb.upsert_labels(self.domain.labels, "test")

    def clarifier(
        self, candidates: str = "all", pace: str | None = None, shortlist_size: int = 5, max_turns: int = 10
    ) -> Clarifier:
        model = AnswerModel(self.domain.p_hat(1.0), self.domain.option_mask)
        config = ClarifierConfig(max_turns=max_turns, shortlist_size=shortlist_size)
        return Clarifier(self.domain, KeywordPrior(self.domain), model, FixedTurns(self.turns), config=config)


# the tiny domain's question keys
RED, BLACK, SIZE = "has_color::red", "has_color::black", "has_size"


def tiny_data() -> DomainData:
    domain = make_tiny_domain()
    annotations = [
        (label.key, question.tag, option, float(domain.counts[q, r, y]))
        for q, question in enumerate(domain.questions)
        for r, option in enumerate(question.options)
        for y, label in enumerate(domain.labels)
    ]
    queries = [
        (domain.labels[y].key, t, s) for t, y, s in zip(domain.query_texts, domain.query_labels, domain.query_splits)
    ]
    return DomainData("tiny", "Tiny birds", "", domain.labels, domain.questions, annotations, "crowd", queries)
