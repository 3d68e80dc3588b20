"""What a conversation (``assistant.clarification.conversation``) uses of the ``Clarifier`` that opened it."""

from __future__ import annotations

from typing import Protocol

import numpy as np

from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.belief import Evidence
from assistant.clarification.out_of_scope import OutOfScopeModel
from assistant.clarification.questions import Strategy
from assistant.clarification.records import ClarifierConfig
from assistant.clarification.stopping import StopRule
from assistant.store import Domain


class ClarifierParts(Protocol):
    """What a conversation uses of the ``Clarifier`` that opened it (``assistant.clarification.clarifier``):
    the domain, the answer model and strategy over the candidate labels, the stop rule, the settings, the
    out-of-scope hypothesis, and the prior's reading of a query."""

    domain: Domain
    model: AnswerModel
    candidates: np.ndarray
    config: ClarifierConfig
    stop_rule: StopRule
    strategy: Strategy
    out_of_scope: OutOfScopeModel | None
    implied: list
    group_index: np.ndarray

    def out_of_scope_log_likelihood(self, evidence: Evidence) -> float: ...

    def understood(self, query: str) -> list[tuple[int, int]]: ...

    def log_prior(self, query: str) -> np.ndarray: ...
