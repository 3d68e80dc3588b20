"""The Lab page (researchers): simulator evaluation, model training with live learning curves, and the
ranking evaluation, each with progress and Cancel, a plot, a results table and CSV/PNG/JSON export.

The jobs are the engine's (the same calls as ``clarify evaluate``, ``clarify train`` and
``clarify rank evaluate``); each runs in a worker thread, which opens its own knowledge base connection.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Generator, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from assistant.progress import Progress
from gui.qt_models import EvaluationResultsModel, RankingResultsModel
from gui.widgets import AccuracyPlot, LearningCurve, RankingPlot, curve_records, make_table, stretch_column
from gui.workers import JobWorker, ProgressPanel, WorkerPool, is_running

ErrorHandler = Callable[[str, BaseException, str], None]
RANKING_CSV_FIELDS = ("model", "strategy", "interactions", "accuracy", "ndcg5", "seconds_per_interaction", "questions")


# ---- the jobs (no Qt: the same calls as the CLI) -----------------------------------------------------------
def evaluation_job(
    domain: str,
    candidates: str = "all",
    episodes: int = 1000,
    seed: int = 0,
    systems: Sequence[str] | None = None,
    max_turns: int = 10,
    dev_episodes: int = 500,
) -> Generator[Progress, None, Any]:
    """``clarify evaluate DOMAIN``: every system on the same simulated test episodes."""
    from assistant.agent import AgentFactory
    from assistant.evaluation import SYSTEMS

    yield Progress(0, 0, f"loading the models of {domain}")
    factory = AgentFactory(domain)
    systems = tuple(systems or SYSTEMS)
    return (yield from factory.evaluate(candidates, episodes, seed, systems, max_turns, dev_episodes))


def train_encoder_job(domain: str, seed: int = 0) -> Generator[Progress, None, Any]:
    """``clarify train encoder DOMAIN`` (the policies must be retrained afterwards)."""
    from assistant.agent import AgentFactory

    yield Progress(0, 0, f"loading {domain}")
    factory = AgentFactory(domain)
    return (yield from factory.train_encoder(seed))


def train_policy_job(
    domain: str,
    candidates: str = "all",
    variant: str = "learned",
    iterations: int = 300,
    turn_reward: float = -1.0,
    seed: int = 0,
) -> Generator[Progress, None, Any]:
    """``clarify train policy DOMAIN --variant V``: REINFORCE against the simulator."""
    from assistant.agent import AgentFactory
    from assistant.training import PolicyConfig

    yield Progress(0, 0, f"loading the models of {domain}")
    factory = AgentFactory(domain)
    config = PolicyConfig(iterations=iterations, turn_reward=turn_reward)
    return (yield from factory.train_policy(candidates, variant, config, seed))


def ranking_job(
    dataset: str,
    interactions: int = 10,
    strategies: Sequence[str] = ("imp", "random"),
    models: Sequence[str] = ("gppl",),
    seed: int = 0,
    t: float = 0.3,
    split: str = "test",
    max_questions: int | None = 20,
    candidates: int = 100,
    encoder: Any = None,
) -> Generator[Progress, None, dict]:
    """``clarify rank evaluate DATASET``: simulated users rank the answers of community-QA questions.

    ``encoder`` (default MiniLM) embeds the questions and answers; embeddings are cached under CLARIFY_HOME."""
    from assistant.ranking.evaluation import evaluate

    return (
        yield from evaluate(
            dataset,
            interactions=interactions,
            strategies=list(strategies),
            models=list(models),
            seed=seed,
            t=t,
            split=split,
            n_candidates=candidates,
            max_questions=max_questions,
            encoder=encoder,
        )
    )


def ranking_csv(result: dict) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(RANKING_CSV_FIELDS), extrasaction="ignore")
    writer.writeheader()
    for row in result["rows"]:
        writer.writerow(row)
    return out.getvalue()


# ---- shared panel machinery -----------------------------------------------------------------------------
class _Panel(QWidget):
    """A form on the left (parameters, Run, progress + Cancel, exports), results on the right."""

    def __init__(self, lab: LabPage, name: str, run_text: str) -> None:
        super().__init__(lab)
        self.setObjectName(name)
        self.lab = lab
        self.form = QFormLayout()
        self.run_button = QPushButton(run_text, self)
        self.run_button.setObjectName(f"{name}RunButton")
        self.run_button.setAccessibleName(run_text.replace("&", ""))
        self.run_button.clicked.connect(lambda: self.run())
        self.progress = ProgressPanel(self, f"{name}Progress")
        self.summary = QLabel(self)
        self.summary.setObjectName(f"{name}Summary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.exports = QHBoxLayout()
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addLayout(self.form)
        left_layout.addWidget(self.run_button)
        left_layout.addWidget(self.progress)
        left_layout.addWidget(self.summary)
        left_layout.addStretch(1)
        left_layout.addLayout(self.exports)
        left.setMinimumWidth(300)
        left.setMaximumWidth(400)
        self.results = QVBoxLayout()
        right = QWidget(self)
        right.setLayout(self.results)
        self.results.setContentsMargins(0, 0, 0, 0)
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 1)
        splitter.setChildrenCollapsible(False)
        QVBoxLayout(self).addWidget(splitter)
        self.worker: JobWorker | None = None
        self.export_buttons: list[QPushButton] = []

    def add_field(self, label: str, widget: QWidget, name: str) -> QWidget:
        widget.setObjectName(name)
        widget.setAccessibleName(label.replace("&", "").rstrip(":"))
        self.form.addRow(label, widget)
        return widget

    def add_export(self, text: str, name: str, slot: Callable[[], Any]) -> QPushButton:
        button = QPushButton(text, self)
        button.setObjectName(name)
        button.setAccessibleName(text.replace("&", ""))
        button.setEnabled(False)
        button.clicked.connect(lambda: slot())
        self.exports.addWidget(button)
        self.export_buttons.append(button)
        return button

    @property
    def running(self) -> bool:
        return is_running(self.worker)

    def start(self, title: str, make_job: Callable[[], Generator[Progress, None, Any]]) -> JobWorker | None:
        if self.running:
            return None
        worker = JobWorker(make_job, title)
        self.worker = worker
        self.progress.follow(worker)
        worker.progressed.connect(self.on_progress)
        worker.succeeded.connect(self.on_result)
        worker.failed.connect(lambda exc, details: self.lab.report_error(title, exc, details))
        worker.finished.connect(lambda: self.run_button.setEnabled(True))
        self.run_button.setEnabled(False)
        self.summary.setText("")
        self.lab.pool.start(worker)
        return worker

    def cancel(self) -> None:
        self.progress.cancel()

    def save_path(self, title: str, suffix: str, path: str | Path | None) -> Path | None:
        if path is not None:
            return Path(path)
        chosen, _ = QFileDialog.getSaveFileName(self, title, f"{self.lab.domain or 'results'}{suffix}", f"*{suffix}")
        return Path(chosen) if chosen else None

    def write_later(self, title: str, path: Path, write: Callable[[Path], Any]) -> JobWorker:
        """Write an export in a worker (matplotlib's first import alone takes a moment)."""

        def job() -> Generator[Progress, None, Path]:
            yield Progress(0, 1, f"writing {path.name}")
            write(path)
            yield Progress(1, 1, f"wrote {path.name}")
            return path

        worker = JobWorker(job, title)
        worker.succeeded.connect(lambda p: self.summary.setText(self.summary.text() + f"\nWrote {p}"))
        worker.failed.connect(lambda exc, details: self.lab.report_error(title, exc, details))
        self.lab.pool.start(worker)
        return worker

    # subclasses
    def run(self) -> None:
        raise NotImplementedError

    def on_progress(self, batch: list[Progress]) -> None:
        pass

    def on_result(self, result: Any) -> None:
        pass


class EvaluationPanel(_Panel):
    """Simulator evaluation of the clarifier against the baselines (IC Table 1 and Figure 2)."""

    def __init__(self, lab: LabPage) -> None:
        super().__init__(lab, "evaluation", "&Run evaluation")
        from assistant.evaluation import SYSTEMS

        self.candidates = self.add_field("Candidates:", QComboBox(self), "evalCandidates")
        self.candidates.addItems(["all", "captioned"])
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
            box = QCheckBox(name, systems_box)
            box.setObjectName(f"system_{name}")
            box.setChecked(True)
            grid.addWidget(box, i // 2, i % 2)
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
            domain=domain,
            candidates=self.candidates.currentText(),
            episodes=self.episodes.value(),
            seed=self.seed.value(),
            systems=self.chosen_systems(),
            max_turns=self.max_turns.value(),
            dev_episodes=self.lab.dev_episodes,
        )
        args.update(overrides)
        return self.start(f"Evaluating {domain}", lambda: evaluation_job(**args))

    def on_result(self, report: Any) -> None:
        self.report = report
        self.plot.show_report(report)
        self.model.set_records(report.rows)
        meta = report.meta
        best = max(report.rows, key=lambda r: r["acc1"]) if report.rows else None
        ours = next((r for r in report.rows if r["system"] == "ours"), None)
        text = f"{meta['domain']}: {meta['episodes']} episodes, {meta['candidates']} candidates, {meta['seconds']} s."
        if ours is not None:
            text += f"\nOurs: Acc@1 {100 * ours['acc1']:.1f}% in {ours['mean_turns']:.2f} questions on average."
        if best is not None:
            text += f"\nBest Acc@1: {best['system']} {100 * best['acc1']:.1f}%."
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
        return self.write_later("Export PNG", target, report.plot)

    def export_json(self, path: str | Path | None = None) -> JobWorker | None:
        target = self.save_path("Export the results as JSON", ".json", path) if self.report else None
        if target is None:
            return None
        report = self.report
        return self.write_later("Export JSON", target, report.to_json)


class TrainingPanel(_Panel):
    """Train the text encoder or a STOP/ASK policy with a live learning curve."""

    modelsChanged = Signal(str)
    CURVE_ORDER = ("reward", "accuracy", "turns", "lambda", "loss", "dev_acc1", "dev_acc3", "dev_acc1_seen")

    def __init__(self, lab: LabPage) -> None:
        super().__init__(lab, "training", "&Start training")
        self.what = self.add_field("Model:", QComboBox(self), "trainWhat")
        self.what.addItems(["stop policy", "text encoder"])
        self.what.currentTextChanged.connect(self._what_changed)
        self.candidates = self.add_field("Candidates:", QComboBox(self), "trainCandidates")
        self.candidates.addItems(["all", "captioned"])
        self.variant = self.add_field("Variant:", QComboBox(self), "trainVariant")
        self.variant.addItems(["learned", "lambda_1"])
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
                    domain=domain,
                    candidates=self.candidates.currentText(),
                    variant=self.variant.currentText(),
                    iterations=self.iterations.value(),
                    turn_reward=self.turn_reward.value(),
                    seed=self.seed.value(),
                )
                title = f"Training the {domain} policy ({args['candidates']}, {args['variant']})"
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


