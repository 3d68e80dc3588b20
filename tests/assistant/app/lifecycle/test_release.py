"""Release models (assistant/release/): the shipped models of every bundled domain fit the code and the bundled
data, so that a first launch installs them instead of training; a knowledge base or settings that differ are
trained. Their training is limited by steps, never by time, so that the same code gives the same weights."""

from __future__ import annotations

import hashlib
import json

import pytest

from assistant.app.desk.domains import prepare
from assistant.app.lifecycle.registry import ModelRegistry
from assistant.app.lifecycle.release import (
    MANIFEST,
    RELEASE_DIR,
    check_release,
    compare_releases,
    domain_fingerprint,
    model_settings,
)
from assistant.progress import Progress, run_job
from assistant.simulation.rollout import give_answer
from assistant.sources.adapters import build_domain
from tests.support.colours import store_colour_domain

STALE = "run `make release-models` and commit assistant/release/ (the shipped models no longer fit the code)"
# Every bundled domain ships its models (the Makefile's RELEASE_DOMAINS), each with a query that starts a session.
RELEASED = {
    "faq": "my email disappeared",
    "banking": "still waiting for my card",
    "birds": "small red bird with a black face",
    "clinc": "how do i get to the airport",
}


@pytest.mark.slow
@pytest.mark.parametrize("domain", sorted(RELEASED))
def test_the_shipped_models_of_every_bundled_domain_fit_the_code_and_serve_a_first_question(domain):
    manifest_path = RELEASE_DIR / domain / MANIFEST
    assert manifest_path.is_file(), f"no release models for {domain}: {STALE}"
    manifest = json.loads(manifest_path.read_text())
    assert "max_seconds" not in manifest["settings"]["encoder"], "trained under a wall-clock limit: not reproducible"
    run_job(build_domain(domain))
    registry = ModelRegistry(domain)
    assert manifest["settings"] == model_settings(registry), f"the model settings changed: {STALE}"
    assert manifest["fingerprint"] == domain_fingerprint(registry.domain), f"the bundled {domain} data changed: {STALE}"
    for name, entry in manifest["files"].items():
        digest = hashlib.sha256((RELEASE_DIR / domain / name).read_bytes()).hexdigest()
        assert digest == entry["sha256"], f"{name} differs from the manifest: {STALE}"
    assert sum(entry["bytes"] for entry in manifest["files"].values()) < 4_000_000  # the repository stays small
    assert check_release(registry) == (True, "using the release models shipped with Clarify")

    messages: list[str] = []
    done = run_job(prepare(domain), lambda p: messages.append(p.message))
    # nothing is trained; the prior's calibration (issue 32) is fitted in seconds on the dev queries
    assert done == ["release models", "calibration"], "a fresh home with the release models trains nothing"
    assert "using the release models shipped with Clarify" in messages
    registry = ModelRegistry(domain)
    assert registry.missing(("all", "captioned") if domain == "birds" else ("all",)) == []
    conversation = registry.clarifier().start(RELEASED[domain])
    assert conversation.probs.shape == (registry.domain.num_labels,) and abs(float(conversation.probs.sum()) - 1) < 1e-4
    # a vague first query is asked about: the shipped policy neither stops at once nor has nothing to ask
    assert conversation.next_question() is not None, f"no first question for {RELEASED[domain]!r}"
    assert not conversation.should_stop()


def test_two_builds_of_the_release_are_compared_by_their_weights_alone(tmp_path):
    def write(folder, files):
        (folder / "faq").mkdir(parents=True)
        entries = {name: {"bytes": 1, "sha256": digest} for name, digest in files.items()}
        (folder / "faq" / MANIFEST).write_text(json.dumps({"files": entries}))

    write(tmp_path / "a", {"encoder.pt": "1", "encoder.json": "made at 10:00", "encoder-side.npz": "2"})
    write(tmp_path / "b", {"encoder.pt": "1", "encoder.json": "made at 11:00", "encoder-side.npz": "2"})
    assert compare_releases("faq", tmp_path / "a", tmp_path / "b") == []  # the sidecars' times do not count
    write(tmp_path / "c", {"encoder.pt": "9", "encoder.json": "made at 10:00"})
    assert compare_releases("faq", tmp_path / "a", tmp_path / "c") == ["encoder-side.npz", "encoder.pt"]


