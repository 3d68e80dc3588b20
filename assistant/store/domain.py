"""Domain objects: labels, questions and their answer options, loaded as numpy arrays.

A *domain* is one knowledge base: the labels a query can resolve to (FAQ entries, bird species,
intents), the questions Clarify may ask about them, crowd annotations of which answer fits which label,
and example user queries. ``assistant.store`` reads a whole domain in one call into a ``Domain``; the
engine then works on its arrays and never queries the database row by row.

Shapes (Y labels, Q questions, R = max options over questions)::

    counts       [Q, R, Y] float32   summed annotation counts per answer option
    option_mask  [Q, R]    bool      which option slots exist for each question
"""

from __future__ import annotations

import dataclasses
import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from assistant.errors import ConfigError, UnknownLabelError

QuestionKind = Literal["binary", "choice"]
BINARY_OPTIONS: tuple[str, str] = ("yes", "no")
# the last option of an induced multiple-choice question: none of the values listed applies
SOMETHING_ELSE = "something else"
# the meta entry where a desk's build stores its near-synonym value pairs, [[kind, shown, shown], ...]: written by
# assistant.sources.own_faq.building, read by assistant.clarification.kinship
SIMILAR_TAGS = "similar_tags"
SPLITS: tuple[str, ...] = ("train", "dev", "test")


@dataclass(frozen=True)
class Label:
    """One possible answer to a query.

    ``key`` is stable and unique ("017.Cardinal", "card_arrival"); ``name`` is for display; ``text`` is a
    description (the FAQ question); ``answers`` are attached answer texts or documents.
    """

    key: str
    name: str
    text: str = ""
    answers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Question:
    """A clarifying question about a tag.

    Binary questions have options ("yes", "no"); multiple-choice questions one option per value of their
    group. ``group`` ties binary questions about the same attribute together (birds: "has_wing_color"),
    so that "not visible" can retire the whole group. ``induced`` marks questions whose annotations were
    induced automatically from texts rather than given by people.
    """

    tag: str
    text: str
    kind: QuestionKind
    group: str
    options: tuple[str, ...]
    induced: bool = False

    def __post_init__(self) -> None:
        if self.kind not in ("binary", "choice"):
            raise ConfigError(f"question {self.tag!r}: kind must be 'binary' or 'choice', not {self.kind!r}")
        if self.kind == "binary" and tuple(self.options) != BINARY_OPTIONS:
            raise ConfigError(f"binary question {self.tag!r} must have options {BINARY_OPTIONS}")
        if self.kind == "choice" and len(self.options) < 2:
            raise ConfigError(f"multiple-choice question {self.tag!r} needs at least two options")
        if len(set(self.options)) != len(self.options):
            raise ConfigError(f"question {self.tag!r} has repeated options: {self.options}")


def normalize_label_name(name: str) -> str:
    """Canonical form used to match user-supplied label names to domain labels.

    Case, punctuation, spaces, underscores and a leading numeric id are ignored, so "017.Cardinal",
    "cardinal" and "Cardinal" all give "cardinal"; "card_arrival" and "Card arrival" give "cardarrival".
    """
    text = unicodedata.normalize("NFKD", str(name)).casefold().strip()
    text = re.sub(r"^\d+\s*[.:)\-_ ]\s*", "", text)
    return re.sub(r"[\W_]+", "", text)


