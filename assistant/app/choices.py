"""The names and defaults the command line and the pages offer, importable without the models (issue 33).

`clarify --help`, `clarify domain list` and a refused argument must not wait for torch, spaCy or the model
registry: the command modules take their choices from here and import the jobs inside the commands. Each value
is defined once, where it belongs, in a light module; this module only gathers them for the interfaces.
"""

from __future__ import annotations

from assistant.evaluation.cqa.data import DATASETS as RANKING_DATASETS
from assistant.settings import (
    CANDIDATE_SETTINGS,
    LEARN_AFTER_SESSIONS,
    PACES,
    POLICY_ESTIMATOR,
    POLICY_ITERATIONS,
    PROTOCOL_DOMAINS,
    SYSTEMS,
    TEXT_PRIORS,
    VARIANTS,
)
from assistant.sources.adapters import BUNDLED_DOMAINS
from assistant.sources.own_faq import FORMATS
from assistant.store import SessionStatus
from assistant.text.printable import printable_text
from crowdsourcing.importers.base import TAG_SLOTS

__all__ = [
    "BUNDLED_DOMAINS",
    "CANDIDATE_SETTINGS",
    "FORMATS",
    "LEARN_AFTER_SESSIONS",
    "PACES",
    "POLICY_ESTIMATOR",
    "POLICY_ITERATIONS",
    "PROTOCOL_DOMAINS",
    "RANKING_DATASETS",
    "SYSTEMS",
    "TAG_SLOTS",
    "TEXT_PRIORS",
    "VARIANTS",
    "SessionStatus",
    "printable_text",
]
