"""ModelRegistry and damaged models: models whose numbers are damaged (NaN or infinite weights, lambda outside [0, 1], a
temperature of NaN, a mention weight of -5) count as damaged, like unreadable ones: they are replaced from the
release or retrained, instead of an error that never clears."""

from __future__ import annotations

import json
import shutil

import pytest
import torch

from assistant.app.desk.domains import prepare
from assistant.app.lifecycle.registry import ModelRegistry
from assistant.app.lifecycle.release import RELEASE_DIR
from assistant.priors.sru import encoder_checkpoint_path
from assistant.progress import run_job
from assistant.sources.adapters import build_domain
from models.checkpoint import load_checkpoint, save_checkpoint
from models.errors import CheckpointError
from tests.support import clarify_home

pytestmark = pytest.mark.reliability


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_weights_that_are_not_finite_are_a_damaged_checkpoint(tmp_path, value):
    path = tmp_path / "model"
    weights = torch.ones(3)
    weights[1] = value
    save_checkpoint(path, {"layer.weight": weights, "steps": torch.tensor([3])}, {"size": 3})
    with pytest.raises(CheckpointError) as caught:
        load_checkpoint(path)
    assert "layer.weight" in str(caught.value) and "retrain" in str(caught.value)


@pytest.fixture(scope="module")
def release_home(tmp_path_factory):
    """faq built and prepared from its release models, once for this module."""
    home = tmp_path_factory.mktemp("release-home")
    with clarify_home(home):
        run_job(build_domain("faq"))
        run_job(prepare("faq"))
    return home


@pytest.fixture
def prepared_faq(release_home, fresh_clarify_home):
    shutil.copytree(release_home, fresh_clarify_home, dirs_exist_ok=True)
    return fresh_clarify_home


def _resave(path, change) -> None:
    state = torch.load(path.with_suffix(".pt"), weights_only=True)
    change(state)
    torch.save(state, path.with_suffix(".pt"))


@pytest.mark.slow
def test_damaged_numbers_in_release_models_are_replaced_from_the_release(prepared_faq):
    policy = prepared_faq / "models" / "faq" / "policy-all-learned-thorough"
    first = next(k for k, v in torch.load(policy.with_suffix(".pt"), weights_only=True).items() if v.ndim == 2)
    _resave(policy, lambda state: state[first].fill_(float("nan")))
    other = prepared_faq / "models" / "faq" / "policy-all-learned-quick"
    _resave(other, lambda state: state.update(lam=torch.tensor(7.0)))
    encoder = encoder_checkpoint_path("faq").with_suffix(".json")
    sidecar = json.loads(encoder.read_text())
    sidecar["config"]["temperature"] = float("nan")
    encoder.write_text(json.dumps(sidecar))
    missing = ModelRegistry("faq").missing()
    assert "encoder" in missing and "policy-all-learned-thorough" in missing and "policy-all-learned-quick" in missing

    done = run_job(prepare("faq"))

    assert done == ["release models"]
    assert policy.with_suffix(".pt").read_bytes() == (RELEASE_DIR / "faq" / f"{policy.name}.pt").read_bytes()
    assert encoder.read_bytes() == (RELEASE_DIR / "faq" / "encoder.json").read_bytes()
    assert ModelRegistry("faq").missing() == []


@pytest.mark.slow
def test_a_mention_weight_below_zero_is_refitted_like_a_damaged_file(prepared_faq):
    registry = ModelRegistry("faq")
    prior = prepared_faq / "models" / "faq" / "prior.json"
    prior.write_text(json.dumps({"encoder": registry.encoder_hash(), "beta": -5}))
    # the registry only loads (issue 24): a damaged prior is missing, and prepare fits it again
    assert "prior" in ModelRegistry("faq").missing()
    run_job(prepare("faq"))
    registry = ModelRegistry("faq")
    assert registry.mention_weight() >= 0 and json.loads(prior.read_text())["beta"] >= 0
    assert registry.clarifier().start("my email disappeared").turn == 0


@pytest.mark.slow
def test_hostile_checkpoints_are_replaced_from_the_release_without_a_crash(prepared_faq):
    """Issue 41: the crafted file (a stride of -(1 << 40) over a storage of 1 element) over every policy, and a
    zip bomb over the encoder, are damaged models like any other: `prepare` replaces them, nothing is inflated."""
    from benchmarks.reliability.checkpoints import negative_stride_checkpoint, zip_bomb

    models = prepared_faq / "models" / "faq"
    policies = sorted(models.glob("policy-*.pt"))
    for policy in policies:
        policy.write_bytes(negative_stride_checkpoint())
    (models / "encoder.pt").write_bytes(zip_bomb(64 << 20))
    missing = ModelRegistry("faq").missing()
    assert "encoder" in missing and all(p.stem in missing for p in policies)

    assert run_job(prepare("faq")) == ["release models"]

    for policy in policies:
        assert policy.read_bytes() == (RELEASE_DIR / "faq" / policy.name).read_bytes()
    assert ModelRegistry("faq").missing() == []


@pytest.mark.slow
def test_prepare_rebuilds_a_damaged_embedding_cache_instead_of_nothing_to_train(prepared_faq):
    """Issue 41: a truncated text-embeddings.npz broke every `ask` while `prepare` found nothing to train."""
    from assistant.text.embeddings import CachingSentenceEncoder
    from tests.support import HashingEncoder

    cache = prepared_faq / "models" / "faq" / "text-embeddings.npz"
    cache.write_bytes(cache.read_bytes()[:3000])

    assert run_job(prepare("faq")) == ["answer embeddings"]

    assert CachingSentenceEncoder(cache, HashingEncoder()).note == ""
    assert ModelRegistry("faq").text_encoder.note == ""
