"""Unit tests of the Qt item models and the probability-bar delegate."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QStyleOptionViewItem, QTableView

from assistant.app.session.session import SessionSummary
from assistant.app.session.view import AnswerChance, EntryChance
from assistant.errors import Problem
from crowdsourcing.planning import PreviewRow
from gui.qt_models import (
    BAR_ROLE,
    ROW_RECORD_ROLE,
    VALUE_ROLE,
    EvaluationResultsModel,
    PosteriorModel,
    PreviewRowsModel,
    ProblemsModel,
    RankingResultsModel,
    SessionListModel,
    ShortlistModel,
)
from gui.widgets import ProbabilityBarDelegate

DISPLAY = Qt.ItemDataRole.DisplayRole


def cells(model, role=DISPLAY):
    return [[model.index(r, c).data(role) for c in range(model.columnCount())] for r in range(model.rowCount())]


def top(*pairs):
    return [EntryChance(i + 1, key, key.title(), p) for i, (key, p) in enumerate(pairs)]


def test_posterior_model_shows_probabilities_bars_and_changes(qtbot):
    model = PosteriorModel()
    assert model.rowCount() == 0 and model.columnCount() == 4
    assert [model.headerData(c, Qt.Orientation.Horizontal) for c in range(4)] == ["#", "Entry", "Probability", "Change"]
    model.update(top(("robin", 0.5), ("crow", 0.3), ("gull", 0.2)), ("tiny", 1), 0)
    assert cells(model) == [  # the one way a probability is written (issue 32)
        ["1", "Robin", "50%", ""],
        ["2", "Crow", "30%", ""],
        ["3", "Gull", "20%", ""],
    ]
    assert model.index(0, 2).data(BAR_ROLE) == 0.5 and model.index(0, 1).data(BAR_ROLE) is None
    assert model.index(1, 2).data(VALUE_ROLE) == 0.3
    model.update(top(("crow", 0.6), ("robin", 0.3), ("wren", 0.1)), ("tiny", 1), 1)
    assert [row[3] for row in cells(model)] == ["+30.0", "-20.0", "new"]
    model.update(top(("crow", 0.6), ("robin", 0.3), ("wren", 0.1)), ("tiny", 1), 1)  # same turn again
    assert [row[3] for row in cells(model)] == ["+30.0", "-20.0", "new"]
    assert model.index(0, 3).data(Qt.ItemDataRole.ForegroundRole).color().name() == "#1b7f3b"
    assert model.index(1, 3).data(Qt.ItemDataRole.ForegroundRole).color().name() == "#b3261e"
    assert model.probabilities() == {"crow": 0.6, "robin": 0.3, "wren": 0.1}
    # another session: no changes to show
    model.update(top(("crow", 0.6)), ("tiny", 2), 1)
    assert cells(model)[0][3] == ""
    assert model.index(0, 1).data(Qt.ItemDataRole.ToolTipRole) == "Crow"  # the whole name, never the key
    assert model.index(0, 2).data(Qt.ItemDataRole.AccessibleTextRole) == "Probability: 60%"
    assert model.index(5, 0).data() is None and model.rowCount(model.index(0, 0)) == 0


def test_shortlist_and_results_models():
    shortlist = ShortlistModel()
    shortlist.set_records(
        [
            AnswerChance(1, "k1", "k1", 0.734, None, True, False, "Cardinal", "bright red crest " * 20),
            AnswerChance(2, "k2", "k2", 0.266, None, False, False, "Robin", ""),
        ]
    )
    rows = cells(shortlist)
    assert rows[0][:2] == ["1", "★ Cardinal"] and rows[0][3] == "73%" and rows[1][1] == "Robin"
    assert rows[0][4] == "not compared"  # the ranker's own number, under its own name
    assert rows[0][2].endswith("…") and len(rows[0][2]) <= 90
    assert shortlist.index(0, 0).data(ROW_RECORD_ROLE).id == "k1"

    evaluation = EvaluationResultsModel()
    evaluation.set_records(
        [
            {"system": "ours", "acc1": 0.75, "acc3": 0.9, "mean_turns": 3.21, "episodes": 100, "acc1_se": 0.04},
            {"system": "fixed_turns", "turns": 2, "acc1": 0.5, "acc3": 0.7, "mean_turns": 2.0, "episodes": 100},
        ]
    )
    assert cells(evaluation) == [
        ["Clarify (learned stop)", "75.0 %", "4.0 %", "90.0 %", "3.21", "100"],
        ["Always 2 questions", "50.0 %", "", "70.0 %", "2.00", "100"],
    ]
    assert [evaluation.index(r, 0).data(VALUE_ROLE) for r in range(2)] == ["ours", "fixed_turns"]
    assert evaluation.index(0, 1).data(BAR_ROLE) == 0.75

    ranking = RankingResultsModel()
    base = {"ndcg5": 0.5, "seconds_per_interaction": 0.002, "questions": 3}
    ranking.set_result(
        {
            "interactions": 2,
            "rows": [
                {"model": "prior", "strategy": "none", "interactions": 0, "accuracy": 0.4, **base},
                {"model": "gppl", "strategy": "imp", "interactions": 1, "accuracy": 0.5, **base},
                {"model": "gppl", "strategy": "imp", "interactions": 2, "accuracy": 0.6, **base},
            ],
        }
    )
    assert cells(ranking) == [
        ["No comparisons (prior only)", "—", "0", "40.0 %", "50.0 %", "2.00"],
        ["Gaussian process (GPPL)", "Expected improvement", "2", "60.0 %", "50.0 %", "2.00"],
    ]
    assert ranking.index(1, 1).data(VALUE_ROLE) == "imp"


def test_session_preview_and_problem_models():
    sessions = SessionListModel()
    sessions.label_names = {"k2": "Cardinal"}
    sessions.set_records(
        [
            SessionSummary(7, "red bird", "finished", "2026-11-21T10:00:00", "2026-11-21T10:05:00+00:00", "k2", 9),
            SessionSummary(6, "gmail", "active", "2026-11-21T09:00:00", "2026-11-21T09:01:00", None, 2),
        ]
    )
    assert cells(sessions)[0] == ["7", "red bird", "answered", "9", "Cardinal", "2026-11-21 10:05:00"]
    assert cells(sessions)[1][4] == ""
    assert sessions.index(0, 2).data(Qt.ItemDataRole.ForegroundRole).color().name() == "#1b7f3b"

    preview = PreviewRowsModel()
    preview.set_records(
        [
            PreviewRow(2, "tags", "card_arrival", "card delivery", "yes", "w1", "new"),
            PreviewRow(3, "tags", "nope", "card delivery", "maybe", "w2", "problem"),
        ]
    )
    assert cells(preview)[1] == ["3", "tags", "nope", "card delivery", "maybe", "w2", "problem"]
    assert preview.index(1, 0).data(Qt.ItemDataRole.BackgroundRole) is not None
    assert preview.index(0, 0).data(Qt.ItemDataRole.BackgroundRole) is None

    problems = ProblemsModel()
    problems.set_records(
        [Problem("f.csv", 4, "answer", "unknown answer 'maybe'"), Problem("f.csv", None, None, "empty")]
    )
    assert cells(problems) == [["4", "answer", "unknown answer 'maybe'"], ["", "", "empty"]]
    assert problems.index(0, 2).data(Qt.ItemDataRole.ToolTipRole) == "f.csv:4 [answer]: unknown answer 'maybe'"


def test_the_bar_delegate_paints(qtbot):
    model = PosteriorModel()
    model.update(top(("robin", 0.8), ("crow", 0.2)))
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(model)
    view.resize(400, 200)
    view.show()
    delegate = ProbabilityBarDelegate(view)
    image = QImage(200, 30, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.white)
    painter = QPainter(image)
    option = QStyleOptionViewItem()
    option.rect = image.rect()
    option.widget = view
    delegate.paint(painter, option, model.index(0, 2))  # a bar cell: 80% of the width, above and below the text
    painter.end()
    assert image.pixelColor(60, 5).name() == "#8fb8e8"
    assert image.pixelColor(180, 5).name() == "#ffffff"
    image.fill(Qt.GlobalColor.white)
    painter = QPainter(image)
    delegate.paint(painter, option, model.index(0, 1))  # a text cell: no bar
    painter.end()
    assert image.pixelColor(60, 5).name() != "#8fb8e8"