@dataclass
class Domain:
    """A whole knowledge base in memory, ready for the engine.

    ``query_labels[i]`` is the label index of ``query_texts[i]`` and ``query_splits[i]`` its split.
    ``heldout_answers`` [Q, R, Y] (or None): the answer distributions of the simulated user, computed when the
    domain was built from data the agent never learns from (0 where none was stored; see assistant.simulation).
    ``out_of_scope_texts[i]`` (split ``out_of_scope_splits[i]``) is a query that no label answers.
    """

    name: str
    title: str
    labels: list[Label]
    questions: list[Question]
    counts: np.ndarray
    query_texts: list[str] = field(default_factory=list)
    query_labels: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    query_splits: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype="<U5"))
    supports_not_visible: bool = False
    meta: dict[str, str] = field(default_factory=dict)
    heldout_answers: np.ndarray | None = None
    out_of_scope_texts: list[str] = field(default_factory=list)
    out_of_scope_splits: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype="<U5"))

    def __post_init__(self) -> None:
        self.counts = np.asarray(self.counts, dtype=np.float32)
        expected = (len(self.questions), self.max_options, len(self.labels))
        if self.counts.shape != expected:
            raise ConfigError(f"domain {self.name!r}: counts has shape {self.counts.shape}, expected {expected}")
        if np.any(self.counts < 0):
            raise ConfigError(f"domain {self.name!r}: annotation counts must not be negative")
        if self.heldout_answers is not None:
            self.heldout_answers = np.asarray(self.heldout_answers, dtype=np.float32)
            if self.heldout_answers.shape != expected:
                raise ConfigError(
                    f"domain {self.name!r}: heldout_answers has shape {self.heldout_answers.shape}, expected {expected}"
                )
        self.query_labels = np.asarray(self.query_labels, dtype=np.int64)
        self.query_splits = np.asarray(self.query_splits, dtype="<U5")
        if not (len(self.query_texts) == len(self.query_labels) == len(self.query_splits)):
            raise ConfigError(f"domain {self.name!r}: query texts, labels and splits differ in length")
        self.out_of_scope_splits = np.asarray(self.out_of_scope_splits, dtype="<U5")
        if len(self.out_of_scope_texts) != len(self.out_of_scope_splits):
            raise ConfigError(f"domain {self.name!r}: out-of-scope texts and splits differ in length")
        self._label_lookup: dict[str, int] | None = None

    # ---- sizes -------------------------------------------------------------------------------------
    @property
    def num_labels(self) -> int:
        return len(self.labels)

    @property
    def num_questions(self) -> int:
        return len(self.questions)

    @property
    def max_options(self) -> int:
        return max((len(q.options) for q in self.questions), default=2)

    @property
    def option_counts(self) -> np.ndarray:
        """[Q] int: number of options of each question."""
        return np.array([len(q.options) for q in self.questions], dtype=np.int64)

    @property
    def option_mask(self) -> np.ndarray:
        """[Q, R] bool: True where question q has an option r."""
        return np.arange(self.max_options)[None, :] < self.option_counts[:, None]

    @property
    def groups(self) -> list[str]:
        """Distinct question groups, in first-seen order."""
        return list(dict.fromkeys(q.group for q in self.questions))

    @property
    def group_index(self) -> np.ndarray:
        """[Q] int: index into ``groups`` of each question's group."""
        position = {g: i for i, g in enumerate(self.groups)}
        return np.array([position[q.group] for q in self.questions], dtype=np.int64)

    def allows_not_visible(self, question: int) -> bool:
        """Whether "not visible" is an answer to ``question``: in domains that support it (birds), for questions
        about a part that may be out of view, not for groups the meta lists as ``always_visible_groups``."""
        if not self.supports_not_visible:
            return False
        always = json.loads(self.meta.get("always_visible_groups", "[]"))
        return self.questions[question].group not in always

    # ---- annotations -------------------------------------------------------------------------------
    @property
    def annotated(self) -> np.ndarray:
        """[Q, Y] bool: whether any annotation exists for (question, label)."""
        return self.counts.sum(axis=1) > 0

    def p_hat(self, alpha: float = 1.0, counts: np.ndarray | None = None) -> np.ndarray:
        """Empirical answer distribution p_hat(r | q, y) with add-``alpha`` smoothing.

        Returns [Q, R, Y] float32 that sums to 1 over valid options and is 0 on padded ones. A
        (question, label) pair without annotations gets the uniform distribution. ``counts`` replaces the
        domain's own counts (e.g. a resampled set for simulation).
        """
        if not (np.isfinite(alpha) and alpha >= 0):
            raise ConfigError(f"smoothing alpha must be a finite number >= 0, got {alpha}")
        raw = self.counts if counts is None else np.asarray(counts, dtype=np.float32)
        mask = self.option_mask[:, :, None]
        smoothed = np.where(mask, raw + alpha, np.float32(0.0))  # a new float32 array: divided in place below
        total = smoothed.sum(axis=1, keepdims=True)
        # float32 throughout (the [Q, R, Y] float64 temporaries cost a large FAQ's first question 0.5 s, issue
        # 42); the uniform rows rounded from float64 as before, so that every value keeps its bits
        uniform = (mask / self.option_counts[:, None, None]).astype(np.float32)
        with np.errstate(invalid="ignore", divide="ignore"):
            np.divide(smoothed, np.where(total > 0, total, np.float32(1.0)), out=smoothed)
        return np.where(total > 0, smoothed, uniform)

    # ---- queries -----------------------------------------------------------------------------------
    def queries(self, split: str) -> tuple[list[str], np.ndarray]:
        """(texts, label indices) of the queries in ``split`` ('train', 'dev' or 'test')."""
        if split not in SPLITS:
            raise ConfigError(f"unknown split {split!r}: use one of {', '.join(SPLITS)}")
        idx = np.flatnonzero(self.query_splits == split)
        return [self.query_texts[i] for i in idx], self.query_labels[idx]

    def labels_with_queries(self, split: str = "train") -> np.ndarray:
        """Sorted label indices that have at least one query in ``split``."""
        return np.unique(self.queries(split)[1])

    # ---- lookup ------------------------------------------------------------------------------------
    def label_index(self, name: str) -> int:
        """Index of the label whose key or name matches ``name`` (see ``normalize_label_name``)."""
        if self._label_lookup is None:
            lookup: dict[str, int] = {}
            for i, label in enumerate(self.labels):
                for variant in (label.key, label.name):
                    lookup.setdefault(normalize_label_name(variant), i)
            self._label_lookup = lookup
        found = self._label_lookup.get(normalize_label_name(name))
        if found is None:
            examples = ", ".join(repr(lab.name) for lab in self.labels[:3])
            raise UnknownLabelError(
                f"unknown label {name!r} in domain {self.name!r}: use a label name or key such as {examples} "
                f"(see `clarify domain stats {self.name}`)"
            )
        return found

    def question_index(self, tag: str) -> int:
        for i, q in enumerate(self.questions):
            if q.tag == tag:
                return i
        raise ConfigError(f"unknown question tag {tag!r} in domain {self.name!r}")

    def subset(self, label_indices: Sequence[int]) -> Domain:
        """A domain restricted to the given labels (queries of other labels are dropped)."""
        keep = np.asarray(label_indices, dtype=np.int64)
        remap = -np.ones(self.num_labels, dtype=np.int64)
        remap[keep] = np.arange(len(keep))
        q_keep = remap[self.query_labels] >= 0
        return Domain(
            name=self.name,
            title=self.title,
            labels=[self.labels[i] for i in keep],
            questions=list(self.questions),
            counts=self.counts[:, :, keep],
            query_texts=[t for t, k in zip(self.query_texts, q_keep) if k],
            query_labels=remap[self.query_labels[q_keep]],
            query_splits=self.query_splits[q_keep],
            supports_not_visible=self.supports_not_visible,
            meta=dict(self.meta),
            heldout_answers=None if self.heldout_answers is None else self.heldout_answers[:, :, keep],
        )

    def stats(self) -> dict:
        """Counts of labels, questions by kind, queries by split and annotation rows."""
        kinds = {"binary": 0, "choice": 0}
        for q in self.questions:
            kinds[q.kind] += 1
        return {
            "name": self.name,
            "labels": self.num_labels,
            "questions": kinds,
            "induced_questions": sum(q.induced for q in self.questions),
            "queries": {s: int(np.sum(self.query_splits == s)) for s in SPLITS},
        }


def replace_counts(domain: Domain, counts: np.ndarray) -> Domain:
    """A copy of ``domain`` with other annotation counts (e.g. re-sampled for simulation)."""
    return dataclasses.replace(domain, counts=np.array(counts, dtype=np.float32), meta=dict(domain.meta))
