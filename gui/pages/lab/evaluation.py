"""The Lab's simulator evaluation of the clarifier (`clarify evaluate`): IC Table 1 and Acc@1 against turns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QGroupBox,
    QSpinBox,
)

from assistant.app.research.research import (
    SYSTEMS,
    evaluate_job,
    plot_accuracy_vs_turns,
)
from gui.pages.lab.panel import LabContext, LabPanel
from gui.plots import AccuracyPlot
from gui.qt_models import EvaluationResultsModel
from gui.widgets import fill_combo, make_table, stretch_column
from gui.words import CANDIDATE_TIPS, CANDIDATES, QUERY_SETS, SYSTEM_TIPS, system_words
from gui.words import SYSTEMS as SYSTEM_WORDS
from gui.workers import JobWorker


class EvaluationPanel(LabPanel):
    """Simulator evaluation of the clarifier against the baselines (IC Table 1 and Figure 2)."""

    def __init__(self, lab: LabContext) -> None:
        super().__init__(lab, "evaluation", "&Run evaluation")

        self.candidates = self.add_field("Answers:", QComboBox(self), "evalCandidates")
        fill_combo(self.candidates, CANDIDATES, CANDIDATE_TIPS)
        self.queries = self.add_field("First queries:", QComboBox(self), "evalQueries")
        fill_combo(self.queries, QUERY_SETS)
        self.queries.setToolTip(
            "The crowd's held-out queries, or vague versions of them (short, not naming the answer)"
        )
        self.episodes = self.add_field("Episodes:", QSpinBox(self), "evalEpisodes")
        self.episodes.setRange(10, 100_000)
        self.episodes.setSingleStep(100)
        self.episodes.setValue(1000)
        self.max_turns = self.add_field("Max questions:", QSpinBox(self), "evalMaxTurns")
        self.max_turns.setRange(1, 30)
        self.max_turns.setValue(10)
        self.seed = self.add_field("Seed:", QSpinBox(self), "evalSeed")
        self.seed.setRange(0, 1_000_000)
        systems_box = QGroupBox("Systems", self)
        grid = QGridLayout(systems_box)
        self.systems: dict[str, QCheckBox] = {}
        for i, name in enumerate(SYSTEMS):
            box = QCheckBox(SYSTEM_WORDS.get(name, name), systems_box)
            box.setObjectName(f"system_{name}")
            box.setToolTip(SYSTEM_TIPS.get(name, ""))
            box.setChecked(True)
            grid.addWidget(box, i, 0)
            self.systems[name] = box
        self.form.addRow(systems_box)
        self.plot = AccuracyPlot(self)
        self.model = EvaluationResultsModel(self)
        self.table = make_table("evaluationTable", "Evaluation results", self)
        self.table.setModel(self.model)
        stretch_column(self.table, 0)
        self.results.addWidget(self.plot, 3)
        self.results.addWidget(self.table, 2)
        self.add_export("Export C&SV…", "exportEvaluationCsv", self.export_csv)
        self.add_export("Export &PNG…", "exportEvaluationPng", self.export_png)
        self.add_export("Export &JSON…", "exportEvaluationJson", self.export_json)
        self.report: Any = None

    def chosen_systems(self) -> list[str]:
        return [name for name, box in self.systems.items() if box.isChecked()]

    def run(self, **overrides: Any) -> JobWorker | None:
        """Run the form's evaluation (``overrides`` replace form values, e.g. ``dev_episodes``)."""
        domain = self.lab.domain
        if not domain:
            self.summary.setText("Pick a domain in the toolbar first.")
            return None
        args = dict(
            registry=domain,
            candidates=self.candidates.currentData(),
            episodes=self.episodes.value(),
            seed=self.seed.value(),
            systems=self.chosen_systems(),
            max_turns=self.max_turns.value(),
            dev_episodes=self.lab.dev_episodes,
            queries=self.queries.currentData(),
        )
        args.update(overrides)
        return self.start(f"Evaluating {domain}", lambda: evaluate_job(**args))

    def on_result(self, report: Any) -> None:
        self.report = report
        self.plot.show_report(report)
        self.model.set_records(report.rows)
        meta = report.meta
        best = max(report.rows, key=lambda r: r["acc1"]) if report.rows else None
        ours = next((r for r in report.rows if r["system"] == "ours"), None)
        text = f"{meta['domain']}: {meta['episodes']} episodes, {meta['candidates']} possible answers, {meta['seconds']} s."
        if ours is not None:
            text += f"\nClarify: Acc@1 {100 * ours['acc1']:.1f}% in {ours['mean_turns']:.2f} questions on average."
        if best is not None:
            text += f"\nBest Acc@1: {system_words(best)} {100 * best['acc1']:.1f}%."
        if ours is not None and "early_stop_share" in ours:
            text += f" Early stops (top < 30% with a useful question left): {100 * ours['early_stop_share']:.1f}%."
        if "threshold" in meta:
            text += f"\nTuned threshold: {meta['threshold']}."
        self.summary.setText(text)
        for button in self.export_buttons:
            button.setEnabled(True)

    def export_csv(self, path: str | Path | None = None) -> JobWorker | None:
        target = self.save_path("Export the results as CSV", ".csv", path) if self.report else None
        if target is None:
            return None
        report = self.report
        return self.write_later("Export CSV", target, lambda p: p.write_text(report.to_csv()))

    def export_png(self, path: str | Path | None = None) -> JobWorker | None:
        target = self.save_path("Export the plot as PNG", ".png", path) if self.report else None
        if target is None:
            return None
        report = self.report
        return self.write_later("Export PNG", target, lambda p: plot_accuracy_vs_turns(report, p))

    def export_json(self, path: str | Path | None = None) -> JobWorker | None:
        target = self.save_path("Export the results as JSON", ".json", path) if self.report else None
        if target is None:
            return None
        report = self.report
        return self.write_later("Export JSON", target, report.to_json)
