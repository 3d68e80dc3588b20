"""Imports that do not surprise: a cancelled training goes on from where it stopped, small changes are
fine-tuned, and old sessions resume on changed data."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from assistant.app.lifecycle.updates import ModelUpdate, UpdatePlan, fine_tune_steps, is_small
from assistant.app.session.session import Session, SessionConfig
from assistant.priors.sru import encoder_checkpoint_path
from assistant.progress import run_job
from assistant.store import BINARY_OPTIONS, Question
from assistant.training.encoder import EncoderTrainConfig, data_sizes, train_encoder
from assistant.training.resume import resume_path
from tests.assistant.training.test_encoder import TINY, make_colour_domain
from tests.support.tiny import TinyAgents


def weights(result) -> dict[str, torch.Tensor]:
    return {k: v.clone() for k, v in result.prior.encoder.state_dict().items()}


@pytest.mark.slow
def test_a_cancelled_encoder_training_goes_on_from_where_it_stopped(tmp_path, monkeypatch):
    domain = make_colour_domain()
    config = dataclasses.replace(TINY, max_steps=30, eval_every=10)
    monkeypatch.setenv("CLARIFY_HOME", str(tmp_path / "straight"))
    straight = run_job(train_encoder(domain, config, seed=5))

    monkeypatch.setenv("CLARIFY_HOME", str(tmp_path / "cancelled"))
    job = train_encoder(domain, config, seed=5)
    for record in job:
        if record.step >= 20:
            break
    job.close()  # what Cancel does to a job
    resume = resume_path(encoder_checkpoint_path(domain.name))
    assert resume.with_suffix(".json").is_file()
    records = []
    job = train_encoder(domain, config, seed=5)
    try:
        while True:
            records.append(next(job))
    except StopIteration as done:
        resumed = done.value
    assert "going on from step 20" in records[0].message
    assert min(r.step for r in records[1:] if r.step) > 20  # no step is done twice
    for name, value in weights(straight).items():
        torch.testing.assert_close(weights(resumed)[name], value)  # as if never interrupted
    assert not resume.with_suffix(".json").exists()  # done: the resume point is gone


def test_a_resume_point_of_other_data_or_settings_is_not_used(tmp_path, monkeypatch):
    domain = make_colour_domain()
    config = dataclasses.replace(TINY, max_steps=20, eval_every=10)
    monkeypatch.setenv("CLARIFY_HOME", str(tmp_path))
    job = train_encoder(domain, config, seed=5)
    for record in job:
        if record.step >= 10:
            break
    job.close()
    other = dataclasses.replace(config, lr=5e-3)
    first = next(train_encoder(domain, other, seed=5))
    assert "going on" not in first.message


def test_small_changes_are_fine_tuned_and_large_ones_retrained():
    before = {"labels": 125, "questions": 642, "train_queries": 749, "annotations": 20_000}
    two_queries = {**before, "train_queries": 751}
    assert is_small({k: two_queries[k] - before[k] for k in before}, two_queries)
    many = {**before, "train_queries": 1000}
    assert not is_small({k: many[k] - before[k] for k in before}, many)
    new_label = {**before, "labels": 126}
    assert not is_small({k: new_label[k] - before[k] for k in before}, new_label)
    assert not is_small(None, before)  # a model from before sizes were recorded: trained afresh
    base = EncoderTrainConfig()
    steps = fine_tune_steps(two_queries, base)
    assert 30 <= steps <= 300 and steps < base.max_steps  # a few epochs, far fewer than a full training
    assert fine_tune_steps(two_queries, dataclasses.replace(base, max_steps=5)) == 5


def test_the_plan_says_what_is_stale_and_how_long_it_takes():
    plan = UpdatePlan(
        "faq",
        (ModelUpdate("encoder", "fine-tune", 50.0), ModelUpdate("policy-all-learned", "fine-tune", 25.0)),
        {"labels": 0, "train_queries": 2, "annotations": 0, "questions": 0},
    )
    text = plan.describe()
    assert text.startswith("The text encoder and the stop policy of faq are older than the data (2 new train")
    assert "keeps using them" in text and "fine-tuning" in text and "about 80 s" in text
    slow = UpdatePlan("faq", (ModelUpdate("encoder", "retrain", 400.0),))
    assert "a new training, about 7 min" in slow.describe()
    assert "up to date" in UpdatePlan("faq").describe()


def test_an_old_session_resumes_after_the_questions_changed():
    agents = TinyAgents(turns=3)
    session = Session.start(agents, "bird", SessionConfig(shortlist_size=4))
    session.answer(0)
    answered = session.conversation.question(session.conversation.answers[0].question).text
    probs = session.conversation.probs.copy()
    # an import adds a question in front: every index moves by one
    domain = agents.domain
    extra = Question("has_color::white", "Is it white?", "binary", "has_color", BINARY_OPTIONS)
    counts = np.concatenate([np.ones((1, *domain.counts.shape[1:]), dtype=np.float32), domain.counts])
    agents.domain = dataclasses.replace(domain, questions=[extra, *domain.questions], counts=counts)
    resumed = Session.resume(agents, session.id)
    [record] = resumed.conversation.answers
    assert resumed.conversation.question(record.question).text == answered
    np.testing.assert_allclose(resumed.conversation.probs, probs)
    assert data_sizes(agents.domain)["questions"] == data_sizes(domain)["questions"] + 1
