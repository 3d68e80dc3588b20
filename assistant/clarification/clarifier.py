"""The agent: prior p(y|x0) + belief + question strategy + stop rule, over a set of candidate labels.

``Clarifier`` holds what does not change between conversations (domain, prior, answer model restricted
to the candidates, strategy, stop rule); ``Clarifier.start(query)`` opens a ``Conversation``
(``assistant.clarification.conversation``) that asks, takes answers, undoes them, and at STOP returns a
ranked ``shortlist`` that the ranker consumes.
"""

from __future__ import annotations

import math

import numpy as np

from assistant.clarification.answer_list import ANSWER_LIST, LIST_ERROR
from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.belief import Evidence
from assistant.clarification.conversation import Conversation
from assistant.clarification.implied import implied_questions
from assistant.clarification.kinship import OWN_FAQ, similar_tags
from assistant.clarification.out_of_scope import OutOfScopeModel
from assistant.clarification.query_check import check_query
from assistant.clarification.questions import InformationGainQuestions, Strategy
from assistant.clarification.records import (
    AnswerKind,
    AnswerRecord,
    ClarifierConfig,
    QueryChange,
    ShortlistItem,
    StopReason,
)
from assistant.clarification.stopping import StopRule
from assistant.errors import ConfigError
from assistant.priors.base import Prior, restrict
from assistant.store import Domain

__all__ = [
    "AnswerKind",
    "AnswerRecord",
    "Clarifier",
    "ClarifierConfig",
    "Conversation",
    "QueryChange",
    "ShortlistItem",
    "StopReason",
]


class Clarifier:
    """See the module docstring. ``candidates``: domain label indices to choose among (None = all)."""

    def __init__(
        self,
        domain: Domain,
        prior: Prior,
        answer_model: AnswerModel,
        stop_rule: StopRule,
        strategy: Strategy | None = None,
        candidates: np.ndarray | None = None,
        config: ClarifierConfig | None = None,
        out_of_scope: OutOfScopeModel | None = None,
    ) -> None:
        self.domain = domain
        self.out_of_scope = out_of_scope
        self.prior = prior
        self.stop_rule = stop_rule
        self.strategy = strategy or InformationGainQuestions()
        self.config = config or ClarifierConfig()
        if answer_model.shape[2] != domain.num_labels:
            raise ConfigError(
                f"answer model covers {answer_model.shape[2]} labels, domain {domain.name!r} has {domain.num_labels}"
            )
        if candidates is None:
            self.candidates = np.arange(domain.num_labels)
            self.model = answer_model
        else:
            self.candidates = np.unique(np.asarray(candidates, dtype=np.int64))
            if self.candidates.size == 0 or self.candidates[0] < 0 or self.candidates[-1] >= domain.num_labels:
                raise ConfigError("candidates must be a non-empty set of label indices of the domain")
            self.model = answer_model.restrict(self.candidates)
        self.group_index = domain.group_index
        # [Q][R]: the questions an answer settles without a turn (assistant.clarification.implied); on a desk's
        # own FAQ also those one idea apart (assistant.clarification.kinship). The bundled domains' stop policies
        # were trained and measured without them (issue 39): theirs wait for a measured release.
        one_idea = domain.meta.get(OWN_FAQ) == "true"
        self.implied = implied_questions(domain.questions, domain.counts if one_idea else None, similar_tags(domain))
        self.out_of_scope_answers = (
            None if out_of_scope is None else out_of_scope.answer_table(domain.questions, domain.max_options)
        )

    def start(self, query: str, rng: np.random.Generator | None = None) -> Conversation:
        """Open a conversation for the user's initial ``query`` (see ``check_query``)."""
        query = check_query(query)
        scores = self.prior.scores([query])[0]
        return self.start_from_scores(scores, query, rng)

    def start_from_scores(
        self, scores: np.ndarray, query: str = "", rng: np.random.Generator | None = None
    ) -> Conversation:
        """Open a conversation from precomputed prior scores [Y over the whole domain] (simulation)."""
        return Conversation(self, restrict(np.asarray(scores), self.candidates), query, rng, self.understood(query))

    def understood(self, query: str) -> list[tuple[int, int]]:
        """(question, option) pairs ``query`` already answers (their evidence is in the prior)."""
        mentioned = getattr(self.prior, "mentioned", None)
        return mentioned(query) if (mentioned is not None and query) else []

    def out_of_scope_log_likelihood(self, evidence: Evidence) -> float:
        """log P(answer | out of scope) of an answer that picked an option (a "probably" one mixed with the
        uniform answer as its in-scope likelihood is); on an answer list, "none of these" is the out-of-scope
        person's answer, as "something else" is elsewhere."""
        softness = 1.0 if evidence.kind == AnswerKind.OPTION else self.config.softness
        if evidence.question == ANSWER_LIST:  # "none of these" as surely as a person whose entry is not listed
            n_options = len(evidence.listed) + 1
            p = 1.0 - LIST_ERROR if evidence.option == len(evidence.listed) else LIST_ERROR / (n_options - 1)
        else:
            n_options = len(self.domain.questions[evidence.question].options)
            assert self.out_of_scope_answers is not None  # asked only of a clarifier with an out-of-scope model
            p = float(self.out_of_scope_answers[evidence.question, evidence.option])
        return math.log(softness * p + (1.0 - softness) / n_options)

    def log_prior(self, query: str) -> np.ndarray:
        """[Y_c] the prior's scores of ``query`` over the candidates."""
        return restrict(np.asarray(self.prior.scores([query])[0]), self.candidates)
