"""The Lab page: evaluation results with plot, table and exports; the ranking evaluation end to end."""

from __future__ import annotations

import csv
import json

import numpy as np
from gui_helpers import TIMEOUT_MS, wait_idle
from PySide6.QtWidgets import QMessageBox, QPushButton, QTableView

from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.stopping import LearnedPolicy
from assistant.evaluation.clarifier import EvaluationSetup, evaluate
from assistant.progress import run_job
from assistant.simulation.episodes import sample_episodes
from assistant.simulation.user import SimulatedUser
from assistant.training.policy import PolicyConfig, train_policy
from gui.qt_models import VALUE_ROLE
from gui.words import system_words
from tests.support import HashingEncoder
from tests.support.tiny import KeywordPrior, make_tiny_domain


def tiny_report():
    """A real EvaluationReport on the tiny domain (as the engine's evaluation test makes one)."""
    domain = make_tiny_domain()
    episodes = sample_episodes(domain, 200, 0, "train")
    prior = KeywordPrior(domain)
    from assistant.priors.base import restrict

    scores = restrict(prior.scores([e.query for e in episodes]), None)
    model = AnswerModel(domain.p_hat(1.0), domain.option_mask)
    config = PolicyConfig(iterations=10, batch_size=16, max_turns=3)
    targets = np.array([e.target for e in episodes])
    policy = LearnedPolicy(run_job(train_policy(model, domain.p_hat(1.0), episodes, scores, targets, config)).net)
    setup = EvaluationSetup(
        domain=domain,
        candidates=np.arange(4),
        prior=prior,
        answer_model=model,
        policy=policy,
        user=SimulatedUser(domain.p_hat(0.5), domain.option_mask),
        bm25_prior=prior,
    )
    test = sample_episodes(domain, 60, 5, "test")
    dev = sample_episodes(domain, 30, 6, "train")
    return run_job(evaluate(setup, test, dev, max_turns=3))


def wait_for(qtbot, worker):
    """Wait until the worker ended and every signal it sent was delivered (the pool deletes it then)."""

    def finished() -> bool:
        try:
            return worker.isFinished()
        except RuntimeError:  # already deleted by the pool: finished long ago
            return True

    qtbot.waitUntil(finished, timeout=60_000)
    qtbot.wait(20)
    return worker.outcome


def test_evaluation_results_plot_table_and_exports(qtbot, tiny_window, tmp_path):
    window = tiny_window
    window.show_page("lab")
    panel = window.lab_page.evaluation
    exports = [panel.findChild(QPushButton, n) for n in ("exportEvaluationCsv", "exportEvaluationPng")]
    assert not any(b.isEnabled() for b in exports)
    report = tiny_report()
    panel.on_result(report)
    table = panel.findChild(QTableView, "evaluationTable").model()
    assert table.rowCount() == len(report.rows)
    assert table.index(0, 0).data(VALUE_ROLE) == report.rows[0]["system"]
    assert table.index(0, 0).data() == system_words(report.rows[0])  # words, not the engine's name
    curves = [item for item in panel.plot.getPlotItem().listDataItems()]
    assert len(curves) >= len(report.curves)
    assert "Clarify: Acc@1" in panel.summary.text()
    assert all(b.isEnabled() for b in exports)
    for name, export in (("r.csv", panel.export_csv), ("r.png", panel.export_png), ("r.json", panel.export_json)):
        assert wait_for(qtbot, export(tmp_path / name)) == "succeeded"
    rows = list(csv.DictReader((tmp_path / "r.csv").open()))
    assert [r["system"] for r in rows] == [r["system"] for r in report.rows]
    assert (tmp_path / "r.png").read_bytes()[:4] == b"\x89PNG"
    assert json.loads((tmp_path / "r.json").read_text())["meta"]["episodes"] == 60


def test_an_evaluation_without_trained_models_explains_itself(qtbot, tiny_window):
    window = tiny_window
    panel = window.lab_page.evaluation
    panel.episodes.setValue(20)
    worker = panel.run()
    assert wait_for(qtbot, worker) == "failed"
    qtbot.waitUntil(lambda: window.last_error is not None, timeout=TIMEOUT_MS)
    assert window.last_error[0] == "Evaluating tiny"
    # the model is missing: the message says so and how to fix it (not some other failure)
    assert "clarify" in window.last_error[1] and "train" in window.last_error[1], window.last_error
    qtbot.waitUntil(panel.run_button.isEnabled, timeout=TIMEOUT_MS)
    for box in window.findChildren(QMessageBox):
        box.close()
    wait_idle(qtbot, window)


def test_ranking_evaluation_in_the_lab(qtbot, tiny_window, tmp_path):
    window = tiny_window
    window.show_page("lab")
    panel = window.lab_page.ranking
    panel.dataset.setCurrentText("coffee")
    panel.questions.setValue(3)
    panel.interactions.setValue(3)
    panel.candidates.setValue(15)
    for name, box in panel.models.items():
        box.setChecked(name in ("gppl", "bt"))
    for name, box in panel.strategies.items():
        box.setChecked(name in ("imp", "unc", "random"))
    worker = panel.run(encoder=HashingEncoder())
    assert wait_for(qtbot, worker) == "succeeded"
    assert worker.last_progress.total == 3 and "coffee" in worker.last_progress.message
    result = panel.result
    table = panel.findChild(QTableView, "rankingTable").model()
    keys = {(table.index(r, 0).data(VALUE_ROLE), table.index(r, 1).data(VALUE_ROLE)) for r in range(table.rowCount())}
    assert keys == {("prior", "none"), ("gppl", "imp"), ("gppl", "random"), ("bt", "unc"), ("bt", "random")}
    shown = {(table.index(r, 0).data(), table.index(r, 1).data()) for r in range(table.rowCount())}
    assert ("Gaussian process (GPPL)", "Expected improvement") in shown and ("Bradley–Terry", "Closest scores") in shown
    assert all(table.index(r, 2).data() in ("0", "3") for r in range(table.rowCount()))
    assert "coffee" in panel.summary.text() and "3 questions" in panel.summary.text()
    assert wait_for(qtbot, panel.export_csv(tmp_path / "rank.csv")) == "succeeded"
    rows = list(csv.DictReader((tmp_path / "rank.csv").open()))
    assert len(rows) == len(result["rows"]) and set(rows[0]) >= {"model", "strategy", "accuracy", "ndcg5"}
    assert wait_for(qtbot, panel.export_png(tmp_path / "rank.png")) == "succeeded"
    assert (tmp_path / "rank.png").stat().st_size > 1000
