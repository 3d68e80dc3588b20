"""The Lab's ranking evaluation (`clarify rank evaluate`): accuracy and NDCG against comparisons."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QGroupBox,
    QSpinBox,
)

from assistant.app.research.research import (
    RANKING_DATASETS,
    RANKING_MODELS,
    RANKING_STRATEGIES,
    plot_ranking_curves,
    ranking_evaluation_job,
)
from gui.pages.lab.panel import LabContext, LabPanel
from gui.plots import RankingPlot
from gui.qt_models import RankingResultsModel
from gui.widgets import make_table, stretch_column
from gui.words import PAIR_CHOICE_TIPS, PAIR_CHOICES, RANKING_MODEL_TIPS, ranking_words
from gui.words import RANKING_MODELS as RANKER_WORDS
from gui.workers import JobWorker

RANKING_CSV_FIELDS = ("model", "strategy", "interactions", "accuracy", "ndcg5", "seconds_per_interaction", "questions")


def ranking_csv(result: dict) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(RANKING_CSV_FIELDS), extrasaction="ignore")
    writer.writeheader()
    for row in result["rows"]:
        writer.writerow(row)
    return out.getvalue()


class RankingPanel(LabPanel):
    """The pairwise ranker on community-QA data with a simulated user (BO Figures 3-4)."""

    def __init__(self, lab: LabContext) -> None:
        super().__init__(lab, "ranking", "&Run ranking evaluation")

        self.dataset = self.add_field("Dataset:", QComboBox(self), "rankDataset")
        for name, description in RANKING_DATASETS.items():
            self.dataset.addItem(name)
            self.dataset.setItemData(self.dataset.count() - 1, description, Qt.ItemDataRole.ToolTipRole)
        self.dataset.setCurrentText("coffee")
        self.questions = self.add_field("Questions (0 = all):", QSpinBox(self), "rankQuestions")
        self.questions.setRange(0, 100_000)
        self.questions.setValue(20)
        self.interactions = self.add_field("Comparisons:", QSpinBox(self), "rankInteractions")
        self.interactions.setRange(0, 200)
        self.interactions.setValue(10)
        self.candidates = self.add_field("Candidates per question:", QSpinBox(self), "rankCandidates")
        self.candidates.setRange(2, 1000)
        self.candidates.setValue(100)
        self.noise = self.add_field("User noise t:", QDoubleSpinBox(self), "rankNoise")
        self.noise.setRange(0.01, 10.0)
        self.noise.setSingleStep(0.1)
        self.noise.setValue(0.3)
        self.split = self.add_field("Split:", QComboBox(self), "rankSplit")
        self.split.addItems(["test", "dev", "train", "all"])
        self.seed = self.add_field("Seed:", QSpinBox(self), "rankSeed")
        self.seed.setRange(0, 1_000_000)
        boxes = QGroupBox("Rankers", self)
        grid = QGridLayout(boxes)
        pair_boxes = QGroupBox("How the next pair is chosen", self)
        pair_grid = QGridLayout(pair_boxes)
        self.models: dict[str, QCheckBox] = {}
        self.strategies: dict[str, QCheckBox] = {}
        for i, name in enumerate(RANKING_MODELS):
            box = QCheckBox(RANKER_WORDS.get(name, name), boxes)
            box.setObjectName(f"model_{name}")
            box.setToolTip(RANKING_MODEL_TIPS.get(name, ""))
            box.setChecked(name in ("gppl", "bt"))
            grid.addWidget(box, i, 0)
            self.models[name] = box
        for i, name in enumerate(RANKING_STRATEGIES):
            box = QCheckBox(PAIR_CHOICES.get(name, name), pair_boxes)
            box.setObjectName(f"strategy_{name}")
            box.setToolTip(PAIR_CHOICE_TIPS.get(name, ""))
            box.setChecked(name in ("imp", "unc", "random"))
            pair_grid.addWidget(box, i, 0)
            self.strategies[name] = box
        self.form.addRow(boxes)
        self.form.addRow(pair_boxes)
        self.plot = RankingPlot(self)
        self.model = RankingResultsModel(self)
        self.table = make_table("rankingTable", "Ranking results", self)
        self.table.setModel(self.model)
        stretch_column(self.table, 1)
        self.results.addWidget(self.plot, 3)
        self.results.addWidget(self.table, 2)
        self.add_export("Export C&SV…", "exportRankingCsv", self.export_csv)
        self.add_export("Export &PNG…", "exportRankingPng", self.export_png)
        self.add_export("Export &JSON…", "exportRankingJson", self.export_json)
        self.result: dict | None = None

    def settings(self) -> dict[str, Any]:
        """The form as ``ranking_evaluation_job`` arguments."""
        return dict(
            dataset=self.dataset.currentText(),
            interactions=self.interactions.value(),
            strategies=[k for k, b in self.strategies.items() if b.isChecked()],
            models=[k for k, b in self.models.items() if b.isChecked()],
            seed=self.seed.value(),
            t=self.noise.value(),
            split=self.split.currentText(),
            max_questions=self.questions.value() or None,
            candidates=self.candidates.value(),
        )

    def run(self, **overrides: Any) -> JobWorker | None:
        """Run the form's evaluation (``overrides`` replace form values, e.g. a cheap ``encoder`` in tests)."""
        args = {**self.settings(), **overrides}
        return self.start(f"Ranking evaluation on {args['dataset']}", lambda: ranking_evaluation_job(**args))

    def on_result(self, result: dict) -> None:
        self.result = result
        self.plot.show_result(result)
        self.model.set_result(result)
        best = result.get("wilcoxon", {}).get("best", {})
        self.summary.setText(
            f"{result['dataset']} ({result['split']}): {result['questions']} questions, "
            f"{result['candidates_per_question']:.0f} candidates each, t = {result['t']}."
            + (
                f"\nBest after {result['interactions']} comparisons: {ranking_words(best.get('model'), best.get('strategy'))}."
                if best
                else ""
            )
        )
        for button in self.export_buttons:
            button.setEnabled(True)

    def export_csv(self, path: str | Path | None = None) -> JobWorker | None:
        result = self.result
        target = self.save_path("Export the results as CSV", ".csv", path) if result else None
        if result is None or target is None:
            return None
        text = ranking_csv(result)
        return self.write_later("Export CSV", target, lambda p: p.write_text(text))

    def export_png(self, path: str | Path | None = None) -> JobWorker | None:

        result = self.result
        target = self.save_path("Export the plot as PNG", ".png", path) if result else None
        if result is None or target is None:
            return None
        return self.write_later("Export PNG", target, lambda p: plot_ranking_curves(result, p))

    def export_json(self, path: str | Path | None = None) -> JobWorker | None:
        target = self.save_path("Export the results as JSON", ".json", path) if self.result else None
        if target is None:
            return None
        text = json.dumps(self.result, indent=2)
        return self.write_later("Export JSON", target, lambda p: p.write_text(text))
