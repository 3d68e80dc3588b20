"""Qt item models over engine objects (read-only tables the views show).

``RecordTableModel`` is a table over a list of records with declared columns; the concrete models only
declare their columns: the live posterior (top-10 labels with probability bars and the change since the
previous answer), the ranker's shortlist, evaluation results (clarifier and ranking), saved sessions,
and the import preview's rows and problems. ``VALUE_ROLE`` carries the raw number of a cell (for sorting,
probability bars and tests); ``Qt.DisplayRole`` the formatted text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from assistant.app.session.numbers import percent as chance_text
from assistant.app.session.phases import SessionStatus

if TYPE_CHECKING:  # the view loads with the session, in the session thread
    from assistant.app.session.view import EntryChance

from gui.words import (
    PAIR_CHOICE_TIPS,
    PAIR_CHOICES,
    RANKING_MODEL_TIPS,
    RANKING_MODELS,
    SYSTEM_TIPS,
    system_words,
)

VALUE_ROLE = Qt.ItemDataRole.UserRole + 1
BAR_ROLE = Qt.ItemDataRole.UserRole + 2  # a value in [0, 1] drawn as a bar by ProbabilityBarDelegate
ROW_RECORD_ROLE = Qt.ItemDataRole.UserRole + 3

Index = QModelIndex | QPersistentModelIndex
LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


@dataclass(frozen=True)
class Column:
    """A column: its header, how to get the raw value of a record, how to show it."""

    title: str
    value: Callable[[Any], Any]
    text: Callable[[Any], str] = str
    align: Qt.AlignmentFlag = LEFT
    bar: bool = False
    tooltip: Callable[[Any], str] | None = None
    display: Callable[[Any], str] | None = None  # text from the whole record (overrides ``text``)

    def show(self, record: Any) -> str:
        return self.display(record) if self.display is not None else self.text(self.value(record))


def percent(value: Any) -> str:
    return "" if value is None or value == "" else f"{100 * float(value):.1f} %"


def number(digits: int) -> Callable[[Any], str]:
    return lambda v: "" if v is None or v == "" else f"{float(v):.{digits}f}"


class RecordTableModel(QAbstractTableModel):
    """A read-only table over ``records`` with ``columns`` (see the module docstring)."""

    columns: Sequence[Column] = ()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.records: list[Any] = []

    def set_records(self, records: Sequence[Any]) -> None:
        self.beginResetModel()
        self.records = list(records)
        self.endResetModel()

    def record(self, row: int) -> Any:
        return self.records[row]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.records)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.columns[section].title
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.TextAlignmentRole:
            return self.columns[section].align
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.records):
            return None
        record = self.records[index.row()]
        column = self.columns[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return column.show(record)
        if role == VALUE_ROLE:
            return column.value(record)
        if role == BAR_ROLE:
            value = column.value(record) if column.bar else None
            return None if value is None else float(value)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return column.align
        if role == Qt.ItemDataRole.ToolTipRole and column.tooltip is not None:
            return column.tooltip(record)
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return f"{column.title}: {column.show(record)}"
        if role == ROW_RECORD_ROLE:
            return record
        return self.extra_data(record, index.column(), role)

    def extra_data(self, record: Any, column: int, role: int) -> Any:
        """Subclasses: colours, fonts."""
        return None


# ---- the conversation ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class PosteriorRow:
    """A posterior row with the change since the previous snapshot (None for a label new to the top)."""

    rank: int
    key: str
    name: str
    probability: float
    change: float | None
    new: bool = False


def _change_text(row: PosteriorRow) -> str:
    if row.new:
        return "new"
    if row.change is None:
        return ""
    points = 100 * row.change
    if abs(points) < 0.05:
        return "±0"
    return f"{points:+.1f}"


class PosteriorModel(RecordTableModel):
    """The top-10 labels with probability bars and, per label, the change that the last answer made: the
    model remembers the top labels after each number of answers of the current session."""

    columns = (
        Column("#", lambda r: r.rank, align=RIGHT),
        Column("Entry", lambda r: r.name, tooltip=lambda r: r.name),
        Column("Probability", lambda r: r.probability, chance_text, RIGHT, bar=True),
        Column(
            "Change",
            lambda r: r.change,
            align=RIGHT,
            display=_change_text,
            tooltip=lambda r: "percentage points since the last answer" + (" (new in the top 10)" if r.new else ""),
        ),
    )

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._by_turn: dict[int, dict[str, float]] = {}
        self._session: tuple[str, int] | None = None

    def update(
        self, items: Sequence[EntryChance], session: tuple[str, int] | None = None, answered: int | None = None
    ) -> None:
        """Show ``items``, the top labels after ``answered`` answers of ``session``; the changes are relative to
        the same session's top labels one answer earlier (when the model saw them)."""
        if session != self._session:
            self._by_turn = {}
            self._session = session
        previous = self._by_turn.get(answered - 1, {}) if answered is not None else {}
        rows = [
            PosteriorRow(
                it.rank,
                it.key,
                it.name,
                it.probability,
                (it.probability - previous[it.key]) if it.key in previous else None,
                bool(previous) and it.key not in previous,
            )
            for it in items
        ]
        if answered is not None:
            self._by_turn[answered] = {it.key: it.probability for it in items}
        self.set_records(rows)

    def probabilities(self) -> dict[str, float]:
        return {r.key: r.probability for r in self.records}

    def extra_data(self, record: PosteriorRow, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.ForegroundRole and column == 3 and record.change is not None:
            if record.change > 0.0005:
                return QBrush(QColor("#1b7f3b"))
            if record.change < -0.0005:
                return QBrush(QColor("#b3261e"))
        return None


def _snippet(text: str, width: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


class ShortlistModel(RecordTableModel):
    """The comparison candidates in the ranker's current order (its best first)."""

    columns = (
        Column("#", lambda r: r.rank, align=RIGHT),
        Column("Candidate", lambda r: ("★ " if r.best else "") + r.title, tooltip=lambda r: _snippet(r.text, 400)),
        Column("Answer", lambda r: _snippet(r.text), tooltip=lambda r: _snippet(r.text, 600)),
        Column(
            "Chance",
            lambda r: r.chance,
            align=RIGHT,
            bar=True,
            display=lambda r: "not relevant" if r.ruled_out else chance_text(r.chance),
            tooltip=lambda r: (
                "you said it is not relevant"
                if r.ruled_out
                else "the chance that this is the right answer: the entry's share of the belief, times this "
                "answer's share among the entry's compared answers"
            ),
        ),
        Column(
            "Best of compared",
            lambda r: r.best_of_compared,
            align=RIGHT,
            display=lambda r: (
                "—"
                if r.ruled_out
                else ("not compared" if r.best_of_compared is None else chance_text(r.best_of_compared))
            ),
            tooltip=lambda r: "the chance that this is the best of these answers, from your comparisons",
        ),
    )

    def extra_data(self, record: Any, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.ForegroundRole and record.ruled_out:
            return QBrush(QColor("#888888"))
        return None


# ---- results ------------------------------------------------------------------------------------------
class EvaluationResultsModel(RecordTableModel):
    """The rows of an ``assistant.evaluation.report.EvaluationReport`` (IC Table 1)."""

    columns = (
        Column(
            "System", lambda r: r["system"], display=system_words, tooltip=lambda r: SYSTEM_TIPS.get(r["system"], "")
        ),
        Column("Acc@1", lambda r: r["acc1"], percent, RIGHT, bar=True),
        Column("± s.e.", lambda r: r.get("acc1_se"), percent, RIGHT),
        Column("Acc@3", lambda r: r["acc3"], percent, RIGHT),
        Column("Mean questions", lambda r: r["mean_turns"], number(2), RIGHT),
        Column("Episodes", lambda r: r["episodes"], str, RIGHT),
    )


def _ranker_tip(row: dict) -> str:
    return " · ".join(t for t in (RANKING_MODEL_TIPS.get(row["model"]), PAIR_CHOICE_TIPS.get(row["strategy"])) if t)


class RankingResultsModel(RecordTableModel):
    """The final rows (after the last interaction, plus the prior) of a ranking evaluation result."""

    columns = (
        Column("Ranker", lambda r: r["model"], lambda m: RANKING_MODELS.get(m, m), tooltip=lambda r: _ranker_tip(r)),
        Column("Next pair", lambda r: r["strategy"], lambda a: PAIR_CHOICES.get(a, a)),
        Column("Comparisons", lambda r: r["interactions"], str, RIGHT),
        Column("Accuracy", lambda r: r["accuracy"], percent, RIGHT, bar=True),
        Column("NDCG@5", lambda r: r["ndcg5"], percent, RIGHT),
        Column("ms / step", lambda r: 1000 * r["seconds_per_interaction"], number(2), RIGHT),
    )

    def set_result(self, result: dict) -> None:
        last = result["interactions"]
        self.set_records([r for r in result["rows"] if r["model"] == "prior" or r["interactions"] == last])


class SessionListModel(RecordTableModel):
    """Saved sessions (``assistant.app.session.session.SessionSummary``), newest first; ``label_names`` maps the final
    label's key to its name."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.label_names: dict[str, str] = {}
        self.columns = (
            Column("Id", lambda s: s.id, str, RIGHT),
            Column("Question", lambda s: s.query),
            Column("Status", lambda s: s.status_words),
            Column("Steps", lambda s: s.entries, str, RIGHT),
            Column("Answer", lambda s: self.label_names.get(s.final_label or "", s.final_label or "")),
            Column("Last change", lambda s: s.updated_at.replace("T", " ")[:19]),
        )

    def extra_data(self, record: Any, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.ForegroundRole and column == 2:
            colours = {SessionStatus.FINISHED: "#1b7f3b", SessionStatus.FAILED: "#b3261e"}
            return QBrush(QColor(colours.get(record.status, "#1f4e9c")))
        return None


class PreviewRowsModel(RecordTableModel):
    """``crowdsourcing.planning.PreviewRow`` records: what importing each row would do."""

    columns = (
        Column("Line", lambda r: r.line, str, RIGHT),
        Column("Kind", lambda r: r.kind),
        Column("Label", lambda r: r.label),
        Column("Tag / text", lambda r: r.target),
        Column("Answer", lambda r: r.answer),
        Column("Worker", lambda r: r.worker),
        Column("Status", lambda r: r.status),
    )

    def extra_data(self, record: Any, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.BackgroundRole and record.status == "problem":
            return QBrush(QColor("#fde7e7"))
        return None


class ProblemsModel(RecordTableModel):
    """``assistant.errors.Problem`` records: file, line, column, message."""

    columns = (
        Column("Line", lambda p: p.line, lambda v: "" if v is None else str(v), RIGHT),
        Column("Column", lambda p: p.column or ""),
        Column("Problem", lambda p: p.message, tooltip=lambda p: str(p)),
    )

    def extra_data(self, record: Any, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(QColor("#b3261e"))
        return None
