"""The Lab's "Learn from use" tab: suggest writes the labelling batch, update shows before/after figures,
and a cancelled update leaves the old model in place."""

from __future__ import annotations

import csv

import pytest
from PySide6.QtWidgets import QPushButton

from assistant.app.desk.learning import update
from assistant.priors.sru import encoder_checkpoint_path
from tests.support.product import (
    NAME,
    TINY_ENCODER,
    SimulatedDesk,
    build_domain,
    log_sessions,
    train_tiny_encoder,
)

pytestmark = pytest.mark.slow


def wait_for(qtbot, worker):
    def finished() -> bool:
        try:
            return worker.isFinished()
        except RuntimeError:
            return True

    qtbot.waitUntil(finished, timeout=120_000)
    qtbot.wait(20)
    return worker.outcome


def test_learning_tab_suggests_updates_and_cancels(qtbot, tiny_window, tmp_path):
    truth = build_domain()
    train_tiny_encoder()
    log_sessions(SimulatedDesk(), truth["sessions"][::2])
    window = tiny_window
    window.show_page("lab")
    lab = window.lab_page
    lab.tabs.setCurrentWidget(lab.learning)
    lab.set_domain(NAME)
    panel = lab.learning
    panel.k.setValue(4)
    panel.samples.setValue(4)
    out = tmp_path / "batch.csv"
    assert wait_for(qtbot, panel.run(out=out)) == "succeeded"
    assert len(list(csv.DictReader(out.open(encoding="utf-8")))) == 4
    assert "Wrote 4 labelling tasks" in panel.summary.text() and "<li>" in panel.figures.text()

    # Cancel: the job stops at its next progress record and the old model stays
    weights = encoder_checkpoint_path(NAME).with_suffix(".pt").read_bytes()
    worker = panel.run_update(lambda: update(NAME, train_config=TINY_ENCODER, retrain_policies=False))
    assert not panel.update_button.isEnabled() and not panel.run_button.isEnabled()
    worker.cancel()
    assert wait_for(qtbot, worker) == "cancelled"
    assert encoder_checkpoint_path(NAME).with_suffix(".pt").read_bytes() == weights
    qtbot.waitUntil(panel.update_button.isEnabled, timeout=5_000)

    worker = panel.run_update(lambda: update(NAME, train_config=TINY_ENCODER, retrain_policies=False))
    assert wait_for(qtbot, worker) == "succeeded"
    result = panel.last_result
    text = panel.figures.text()
    assert f"{result['before']['dev_acc1']:.3f}" in text and f"{result['after']['test_acc1']:.3f}" in text
    assert window.findChild(QPushButton, "learningUpdateButton").isEnabled()