@pytest.mark.slow
def test_the_faq_release_ends_out_of_scope_questions_and_answers_in_scope_ones():
    run_job(build_domain("faq"))
    run_job(prepare("faq"))
    registry = ModelRegistry("faq")

    # faq has no log-in FAQ: a person who answers "something else" / "no" is told so within a few questions
    conversation = registry.clarifier().start("can't log in")
    while (q := conversation.next_question()) is not None:
        give_answer(conversation, q, len(conversation.question(q).options) - 1)
    assert conversation.out_of_scope and conversation.turn <= 4
    # and a question it can answer, said plainly, is not turned away
    conversation = registry.clarifier().start("how do I strike through text in a gmail message")
    assert not conversation.out_of_scope and conversation.ranking(1)[0] == registry.domain.label_index("faq-004")


def _first_progress_after(job, message: str) -> Progress:
    """Run ``job`` until ``message``, return the record after it and stop the job (no training to the end)."""
    seen = False
    try:
        for record in job:
            if seen:
                return record
            seen = record.message == message
    finally:
        job.close()
    pytest.fail(f"the job never said {message!r}")


def _fake_release(tmp_path, **changes) -> None:
    """A release of the colours domain that matches it, except for ``changes`` to its manifest."""
    store_colour_domain()
    registry = ModelRegistry("colours")
    manifest = {
        "fingerprint": domain_fingerprint(registry.domain),
        "settings": model_settings(registry),
        "encoder": "",
    }
    manifest.update(changes)
    (tmp_path / "release" / "colours").mkdir(parents=True)
    (tmp_path / "release" / "colours" / MANIFEST).write_text(json.dumps(manifest))


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"fingerprint": "0" * 16}, "training: the knowledge base differs from the release's"),
        ({"settings": {"policy_episodes": 1}}, "training: the model settings differ from the release's"),
    ],
)
def test_a_release_that_does_not_fit_the_domain_is_not_installed_and_the_models_are_trained(tmp_path, changes, why):
    _fake_release(tmp_path, **changes)
    job = prepare("colours", release_dir=tmp_path / "release")
    after = _first_progress_after(job, why)
    assert after.message == "loading the domain"  # the encoder's training starts
    assert not (tmp_path / "clarify-home" / "models" / "colours" / "encoder.pt").exists()


def test_a_release_that_fits_a_home_whose_models_are_missing_is_installed(tmp_path):
    _fake_release(tmp_path)
    release = tmp_path / "release" / "colours"
    (release / "encoder.pt").write_bytes(b"weights")
    (release / "stop.json").write_text(json.dumps({"all/quick/x": {"coverage": 0.5}}))
    job = prepare("colours", release_dir=tmp_path / "release")
    after = _first_progress_after(job, "using the release models shipped with Clarify")
    installed = tmp_path / "clarify-home" / "models" / "colours"
    assert (installed / "encoder.pt").read_bytes() == b"weights"
    # these stand-in weights do not load, so prepare goes on to train: the checkpoint checks still decide
    assert after.message == "loading the domain"


@pytest.mark.slow
def test_damaged_models_in_a_home_of_release_models_are_replaced_from_the_release_not_retrained(fresh_clarify_home):
    run_job(build_domain("faq"))
    run_job(prepare("faq"))
    models = fresh_clarify_home / "models" / "faq"
    policy = "policy-all-learned-thorough"
    encoder = (models / "encoder.pt").read_bytes()
    (models / "encoder.pt").write_bytes(encoder[: len(encoder) // 3])
    (models / f"{policy}.json").write_bytes(b"\xff\xfe\x00{")
    (models / "stop.json").write_text('{"all-thorough": ')  # a damaged settings file is not merged
    assert "encoder" in ModelRegistry("faq").missing()

    done = run_job(prepare("faq"))

    assert done == ["release models"], "a damaged model of a release home is replaced in seconds, not retrained"
    assert (models / "encoder.pt").read_bytes() == (RELEASE_DIR / "faq" / "encoder.pt").read_bytes()
    assert (models / f"{policy}.json").read_bytes() == (RELEASE_DIR / "faq" / f"{policy}.json").read_bytes()
    assert ModelRegistry("faq").missing() == []