class RankingPanel(_Panel):
    """The pairwise ranker on community-QA data with a simulated user (BO Figures 3-4)."""

    def __init__(self, lab: LabPage) -> None:
        super().__init__(lab, "ranking", "&Run ranking evaluation")
        from assistant.ranking.data import DATASETS
        from assistant.ranking.evaluation import MODELS, STRATEGIES

        self.dataset = self.add_field("Dataset:", QComboBox(self), "rankDataset")
        for name, description in DATASETS.items():
            self.dataset.addItem(name)
            self.dataset.setItemData(self.dataset.count() - 1, description, Qt.ItemDataRole.ToolTipRole)
        self.dataset.setCurrentText("coffee")
        self.questions = self.add_field("Questions (0 = all):", QSpinBox(self), "rankQuestions")
        self.questions.setRange(0, 100_000)
        self.questions.setValue(20)
        self.interactions = self.add_field("Interactions:", QSpinBox(self), "rankInteractions")
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
        boxes = QGroupBox("Models and strategies", self)
        grid = QGridLayout(boxes)
        self.models: dict[str, QCheckBox] = {}
        self.strategies: dict[str, QCheckBox] = {}
        for i, name in enumerate(MODELS):
            box = QCheckBox(name, boxes)
            box.setObjectName(f"model_{name}")
            box.setChecked(name in ("gppl", "bt"))
            grid.addWidget(box, i, 0)
            self.models[name] = box
        for i, name in enumerate(STRATEGIES):
            box = QCheckBox(name, boxes)
            box.setObjectName(f"strategy_{name}")
            box.setChecked(name in ("imp", "unc", "random"))
            grid.addWidget(box, i % 4, 1 + i // 4)
            self.strategies[name] = box
        self.form.addRow(boxes)
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
        """The form as ``ranking_job`` arguments."""
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
        return self.start(f"Ranking evaluation on {args['dataset']}", lambda: ranking_job(**args))

    def on_result(self, result: dict) -> None:
        self.result = result
        self.plot.show_result(result)
        self.model.set_result(result)
        best = result.get("wilcoxon", {}).get("best", {})
        self.summary.setText(
            f"{result['dataset']} ({result['split']}): {result['questions']} questions, "
            f"{result['candidates_per_question']:.0f} candidates each, t = {result['t']}."
            + (
                f"\nBest after {result['interactions']} interactions: {best.get('model')}+{best.get('strategy')}."
                if best
                else ""
            )
        )
        for button in self.export_buttons:
            button.setEnabled(True)

    def export_csv(self, path: str | Path | None = None) -> JobWorker | None:
        target = self.save_path("Export the results as CSV", ".csv", path) if self.result else None
        if target is None:
            return None
        text = ranking_csv(self.result)
        return self.write_later("Export CSV", target, lambda p: p.write_text(text))

    def export_png(self, path: str | Path | None = None) -> JobWorker | None:
        from assistant.plotting import plot_ranking_curves

        target = self.save_path("Export the plot as PNG", ".png", path) if self.result else None
        if target is None:
            return None
        result = self.result
        return self.write_later("Export PNG", target, lambda p: plot_ranking_curves(result, p))

    def export_json(self, path: str | Path | None = None) -> JobWorker | None:
        target = self.save_path("Export the results as JSON", ".json", path) if self.result else None
        if target is None:
            return None
        text = json.dumps(self.result, indent=2)
        return self.write_later("Export JSON", target, lambda p: p.write_text(text))


class LabPage(QWidget):
    """See the module docstring. ``modelsChanged(domain)``: a model of ``domain`` was retrained."""

    modelsChanged = Signal(str)

    def __init__(self, pool: WorkerPool, report_error: ErrorHandler, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("labPage")
        self.setAccessibleName("Lab")
        self.pool = pool
        self.report_error = report_error
        self.domain: str | None = None
        self.dev_episodes = 500
        self.domain_label = QLabel(self)
        self.domain_label.setObjectName("labDomain")
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("labTabs")
        self.evaluation = EvaluationPanel(self)
        self.training = TrainingPanel(self)
        self.ranking = RankingPanel(self)
        self.tabs.addTab(self.evaluation, "Evaluate &clarifier")
        self.tabs.addTab(self.training, "&Train models")
        self.tabs.addTab(self.ranking, "Evaluate ran&king")
        from gui.pages.learning_panel import LearningPanel  # imports this module: not at the top

        self.learning = LearningPanel(self)
        self.tabs.addTab(self.learning, "&Learn from use")
        self.training.modelsChanged.connect(self.modelsChanged)
        layout = QVBoxLayout(self)
        layout.addWidget(self.domain_label)
        layout.addWidget(self.tabs, 1)
        self.set_domain(None)

    def set_domain(self, name: str | None) -> None:
        self.domain = name
        self.domain_label.setText(
            f"Domain: <b>{name}</b> (change it in the toolbar). The ranking evaluation uses its own data sets."
            if name
            else "Pick a domain in the toolbar."
        )
