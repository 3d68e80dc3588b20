"""The peers the bench measures ours against compute what they claim to."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.clarifier import Clarifier, ClarifierConfig
from assistant.clarification.stopping import FixedTurns
from assistant.evaluation.peers.numpy_turn import ReferenceTurn
from assistant.ranking.base import Comparisons
from assistant.ranking.gppl import GPPL
from assistant.store import Domain, Label, Question


class _Scores:
    name = "fixed"

    def __init__(self, scores):
        self._scores = scores

    def scores(self, texts):
        return np.repeat(self._scores[None, :], len(texts), axis=0)


def test_the_numpy_floor_takes_the_engine_s_decisions_and_reaches_its_belief():
    rng = np.random.default_rng(0)
    labels, questions, options = 30, 12, 3
    qs = [Question(f"t{q}", f"q{q}", "choice", f"g{q}", ("a", "b", "c")) for q in range(questions)]
    counts = rng.gamma(0.5, 4.0, size=(questions, options, labels)).astype(np.float32)
    domain = Domain("tiny", "tiny", [Label(f"l{i}", f"l{i}") for i in range(labels)], qs, counts)
    model = AnswerModel(domain.p_hat(1.0), domain.option_mask)
    prior = rng.normal(size=labels)
    clarifier = Clarifier(domain, _Scores(prior), model, FixedTurns(8), config=ClarifierConfig(max_turns=8))
    conversation = clarifier.start("query")
    floor = ReferenceTurn(model.matrix, model.cond_entropy, prior)
    for _ in range(6):
        question = conversation.next_question()
        assert question == floor.next_question()
        option = int(rng.integers(options))
        conversation.answer(question, option)
        floor.answer(question, option)
        np.testing.assert_allclose(np.exp(floor.log_p), conversation.probs, rtol=1e-6)


def test_pairwise_gp_starts_from_gppl_s_prior_mean_and_eubo_challenges_the_incumbent():
    pytest.importorskip("botorch")
    from assistant.evaluation.peers.pairwise_gp import ExpectedUtilityOfBestOption, PairwiseGPRanker

    rng = np.random.default_rng(1)
    x = rng.normal(size=(12, 4))
    prior = rng.normal(size=12)
    empty = PairwiseGPRanker().fit(x, prior, Comparisons.empty()).posterior()
    np.testing.assert_allclose(empty.mean, GPPL().fit(x, prior, Comparisons.empty()).posterior().mean)
    comps = Comparisons.from_winners([(3, 0), (3, 5), (7, 1)])
    post = PairwiseGPRanker().fit(x, prior, comps).posterior()
    assert post.mean[3] > empty.mean[3] and post.mean[0] < empty.mean[0]  # the winner rises, the loser falls
    best = int(np.argmax(post.mean))
    pair = ExpectedUtilityOfBestOption().select(post, comps.seen(), rng)
    assert pair[0] == best and pair[1] != best and (min(pair), max(pair)) not in comps.seen()
    rows = post.cov_rows([best])
    np.testing.assert_allclose(rows[0, best], post.variance[best], rtol=1e-6)


def test_choix_bradley_terry_ranks_the_winner_above_the_loser():
    pytest.importorskip("choix")
    from assistant.evaluation.peers.choix_bt import ChoixBradleyTerry

    comps = Comparisons(np.array([[0, 1], [2, 0], [1, 3]]), np.array([1.0, 0.0, 0.5]))
    strengths = ChoixBradleyTerry().fit(np.zeros((4, 2)), None, comps).posterior().mean
    assert strengths[0] > strengths[1] and strengths[0] > strengths[2] and strengths[3] == 0.0  # the tie is left out
