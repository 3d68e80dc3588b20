"""The Lab's "Learn from use" tab: the active step (queries to label -> an MTurk batch CSV) and the update
of the text prior from logged sessions, with before/after figures. Both run the engine's jobs
(assistant.app.desk.learning, as ``clarify learn suggest|update``) in a worker with progress and Cancel."""

from __future__ import annotations

from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QLabel, QPushButton, QSpinBox

from assistant.app.desk.learning import suggest_batch_job, update
from assistant.progress import Progress
from gui.pages.lab.panel import LabPanel
from gui.workers import JobWorker


class LearningPanel(LabPanel):
    """Suggest queries to label (save CSV) and update the text prior from sessions (before/after)."""

    def __init__(self, lab) -> None:
        super().__init__(lab, "learning", "&Suggest queries to label…")
        self.k = self.add_field("Questions to label:", QSpinBox(self), "learnK")
        self.k.setRange(1, 100_000)
        self.k.setValue(50)
        self.labels = self.add_field("Answers offered:", QSpinBox(self), "learnLabels")
        self.labels.setRange(1, 20)
        self.labels.setValue(5)
        self.samples = self.add_field("Dropout passes:", QSpinBox(self), "learnSamples")
        self.samples.setToolTip("How many Monte Carlo dropout passes estimate how unsure the text model is")
        self.samples.setRange(2, 1000)
        self.samples.setValue(20)
        self.seed = self.add_field("Seed:", QSpinBox(self), "learnSeed")
        self.seed.setRange(0, 1_000_000)
        self.policies = QCheckBox("Retrain the stop policies after a new encoder", self)
        self.policies.setObjectName("learnPolicies")
        self.policies.setChecked(True)
        self.form.addRow(self.policies)
        self.update_button = QPushButton("&Update from sessions", self)
        self.update_button.setObjectName("learningUpdateButton")
        self.update_button.setAccessibleName("Update from sessions")
        self.update_button.clicked.connect(lambda: self.run_update())
        self.form.addRow(self.update_button)
        note = QLabel(
            "Suggest writes an MTurk batch of the session questions whose answers would help most; import its "
            "results with File > Import examples and answers (contents: example questions). Update retrains the text model "
            "on the stored questions plus accepted and pseudo-labelled session questions, and keeps it only if it "
            "is better on the development questions.",
            self,
        )
        note.setWordWrap(True)
        note.setStyleSheet("color: #666")
        self.form.addRow(note)
        self.figures = QLabel(self)
        self.figures.setObjectName("learningFigures")
        self.figures.setWordWrap(True)
        self.figures.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.results.addWidget(self.figures, 1)
        self.last_result: dict | None = None

    def start(self, title: str, make_job: Callable[[], Generator[Progress, None, Any]]) -> JobWorker | None:
        worker = super().start(title, make_job)
        if worker is not None:
            self.update_button.setEnabled(False)
            worker.finished.connect(lambda: self.update_button.setEnabled(True))
        return worker

    def run(self, out: str | Path | None = None) -> JobWorker | None:
        """Suggest: choose the queries and save the batch (``out`` skips the file dialog)."""
        domain = self.lab.domain
        if not domain:
            self.summary.setText("Pick a domain in the toolbar first.")
            return None
        target = self.save_path("Save the labelling batch", ".csv", out)
        if target is None:
            return None
        args: dict[str, Any] = dict(
            domain=domain,
            out=target,
            k=self.k.value(),
            labels=self.labels.value(),
            samples=self.samples.value(),
            seed=self.seed.value(),
        )
        return self.start(f"Choosing queries of {domain} to label", lambda: suggest_batch_job(**args))

    def run_update(self, make_job: Callable[[], Generator[Progress, None, Any]] | None = None) -> JobWorker | None:
        """Update the text prior (``make_job`` replaces the form's job: tests train tiny models)."""
        domain = self.lab.domain
        if make_job is None:
            if not domain:
                self.summary.setText("Pick a domain in the toolbar first.")
                return None
            args: dict[str, Any] = dict(domain=domain, samples=self.samples.value(), seed=self.seed.value())
            policies = self.policies.isChecked()
            make_job = lambda: update(**args, retrain_policies=policies)  # noqa: E731
        return self.start(f"Updating {domain} from its sessions", make_job)

    def on_result(self, result: Any) -> None:
        self.last_result = result
        if "before" in result:
            b, a = result["before"], result["after"]
            kept = (
                "the new text model" if result["kept"] == "new" else "the old text model (the new one was not better)"
            )
            self.figures.setText(
                "<table cellpadding='4'><tr><th></th><th>before</th><th>after</th></tr>"
                f"<tr><td>dev Acc@1</td><td>{b['dev_acc1']:.3f}</td><td>{a['dev_acc1']:.3f}</td></tr>"
                f"<tr><td>test Acc@1</td><td>{b['test_acc1']:.3f}</td><td>{a['test_acc1']:.3f}</td></tr></table>"
                f"<p>Learned from {result['labelled_sessions']} accepted and {result['pseudo_labelled']} "
                f"pseudo-labelled session queries; kept {kept}.</p>"
            )
            self.summary.setText(f"Update done: kept {'the new' if result['kept'] == 'new' else 'the old'} text model.")
            if result["kept"] == "new" and self.lab.domain:
                self.lab.modelsChanged.emit(self.lab.domain)
        else:
            shown = "".join(f"<li>{loss:.3f} {query}</li>" for query, loss in result["queries"][:10])
            self.figures.setText(f"<p>Expected ranking loss of the chosen queries (highest first):</p><ul>{shown}</ul>")
            self.summary.setText(f"Wrote {result['tasks']} labelling tasks to {result['file']}.")
