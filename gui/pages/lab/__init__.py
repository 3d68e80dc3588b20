"""The Lab page (researchers): simulator evaluation, model training with live learning curves, and the
ranking evaluation, each with progress and Cancel, a plot, a results table and CSV/PNG/JSON export.

The jobs are the app's (the same calls as ``clarify evaluate``, ``clarify train`` and
``clarify rank evaluate``, from assistant.app.research.research); each runs in a worker thread, which opens its own
knowledge base connection.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QTabWidget, QVBoxLayout, QWidget

from gui.pages.lab.evaluation import EvaluationPanel
from gui.pages.lab.learning import LearningPanel
from gui.pages.lab.panel import ErrorHandler
from gui.pages.lab.ranking import RankingPanel, ranking_csv
from gui.pages.lab.training import TrainingPanel
from gui.workers import WorkerPool

__all__ = ["EvaluationPanel", "LabPage", "LearningPanel", "RankingPanel", "TrainingPanel", "ranking_csv"]


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
