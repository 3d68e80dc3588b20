"""The conversation (numpy, one user) and policy training (torch, a batch) share their maths through one
source each: information gain, the policy's features and the simulated answers must agree."""

from __future__ import annotations

import numpy as np
import torch

from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.questions import batch_information_gain, information_gain
from assistant.clarification.stopping import policy_features
from assistant.simulation.user import sample_answers


def _random_model(rng: np.random.Generator, q: int = 7, r: int = 4, y: int = 11) -> AnswerModel:
    mask = np.arange(r)[None, :] < rng.integers(2, r + 1, size=q)[:, None]
    raw = rng.random((q, r, y)).astype(np.float32) * mask[:, :, None]
    return AnswerModel(raw / raw.sum(axis=1, keepdims=True), mask)


def test_information_gain_agrees_between_numpy_and_torch():
    rng = np.random.default_rng(0)
    model = _random_model(rng)
    beliefs = rng.dirichlet(np.ones(model.shape[2]), size=5).astype(np.float32)
    numpy_ig = np.stack([information_gain(model, p) for p in beliefs])
    torch_ig = batch_information_gain(
        torch.from_numpy(model.matrix), torch.from_numpy(model.cond_entropy), torch.from_numpy(beliefs), xp=torch
    )
    np.testing.assert_allclose(torch_ig.numpy(), numpy_ig, atol=1e-5)
    assert np.all(numpy_ig > -1e-6)  # information gain is never negative
    # the batched numpy path (used nowhere in a conversation) is the same formula again
    np.testing.assert_allclose(batch_information_gain(model.matrix, model.cond_entropy, beliefs), numpy_ig, atol=1e-5)


def test_policy_features_agree_between_numpy_and_torch():
    rng = np.random.default_rng(1)
    beliefs = rng.dirichlet(np.ones(13), size=6).astype(np.float32)
    numpy_features = policy_features(beliefs, 3, 10, top_k=20)
    torch_features = policy_features(torch.from_numpy(beliefs), 3, 10, top_k=20, xp=torch)
    np.testing.assert_allclose(torch_features.numpy(), numpy_features, atol=1e-7)
    assert numpy_features.shape == (6, 24)  # top-20, entropy, best gain, shortlist mass, turn
    assert np.all(numpy_features[:, 13:20] == 0.0)  # 13 labels: the top-20 is padded with zeros
    assert np.all(np.diff(numpy_features[:, :13], axis=1) <= 0)  # sorted, largest first
    np.testing.assert_allclose(numpy_features[:, -2], np.sort(beliefs, axis=1)[:, -5:].sum(axis=1), rtol=1e-6)
    np.testing.assert_allclose(numpy_features[:, -1], 0.3)
    # fewer labels than the top-k, and fewer than the shortlist: the mass is all of it
    few = rng.dirichlet(np.ones(3), size=2).astype(np.float32)
    np.testing.assert_allclose(policy_features(few, 0, 10, top_k=2)[:, -2], 1.0, rtol=1e-6)
    np.testing.assert_allclose(
        policy_features(torch.from_numpy(few), 0, 10, top_k=2, xp=torch).numpy(), policy_features(few, 0, 10, top_k=2)
    )


def test_simulated_answers_agree_between_numpy_and_torch():
    rng = np.random.default_rng(2)
    n_options = np.array([2, 3, 4, 2, 4])
    probs = rng.dirichlet(np.ones(4), size=5) * (np.arange(4)[None, :] < n_options[:, None])
    probs /= probs.sum(axis=1, keepdims=True)
    cdf = np.cumsum(probs, axis=1)
    for _ in range(50):
        uniforms = rng.random(5)
        numpy_answers = sample_answers(cdf, n_options, uniforms)
        torch_answers = sample_answers(
            torch.from_numpy(cdf), torch.from_numpy(n_options), torch.from_numpy(uniforms), xp=torch
        )
        np.testing.assert_array_equal(torch_answers.numpy(), numpy_answers)
        assert np.all(numpy_answers < n_options)
        # inverse-CDF: the answer is the first option whose cumulative probability exceeds u * total
        expected = [
            int(np.searchsorted(cdf[i, : n_options[i]], uniforms[i] * cdf[i, n_options[i] - 1], "right"))
            for i in range(5)
        ]
        np.testing.assert_array_equal(numpy_answers, np.minimum(expected, n_options - 1))
