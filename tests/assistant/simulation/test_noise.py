"""The simulated user's noise knob: same seed, same answers; the share of corrupted answers; numpy and torch
draw the same corruption from the same uniforms."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from assistant.errors import ConfigError
from assistant.simulation.episodes import EpisodeSpec
from assistant.simulation.noise import NOT_SURE, UserNoise, corrupt_answers
from assistant.simulation.protocol import answer_correlation
from assistant.simulation.user import SimulatedUser, check_simulator


def _answers(seed: int = 0, questions: int = 30, labels: int = 6):
    rng = np.random.default_rng(seed)
    mask = np.ones((questions, 4), dtype=bool)
    mask[: questions // 2, 2:] = False  # half the questions are yes/no
    raw = np.where(mask[:, :, None], rng.random((questions, 4, labels)) ** 3, 0.0)
    return raw / raw.sum(axis=1, keepdims=True), mask


def _all_answers(user: SimulatedUser, episodes: int = 200) -> np.ndarray:
    out = []
    for i in range(episodes):
        user.start(EpisodeSpec(i % user.answers.shape[2], "query", 1000 + i))
        out.append([user.answer(q) for q in range(user.answers.shape[0])])
    return np.array(out)


def test_same_seed_same_answers_and_noise_leaves_the_others_alone():
    answers, mask = _answers()
    clean = _all_answers(SimulatedUser(answers, mask))
    noisy = _all_answers(SimulatedUser(answers, mask, UserNoise(0.2)))
    assert np.array_equal(noisy, _all_answers(SimulatedUser(answers, mask, UserNoise(0.2))))
    changed = noisy != clean
    assert 0.08 < changed.mean() < 0.2  # at most the 20% corrupted; some replacements agree by chance
    assert (noisy == NOT_SURE).any()


def test_share_of_flipped_and_not_sure_answers():
    answers, mask = _answers()
    clean = _all_answers(SimulatedUser(answers, mask))
    flipped = _all_answers(SimulatedUser(answers, mask, UserNoise(0.3, flip=1, not_sure=0, other=0)))
    assert (flipped != clean).mean() == pytest.approx(0.3, abs=0.02)  # a flip always changes the answer
    assert (flipped >= 0).all()
    unsure = _all_answers(SimulatedUser(answers, mask, UserNoise(0.1, flip=0, not_sure=1, other=0)))
    assert (unsure == NOT_SURE).mean() == pytest.approx(0.1, abs=0.015)
    assert np.array_equal(unsure[unsure != NOT_SURE], clean[unsure != NOT_SURE])


def test_numpy_and_torch_corrupt_alike():
    rng = np.random.default_rng(3)
    n_options = rng.integers(2, 5, size=500)
    base = np.array([rng.integers(n) for n in n_options])
    uniforms = rng.random((500, 2))
    other = np.where(np.arange(4)[None, :] < n_options[:, None], rng.random((500, 4)), 0.0)
    cdf = np.cumsum(other / other.sum(axis=1, keepdims=True), axis=1)
    noise = UserNoise(0.6)
    expected = corrupt_answers(base, n_options, uniforms, cdf, noise)
    got = corrupt_answers(
        torch.from_numpy(base),
        torch.from_numpy(n_options),
        torch.from_numpy(uniforms),
        torch.from_numpy(cdf),
        noise,
        xp=torch,
    )
    assert np.array_equal(expected, got.numpy())
    assert ((expected >= NOT_SURE) & (expected < n_options)).all()


def test_another_persons_answers_are_valid_and_differ():
    answers, mask = _answers()
    noise = UserNoise(0.2, seed=1)
    other = noise.other_answers(answers, mask)
    assert np.allclose(other.sum(axis=1), 1.0) and not other[~mask].any()
    assert np.array_equal(other, noise.other_answers(answers, mask))
    assert 0.2 < answer_correlation(answers, other, mask) < 0.95
    effective = noise.effective_answers(answers, mask)
    assert answer_correlation(answers, effective, mask) < answer_correlation(answers, answers, mask) == 1.0


def test_noisy_simulators_pass_the_check():
    answers, mask = _answers()
    user = SimulatedUser(answers, mask, UserNoise(0.3))
    check_simulator(user, [EpisodeSpec(0, "query", 5)], answers.shape[2])


@pytest.mark.parametrize("bad", [{"rate": 1.0}, {"rate": -0.1}, {"flip": -1.0}, {"flip": 0, "not_sure": 0, "other": 0}])
def test_bad_noise_settings_are_refused(bad):
    with pytest.raises(ConfigError):
        UserNoise(**{"rate": 0.1, **bad})
