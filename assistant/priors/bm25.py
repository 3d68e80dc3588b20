"""BM25 as a text prior: the "no interaction (BM25)" baseline of IC Table 1."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from assistant.priors.base import centroid_applicable, check_texts
from assistant.priors.calibration import tune_temperature
from assistant.store import Domain
from assistant.text.bm25 import BM25Index, bm25_tokens
from assistant.text.label_text import LabelTextConfig, label_documents


class BM25Prior:
    """The "no interaction (BM25)" baseline (bm25s): label documents [+ the label's training queries] as the
    corpus, BM25 scores / T as logits (T tuned on dev NLL)."""

    name = "bm25"

    def __init__(self, index: BM25Index, num_labels: int, temperature: float = 1.0) -> None:
        self.index = index
        self.num_labels = num_labels
        self.temperature = temperature

    @classmethod
    def fit(cls, agent: Domain, text: LabelTextConfig | None = None, centroid: str = "auto") -> BM25Prior:
        """Fit on ``agent``, the agent's view of a domain."""
        docs = label_documents(agent, agent.p_hat(), text)
        if centroid == "on" or (centroid == "auto" and centroid_applicable(agent)):
            extra: list[list[str]] = [[] for _ in docs]
            for t, y in zip(*agent.queries("train")):
                extra[y].append(t)
            docs = [" ".join([d, *e]) for d, e in zip(docs, extra)]
        prior = cls(BM25Index(bm25_tokens(docs)), agent.num_labels)
        dev_texts, dev_labels = agent.queries("dev")
        if len(dev_texts):
            prior.temperature = tune_temperature(prior.scores(dev_texts), dev_labels)
        return prior

    def scores(self, texts: Sequence[str]) -> np.ndarray:
        """[N, Y] float32 logits (0 for every label when no query word is in the corpus)."""
        texts = check_texts(texts)
        out = np.stack([self.index.scores(words) for words in bm25_tokens(texts)]).astype(np.float32)
        return out / self.temperature
