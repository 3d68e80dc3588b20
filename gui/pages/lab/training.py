"""The Lab's model training (`clarify train encoder|policy`) with a live learning curve."""

from __future__ import annotations

import json
from collections.abc import Callable, Generator
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QLabel,
    QSpinBox,
)

from assistant.app.lifecycle.training_jobs import PolicyConfig, train_encoder_job, train_policy_job
from assistant.progress import Progress
from gui.pages.lab.panel import LabContext, LabPanel
from gui.plots import LearningCurve, curve_records
from gui.widgets import fill_combo
from gui.words import CANDIDATE_TIPS, CANDIDATES, VARIANTS
from gui.workers import JobWorker


class TrainingPanel(LabPanel):
    """Train the text encoder or a STOP/ASK policy with a live learning curve."""

    modelsChanged = Signal(str)
    CURVE_ORDER = ("reward", "accuracy", "turns", "lambda", "loss", "dev_acc1", "dev_acc3", "dev_acc1_seen")

    def __init__(self, lab: LabContext) -> None:
        super().__init__(lab, "training", "&Start training")
        self.what = self.add_field("Model:", QComboBox(self), "trainWhat")
        self.what.addItems(["stop policy", "text encoder"])
        self.what.currentTextChanged.connect(self._what_changed)
        self.candidates = self.add_field("Answers:", QComboBox(self), "trainCandidates")
        fill_combo(self.candidates, CANDIDATES, CANDIDATE_TIPS)
        self.variant = self.add_field("Answer model:", QComboBox(self), "trainVariant")
        fill_combo(self.variant, VARIANTS)
        self.iterations = self.add_field("Iterations:", QSpinBox(self), "trainIterations")
        self.iterations.setRange(1, 100_000)
        self.iterations.setValue(300)
        self.turn_reward = self.add_field("Reward per question:", QDoubleSpinBox(self), "trainTurnReward")
        self.turn_reward.setRange(-20.0, 0.0)
        self.turn_reward.setSingleStep(0.1)
        self.turn_reward.setValue(-1.0)
        self.seed = self.add_field("Seed:", QSpinBox(self), "trainSeed")
        self.seed.setRange(0, 1_000_000)
        note = QLabel(
            "Training replaces the domain's saved model. After training the encoder, retrain the policies "
            "(or reopen the domain, which trains what is missing).",
            self,
        )
        note.setWordWrap(True)
        note.setStyleSheet("color: #666")
        self.form.addRow(note)
        self.curve = LearningCurve(self, self.CURVE_ORDER)
        self.results.addWidget(self.curve)
        self.last_result: Any = None

    def _what_changed(self, text: str) -> None:
        policy = text == "stop policy"
        for widget in (self.candidates, self.variant, self.iterations, self.turn_reward):
            widget.setEnabled(policy)

    def run(self, make_job: Callable[[], Generator[Progress, None, Any]] | None = None) -> JobWorker | None:
        """Train what the form says (``make_job`` replaces it: tests and scripts train tiny models)."""
        domain = self.lab.domain
        if make_job is None:
            if not domain:
                self.summary.setText("Pick a domain in the toolbar first.")
                return None
            if self.what.currentText() == "text encoder":
                seed = self.seed.value()
                title = f"Training the {domain} encoder"
                make_job = lambda: train_encoder_job(domain, seed)  # noqa: E731
            else:
                args = dict(
                    registry=domain,
                    candidates=self.candidates.currentData(),
                    variant=self.variant.currentData(),
                    config=PolicyConfig(iterations=self.iterations.value(), turn_reward=self.turn_reward.value()),
                    seed=self.seed.value(),
                )
                title = f"Training the {domain} stop policy ({self.candidates.currentText().lower()}, {self.variant.currentText().lower()})"
                make_job = lambda: train_policy_job(**args)  # noqa: E731
        else:
            title = "Training"
        self.curve.clear_curves()
        return self.start(title, make_job)

    def on_progress(self, batch: list[Progress]) -> None:
        records = curve_records(batch)
        self.curve.add(records)

    def on_result(self, result: Any) -> None:
        self.last_result = result
        history = getattr(result, "history", None)
        if history:
            last = history[-1]
            self.summary.setText(
                f"λ = {result.lam:.3f}, reward {last['reward']:.2f}, accuracy {100 * last['accuracy']:.1f}%, "
                f"{last['turns']:.2f} questions ({result.seconds:.1f} s)"
            )
        else:
            metrics = getattr(result, "metrics", None)
            self.summary.setText("Trained." + (f" {json.dumps(metrics)}" if metrics else ""))
        if self.lab.domain:
            self.modelsChanged.emit(self.lab.domain)
