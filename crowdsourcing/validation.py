"""Field checks shared by the importers, and matching of label names against a domain.

Each check is a small pure function that returns the cleaned value or None, so that the caller can attach
the file, line and column to a ``Problem`` with a message saying what is accepted. ``LabelMatcher`` matches
label names exactly as ``Domain.label_index`` does (case, punctuation, spacing and a leading numeric id are
ignored) and suggests close names for unknown ones.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Sequence

import numpy as np

from assistant.errors import UnknownLabelError
from assistant.store import SPLITS, Domain, Label, normalize_label_name

YES = frozenset({"yes", "y", "true", "1", "t"})
NO = frozenset({"no", "n", "false", "0", "f"})
BINARY_HELP = "use 'yes' or 'no' (also accepted: y/n, true/false, 1/0)"
SPLIT_HELP = f"use one of {', '.join(SPLITS)} (or leave it empty for train)"


def clean_text(value: object) -> str:
    """Whitespace collapsed to single spaces; '' for None."""
    return " ".join(str(value).split()) if value is not None else ""


def binary_answer(raw: str) -> str | None:
    """'yes' / 'no' for the accepted spellings of a binary answer, else None."""
    folded = clean_text(raw).casefold()
    if folded in YES:
        return "yes"
    if folded in NO:
        return "no"
    return None


def normalize_split(raw: str) -> str | None:
    """A valid split name ('' means the default, returned as ''), or None if ``raw`` is not one."""
    folded = clean_text(raw).casefold()
    if not folded:
        return ""
    return folded if folded in SPLITS else None


# How many people one row may stand for. Counts are summed into float32 arrays: a count near 3.4e38 there
# becomes inf and p_hat NaN, and no crowd batch is anywhere near a million answers per row.
MAX_COUNT = 1_000_000


def parse_count(raw: object) -> float | None:
    """A finite number of annotators in (0, MAX_COUNT], or None ('' means 1)."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return 1.0
    if isinstance(raw, bool):
        return None
    try:
        value = float(raw)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):  # OverflowError: an int too large for a float
        return None
    return value if math.isfinite(value) and 0 < value <= MAX_COUNT else None


class LabelMatcher:
    """Match user-written label names to the labels of a domain (``Domain.label_index`` semantics)."""

    def __init__(self, labels: Sequence[Label], domain_name: str = "") -> None:
        self.labels = list(labels)
        self.domain_name = domain_name
        self._domain = Domain(
            name=domain_name or "domain",
            title=domain_name,
            labels=self.labels,
            questions=[],
            counts=np.zeros((0, 2, len(self.labels)), dtype=np.float32),
        )
        self._cache: dict[str, int | None] = {}

    def index(self, name: str) -> int | None:
        """Index of the label ``name`` refers to, or None."""
        key = normalize_label_name(name)
        if key not in self._cache:
            try:
                self._cache[key] = self._domain.label_index(name) if self.labels else None
            except UnknownLabelError:
                self._cache[key] = None
        return self._cache[key]

    def key(self, name: str) -> str | None:
        """The stored key of the label ``name`` refers to, or None."""
        i = self.index(name)
        return None if i is None else self.labels[i].key

    def unknown_message(self, name: str) -> str:
        """'unknown label ...' with close matches, or examples of valid names."""
        where = f" in domain {self.domain_name!r}" if self.domain_name else ""
        if not self.labels:
            return f"unknown label {name!r}: the domain has no labels yet; import them first with --kind labels"
        variants: dict[str, str] = {}
        for label in self.labels:
            for text in (label.key, label.name):
                variants.setdefault(normalize_label_name(text), label.key)
        close = difflib.get_close_matches(normalize_label_name(name), list(variants), n=3, cutoff=0.75)
        if close:
            hint = "did you mean " + " or ".join(repr(variants[c]) for c in dict.fromkeys(close)) + "?"
        else:
            examples = ", ".join(repr(lab.key) for lab in self.labels[:3])
            hint = f"use a label key or name of the domain such as {examples}"
        stats = f" (see `clarify domain stats {self.domain_name}`)" if self.domain_name else ""
        return f"unknown label {name!r}{where}: {hint}{stats}"
