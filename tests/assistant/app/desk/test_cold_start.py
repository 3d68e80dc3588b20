"""The cold-start path end to end on a tiny FAQ (tiny budgets): prepared from its texts alone, it says which
text prior it took, serves a conversation, and learns from accepted sessions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from assistant.app.desk.cold_start import cold_start_prepare, held_out_queries
from assistant.app.desk.domains import prepare
from assistant.app.desk.learning import learn_from_use_job, pending_sessions
from assistant.app.desk.own_faq import create_domain_job
from assistant.app.lifecycle.calibration_jobs import calibration_missing, calibration_path
from assistant.app.lifecycle.prior_choice import chosen_text_prior
from assistant.app.lifecycle.registry import ModelRegistry
from assistant.app.lifecycle.training_jobs import policy_prior
from assistant.priors.desk import DeskPrior, shipped_settings
from assistant.progress import collect, run_job
from assistant.store import KnowledgeBase, SessionLog
from assistant.training.encoder import EncoderTrainConfig
from models.checkpoint import read_json

pytestmark = pytest.mark.slow  # each test prepares a FAQ: trains its encoder and policies

TINY_FAQ = """key,title,description,category,answer
wifi,How do I connect to the Wi-Fi?,My laptop has no internet.,Computers,"Choose the network Guest. If the terms page does not appear, open any web page."
print,How do I print a document?,,Computers,"Send the file to the print station and pay 15 cents a page. If the printer says ""Out of paper"", ask at the desk."
scan,Can I scan documents?,,Computers,The copier scans to email for free.
renew,How do I renew my books?,My books are due soon.,Borrowing,"Log in to My Account and choose ""Renew all"". If someone placed a hold, you cannot renew."
fines,Do you charge late fees?,My books are overdue.,Borrowing,No. If an item is 30 days late we bill its cost.
hold,How do I reserve a book?,Someone has the book I want.,Borrowing,"Choose ""Place hold"" in the catalogue; we email you when it is ready."
hours,When is the library open?,,Visiting,Monday to Friday 9-20 and weekends 10-17.
parking,Where can I park?,,Visiting,The car park on Mill Street is free for two hours.
"""
TINY_PROBE = EncoderTrainConfig(max_steps=20, eval_every=10, patience=1, blend=False)


@pytest.fixture
def tiny_faq(tmp_path) -> Path:
    path = tmp_path / "tiny.csv"
    path.write_text(TINY_FAQ, encoding="utf-8")
    run_job(create_domain_job("tiny", path))
    return path


def test_a_tiny_faq_is_prepared_from_its_texts_and_answers_a_question(tiny_faq):
    records, done = collect(cold_start_prepare("tiny", seed=0, policy_iterations=3, sru_probe=TINY_PROBE))
    assert done[0].startswith("text prior: ") and "held-out synthesized queries" in done[0]
    assert {"policy-all-learned-quick", "policy-all-learned-thorough", "coverage-all-quick", "oos-all-thorough"} <= set(
        done
    )
    chosen = chosen_text_prior("tiny")
    assert chosen in ("minilm", "sru") and done[0].startswith(f"text prior: {chosen}")
    steps = [r.step for r in records if r.total == 1000]
    assert steps == sorted(steps) and steps[-1] == 1000  # one scale over every stage
    # no ETA of its own: the front end's one (assistant.progress.Eta), so a terminal shows one, not two
    assert not any(" left" in r.message for r in records)
    registry = ModelRegistry("tiny")
    assert registry.text_prior == chosen and registry.missing() == []
    texts, labels = held_out_queries(registry)
    assert len(texts) == len(labels) > 0
    conversation = registry.clarifier().start("no internet on my laptop")
    probs = conversation.probs
    assert probs.shape == (8,) and abs(probs.sum() - 1) < 1e-4
    question = conversation.next_question(override_stop=True)
    assert question is not None and conversation.question(question).text.endswith("?")
    # issue 32: the prior is calibrated before the policies learn, and they learn on the belief it serves; issue
    # 39: a desk's first guess is the desk prior, whose numbers come from other desks, not from this FAQ's
    # synthesized queries
    assert chosen == "minilm" and isinstance(registry.encoder, DeskPrior)
    assert done.index("calibration") < done.index("policy-all-learned-quick")
    saved = read_json(calibration_path(registry))
    assert saved["fitted_on"] == list(shipped_settings().fitted_on) and not calibration_missing(registry)
    assert saved["shortlist"]["threshold"] == shipped_settings().shortlist_threshold
    oos = registry.out_of_scope_model("all", "quick")
    assert oos is not None and oos.weights == shipped_settings().out_of_scope_weights
    trained_on = policy_prior(registry).scores(["no internet on my laptop"])
    np.testing.assert_allclose(trained_on, registry.clarifier().prior.scores(["no internet on my laptop"]), atol=1e-6)


def test_policy_iterations_shrink_with_the_entries_above_150_only():
    from assistant.app.desk.cold_start import POLICY_ITERATIONS, policy_iterations_for

    assert [policy_iterations_for(n) for n in (8, 25, 150)] == [POLICY_ITERATIONS] * 3  # small desks as before
    assert policy_iterations_for(300) == POLICY_ITERATIONS // 2 and policy_iterations_for(981) == 46
    assert policy_iterations_for(5000) == 20 and policy_iterations_for(981, iterations=3) == 3


def test_a_faq_above_the_probe_cap_keeps_minilm_without_training_the_encoder(tiny_faq, monkeypatch):
    import assistant.app.desk.cold_start as cold_start
    from assistant.app.lifecycle.prior_choice import TEXT_PRIOR_CHOICE
    from assistant.paths import models_dir
    from models.checkpoint import read_json

    monkeypatch.setattr(cold_start, "SRU_PROBE_MAX_ENTRIES", 7)  # the tiny FAQ has 8 entries
    records, done = collect(cold_start_prepare("tiny", seed=0, try_sru=True, policy_iterations=2, sru_probe=TINY_PROBE))
    assert done[0].startswith("text prior: minilm") and "sru" not in done[0]
    assert done[1] == "SRU encoder probe skipped: 8 entries (above 7: the MiniLM prior alone)"
    assert not any("SRU encoder" in r.message for r in records)
    assert chosen_text_prior("tiny") == "minilm"
    saved = read_json(models_dir("tiny") / TEXT_PRIOR_CHOICE)
    assert saved["sru_probe"] == done[1] and set(saved["held_out"]) == {"minilm"}
    assert ModelRegistry("tiny").missing() == []


def test_prepare_takes_the_cold_start_path_once_and_says_so(tiny_faq, monkeypatch):
    import assistant.app.desk.cold_start as cold_start

    monkeypatch.setattr(cold_start, "POLICY_ITERATIONS", 2)
    monkeypatch.setattr(cold_start, "SRU_PROBE", TINY_PROBE)
    original = cold_start.cold_start_prepare

    def tiny(name, seed=0, try_sru=False):
        return original(name, seed, try_sru, policy_iterations=2, sru_probe=TINY_PROBE)

    monkeypatch.setattr(cold_start, "cold_start_prepare", tiny)  # domains imports it where it prepares
    done = run_job(prepare("tiny"))
    assert done[0] == "cold start" and done[1].startswith("text prior:")
    assert run_job(prepare("tiny")) == []  # prepared: nothing left to do


def test_accepted_sessions_become_training_pairs_and_the_models_update(tiny_faq):
    run_job(cold_start_prepare("tiny", seed=0, try_sru=False, policy_iterations=2))
    with KnowledgeBase.open("tiny") as kb:
        log = SessionLog(kb)
        for query, label in [("laptop offline", "wifi"), ("overdue charge", "fines"), ("opening times", "hours")]:
            number = log.create(query, {})
            log.append(number, "accept", {"label": label}, "finished", label)
        number = log.create("printer jammed", {})
        log.append(number, "give_up", {}, "failed", None)
    assert pending_sessions("tiny") == 3
    waiting = run_job(learn_from_use_job("tiny", min_new=5))
    assert waiting == {"stored": 0, "pending": 3, "updated": []}
    learned = run_job(learn_from_use_job("tiny", min_new=3))
    assert learned["stored"] == 3 and "prior" in learned["updated"]  # the prior no longer fitted the data
    with KnowledgeBase.open("tiny") as kb:
        rows = sorted(
            kb.db.execute(
                "SELECT l.key, q.text, q.split FROM queries q JOIN labels l ON l.id = q.label_id WHERE q.source = 'session'"
            )
        )
    assert rows == [
        ("fines", "overdue charge", "train"),
        ("hours", "opening times", "train"),
        ("wifi", "laptop offline", "train"),
    ]
    assert pending_sessions("tiny") == 0 and ModelRegistry("tiny").stale() == []
    # issue 34: nothing left for the first question to tune (the retrained policies' coverage and out-of-scope
    # rules were re-tuned for 100 s at the first `ask`)
    assert ModelRegistry("tiny").missing() == []
