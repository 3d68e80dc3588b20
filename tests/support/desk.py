"""The tiny desk: 3 intents, an area question ending in "something else" and a yes/no question; with the
out-of-scope hypothesis, for the tests of "nothing fits" in the clarifier, the session, the CLI and the GUI."""

from __future__ import annotations

import numpy as np

from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.clarifier import Clarifier, ClarifierConfig
from assistant.clarification.out_of_scope import OutOfScopeModel
from assistant.clarification.stopping import ThresholdStop
from assistant.store import BINARY_OPTIONS, SOMETHING_ELSE, Domain, KnowledgeBase, Label, Question
from tests.support.tiny import KeywordPrior, TinyAgents

# a hand-set out-of-scope model: a flat prior (high entropy) and "something else" raise it
MODEL = OutOfScopeModel(weights=(-4.0, 2.0, -1.0), bias=0.0, other_prob=0.8, threshold=0.9, doubt=0.3)


def tiny_desk() -> Domain:
    """3 intents of a desk, an area question ending in "something else" and one yes/no question."""
    labels = [Label("pin", "Change my PIN"), Label("card", "Lost card"), Label("flight", "Book a flight")]
    questions = [
        Question("area", "Which area is it about?", "choice", "area", ("banking", "travel", SOMETHING_ELSE)),
        Question("card::yes", "Is it about a card?", "binary", "card", BINARY_OPTIONS),
    ]
    counts = np.zeros((2, 3, 3), dtype=np.float32)
    counts[0] = [[9, 9, 0.5], [0.5, 0.5, 9], [0.5, 0.5, 0.5]]
    counts[1, :2] = [[8, 9, 1], [2, 1, 9]]
    texts = ["change pin code", "lost my card", "book a flight to rome", "new pin", "card stolen", "flight tickets"]
    return Domain(
        "desk",
        "Desk",
        labels,
        questions,
        counts,
        texts,
        np.array([0, 1, 2, 0, 1, 2]),
        np.array(["train", "train", "train", "dev", "dev", "dev"]),
    )


class DeskAgents(TinyAgents):
    """The tiny desk with the out-of-scope hypothesis, stopping at 80% on a label."""

    def __init__(self) -> None:
        super().__init__(name="desk")
        self.domain = tiny_desk()
        with KnowledgeBase.create(self.name) as kb:
            kb.upsert_labels(self.domain.labels, "test")

    def clarifier(self, candidates="all", pace=None, shortlist_size=5, max_turns=10) -> Clarifier:
        model = AnswerModel(self.domain.p_hat(1.0), self.domain.option_mask)
        config = ClarifierConfig(max_turns=max_turns, shortlist_size=shortlist_size)
        return Clarifier(
            self.domain, KeywordPrior(self.domain), model, ThresholdStop(0.8), config=config, out_of_scope=MODEL
        )
