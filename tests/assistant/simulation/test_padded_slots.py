"""The information gain over the option slots that exist (issue 33: a large FAQ's yes/no questions are padded to
its longest facet's slots): the batched torch gains of policy training are the padded computation's bit for bit;
the numpy ``compact_gains`` of the tuning rollouts agree with the padded ones to float precision."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.questions import batch_information_gain, information_gain
from assistant.simulation.environment import BatchEnvironment
from assistant.simulation.user import SimulatedUser


def _padded_model(questions: int, slots: int, labels: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A [Q, R, Y] answer matrix (0 on the padding) whose questions are mostly yes/no, a few long facets."""
    rng = np.random.default_rng(seed)
    longer = rng.integers(3, slots + 1, questions) if slots > 2 else np.full(questions, 2)  # 2: no padding
    options = np.where(rng.random(questions) < 0.9, 2, longer)
    mask = np.arange(slots)[None, :] < options[:, None]
    a = rng.random((questions, slots, labels)).astype(np.float32) + 1e-4
    a = np.where(mask[:, :, None], a, 0.0)
    return (a / a.sum(axis=1, keepdims=True)).astype(np.float32), mask


@pytest.mark.parametrize(("questions", "slots", "labels"), [(120, 13, 90), (40, 2, 30), (60, 7, 300)])
def test_batched_gains_equal_the_padded_ones_bit_for_bit(questions, slots, labels):
    a, mask = _padded_model(questions, slots, labels, questions)
    a_t = torch.from_numpy(a)
    cond_entropy = -(a_t * torch.log(a_t.clamp_min(1e-30))).sum(dim=1)
    env = BatchEnvironment(SimulatedUser(a, mask))
    rng = np.random.default_rng(1)
    probs = torch.softmax(torch.from_numpy(rng.normal(size=(64, labels)).astype(np.float32) * 3), dim=1)
    asked = torch.zeros(64, questions, dtype=torch.bool)
    asked[:, :5] = True
    with torch.no_grad():
        padded = batch_information_gain(a_t, cond_entropy, probs, xp=torch).masked_fill(asked, float("-inf"))
    for _ in range(2):  # the second call reads the rows kept for the same answer model
        assert torch.equal(env.gains(a_t, cond_entropy, probs, asked), padded)


def test_compact_numpy_gains_agree_with_the_padded_ones():
    a, mask = _padded_model(150, 13, 120, 3)
    padded = AnswerModel(a, mask)
    compact = AnswerModel(a, mask, compact_gains=True)
    assert padded.gain_slots is None
    assert compact.gain_slots is not None and len(compact.gain_slots) == int(mask.sum())
    assert compact.gain_matrix.shape == (120, int(mask.sum()) + 150)
    rng = np.random.default_rng(4)
    for _ in range(20):
        p = rng.dirichlet(np.full(120, 0.1)).astype(np.float32)
        np.testing.assert_allclose(information_gain(compact, p), information_gain(padded, p), atol=1e-5)
    assert compact.with_params(lam=1.0).compact_gains and compact.restrict(np.arange(10)).compact_gains
