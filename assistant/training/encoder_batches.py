"""Training batches of the SRU encoder (``assistant.training.encoder``): (text, label) pairs drawn from the
agent's view of a domain, and the labels each step scores."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from assistant.errors import ConfigError
from assistant.simulation.queries import VagueQueries, VagueQueryMix
from assistant.store import Domain
from assistant.text.label_text import characteristic_tags, option_phrase, tag_answer_texts


class PairSampler:
    """Draws training batches (texts, label indices) from the agent's view of a domain; ``config`` is the
    training's ``EncoderTrainConfig``."""

    def __init__(self, agent: Domain, p_hat: np.ndarray, config, rng: np.random.Generator):
        self.rng = rng
        self.config = config
        self.p_hat = p_hat
        self.queries, self.query_labels = agent.queries("train")
        self.tag_texts, self.tag_slots = tag_answer_texts(agent)
        wide = replace(config.text, max_tags=max(config.text.max_tags, 40))
        self.tags = [
            [option_phrase(agent.questions[q], r) for q, r in row] for row in characteristic_tags(agent, p_hat, wide)
        ]
        self.num_labels = agent.num_labels
        self.vague = VagueQueries(agent) if config.vague_share > 0 and len(self.queries) else None
        mix = VagueQueryMix()
        self.vague_kinds = [k for k in mix.kinds if k != "crowd"]
        weights = np.array([mix.proportions[k] for k in self.vague_kinds], dtype=np.float64)
        self.vague_weights = weights / weights.sum()

    def _query(self, i: int) -> str:
        """Training query ``i``, or with probability ``vague_share`` a vague version of it (the vague mix's
        kinds other than the crowd query itself: what people first type)."""
        if self.vague is None or self.rng.random() >= self.config.vague_share:
            return self.queries[i]
        kind = self.vague_kinds[int(self.rng.choice(len(self.vague_kinds), p=self.vague_weights))]
        return self.vague.make(self.queries[i], int(self.query_labels[i]), kind, self.rng)[0]

    def _tag_pairs(self, n: int) -> tuple[list[str], list[int]]:
        picks = self.rng.integers(len(self.tag_slots), size=n)
        texts, labels = [], []
        for k in picks:
            q, r = self.tag_slots[k]
            weights = self.p_hat[q, r].astype(np.float64)
            labels.append(int(self.rng.choice(self.num_labels, p=weights / weights.sum())))
            texts.append(self.tag_texts[k])
        return texts, labels

    def _some_tags(self, label: int, low: int, high: int) -> list[str]:
        pool = self.tags[label]
        if not pool:
            return []
        k = min(len(pool), int(self.rng.integers(low, high + 1)))
        return [pool[i] for i in self.rng.choice(len(pool), size=k, replace=False)]

    def _pseudo(self, n: int) -> tuple[list[str], list[int]]:
        texts, labels = [], []
        for _ in range(n):
            if len(self.queries) == 0 or self.rng.random() < self.config.tag_only:
                label = int(self.rng.integers(self.num_labels))
                phrases = self._some_tags(label, 2, self.config.pseudo_tags + 2)
                if not phrases:
                    continue
                texts.append(", ".join(phrases))
            else:
                i = int(self.rng.integers(len(self.queries)))
                label = int(self.query_labels[i])
                texts.append(
                    " . ".join([self.queries[i], ", ".join(self._some_tags(label, 1, self.config.pseudo_tags))])
                )
            labels.append(label)
        return texts, labels

    def batch(self) -> tuple[list[str], np.ndarray]:
        texts: list[str] = []
        labels: list[int] = []
        if len(self.queries) and self.config.batch_queries:
            idx = self.rng.integers(len(self.queries), size=self.config.batch_queries)
            texts += [self._query(int(i)) for i in idx]
            labels += [int(self.query_labels[i]) for i in idx]
        if len(self.tag_slots) and self.config.batch_tags:
            t, y = self._tag_pairs(self.config.batch_tags)
            texts += t
            labels += y
        if self.config.batch_pseudo:
            t, y = self._pseudo(self.config.batch_pseudo)
            texts += t
            labels += y
        if not texts:
            raise ConfigError("no training pairs: the domain has neither training queries nor tags")
        return texts, np.asarray(labels, dtype=np.int64)


def label_subset(labels: np.ndarray, num_labels: int, negatives: int, rng: np.random.Generator) -> np.ndarray:
    """Label indices scored in one step: all labels, or the batch's labels plus ``negatives`` sampled ones."""
    if num_labels <= negatives + 1:
        return np.arange(num_labels)
    positives = np.unique(labels)
    others = np.setdiff1d(np.arange(num_labels), positives)
    extra = rng.choice(others, size=min(negatives, len(others)), replace=False)
    return np.sort(np.concatenate([positives, extra]))
