"""Pairwise Bayesian-optimisation ranking (BO, BDL): find the best candidate in few comparisons.

Integration API (the session and the GUI use only these)::

    from assistant.ranking import Candidate, RankingSession, candidates_from_labels

    cands = candidates_from_labels(labels, probabilities, query)    # the clarifier's shortlist
    session = RankingSession(cands, seed=0)                         # GPPL + IMP, stop at P(best) > 0.9 or 10
    while (pair := session.next_pair()) is not None:
        session.answer("left" | "right" | "tie")                   # the user's choice for pair (i, j)
    session.undo(); session.best(); session.confidence; session.history
    RankingSession.from_dict(session.to_dict())                     # save / resume

Building blocks: preference models (``GPPL``, ``BradleyTerry``, ``MCDropoutRanker`` / ``DeepRanker`` in
``assistant.ranking.deep``) fitted on ``Comparisons`` and returning a ``Posterior``; acquisitions in
``assistant.ranking.acquisition``; the simulated user, stop rule and metrics in ``assistant.ranking.oracle``;
data loaders in ``assistant.evaluation.cqa.data``; the cQA protocol in ``assistant.evaluation.cqa.problems`` and
``assistant.evaluation.cqa.protocol``.
"""

from assistant.ranking.acquisition import (
    ACQUISITIONS,
    AcquisitionFunction,
    ExpectedImprovement,
    InformationGain,
    PairUncertainty,
    RandomPairs,
    ThompsonPairs,
    Uncertainty,
    first_pair,
    make_acquisition,
)
from assistant.ranking.base import Comparisons, Posterior, PreferenceModel
from assistant.ranking.bt import BradleyTerry
from assistant.ranking.gppl import GPPL
from assistant.ranking.oracle import NoisyOracle, RankingStopReason, RankingStopRule, probability_best
from assistant.ranking.ranking_session import Candidate, ComparisonRecord, RankingSession, candidates_from_labels

__all__ = [
    "ACQUISITIONS",
    "GPPL",
    "AcquisitionFunction",
    "BradleyTerry",
    "Candidate",
    "ComparisonRecord",
    "Comparisons",
    "ExpectedImprovement",
    "InformationGain",
    "NoisyOracle",
    "PairUncertainty",
    "Posterior",
    "PreferenceModel",
    "RandomPairs",
    "RankingSession",
    "RankingStopReason",
    "RankingStopRule",
    "ThompsonPairs",
    "Uncertainty",
    "candidates_from_labels",
    "first_pair",
    "make_acquisition",
    "probability_best",
]
