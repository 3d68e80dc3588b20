"""The STOP/ASK policy serves in numpy from its checkpoint's arrays (issue 33: no torch for a conversation) and
decides exactly as the trained torch network does, on the features of real conversations: faq's calibrated prior
on its test queries, then the answers its best questions most likely get."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from assistant.app.lifecycle.calibration_jobs import calibrated
from assistant.app.lifecycle.registry import ModelRegistry, policy_path
from assistant.clarification.questions import information_gain
from assistant.clarification.stopping import LearnedPolicy, policy_features
from assistant.settings import PACES
from models.checkpoint import load_checkpoint
from models.policy_net import STOP, StopPolicyNet

TURNS = 6


def _torch_network(path) -> StopPolicyNet:
    """The policy as training saved it, read and run by torch."""
    state, sidecar = load_checkpoint(path)
    net = StopPolicyNet(**sidecar["config"]["net"])
    net.load_state_dict({k.removeprefix("net."): v for k, v in state.items() if k.startswith("net.")})
    return net.eval()


def _conversation_features(registry: ModelRegistry, answer_model, top_k: int) -> np.ndarray:
    """[N, top_k + 4] the policy's features at turns 0..TURNS-1 of one conversation per test query: the prior's
    belief, then the belief after the most likely answer to the most informative question."""
    texts, _ = registry.domain.queries("test")
    logits = calibrated(registry, registry.combined_prior(registry.domain)).scores(list(texts))
    beliefs = np.exp(logits - logits.max(axis=1, keepdims=True))
    beliefs /= beliefs.sum(axis=1, keepdims=True)
    rows = []
    for belief in beliefs.astype(np.float32):
        asked = np.zeros(answer_model.matrix.shape[0], dtype=bool)
        for turn in range(TURNS):
            gains = np.where(asked, -np.inf, information_gain(answer_model, belief))
            rows.append(policy_features(belief, turn, 10, top_k, float(max(gains.max(), 0.0))))
            question = int(gains.argmax())
            asked[question] = True
            answer = int((answer_model.matrix[question] @ belief).argmax())
            belief = belief * answer_model.matrix[question, answer]
            belief = (belief / belief.sum()).astype(np.float32)
    return np.stack(rows)


@pytest.mark.slow  # the prepared faq home (tests/conftest.py)
def test_the_numpy_policy_decides_as_the_torch_network(prepared_faq_home, monkeypatch):
    monkeypatch.setenv("CLARIFY_HOME", str(prepared_faq_home))
    registry = ModelRegistry("faq")
    for pace in PACES:
        loaded = registry.load_policy("all", "learned", pace)  # what a conversation uses: no torch
        assert isinstance(loaded.policy, LearnedPolicy) and loaded.policy._net is None
        net = _torch_network(policy_path("faq", "all", "learned", registry.text_prior, pace))
        features = _conversation_features(registry, registry.answer_model(loaded), loaded.policy.top_k)
        assert len(features) >= 100 * TURNS
        with torch.no_grad():
            torch_stop = torch.softmax(net(torch.from_numpy(features)), dim=-1)[:, STOP].numpy()
        numpy_stop = np.array([loaded.policy.stop_probability_of(x) for x in features])
        np.testing.assert_allclose(numpy_stop, torch_stop, atol=1e-6)
        assert np.array_equal(numpy_stop > 0.5, torch_stop > 0.5), pace
        assert 0 < (torch_stop > 0.5).mean() < 1, pace  # both decisions occur: the comparison means something


def test_a_policy_made_from_arrays_gives_back_its_torch_network():
    net = StopPolicyNet(top_k=20, hidden=8)
    policy = LearnedPolicy.from_weights(LearnedPolicy(net).weights)
    for mine, theirs in zip(policy.net.state_dict().values(), net.state_dict().values(), strict=True):
        assert torch.equal(mine, theirs)
