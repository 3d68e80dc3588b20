"""pyqtgraph plots for the Lab page and the training curves (pyqtgraph loads when a plot is first made)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QWidget

from assistant.progress import Progress
from gui.widgets import PALETTE
from gui.words import METRICS, ranking_words
from gui.words import SYSTEMS as SYSTEM_WORDS

pg.setConfigOptions(background="w", foreground="#333333", antialias=True)


def _pen(i: int, width: float = 2.0, style: Qt.PenStyle = Qt.PenStyle.SolidLine) -> Any:
    return pg.mkPen(PALETTE[i % len(PALETTE)], width=width, style=style)


# Counters that jobs report beside their metrics: the x axis of a curve, not curves of their own.
COUNTERS = ("iteration", "step", "epoch", "seconds")


def curve_records(batch: Iterable[Progress]) -> list[Progress]:
    """The records of ``batch`` that carry metrics, with only the metrics worth a curve."""
    return [
        Progress(r.step, r.total, r.message, {k: v for k, v in r.metrics.items() if k not in COUNTERS})
        for r in batch
        if r.metrics
    ]


class LearningCurve(pg.GraphicsLayoutWidget):
    """Live training curves: one stacked plot per metric (raw values thin, moving average bold).

    Redraws are coalesced to at most one per ``REDRAW_MS`` and the plots have no grid (pyqtgraph replays
    grid lines through a QPicture, which costs ~10 ms per plot per frame in a software raster), so that a
    job reporting every few milliseconds never keeps the event loop busy.
    """

    SMOOTHING = 0.1
    MAX_PLOTS = 4
    REDRAW_MS = 150

    def __init__(self, parent: QWidget | None = None, metrics: Sequence[str] = ()) -> None:
        super().__init__(parent)
        self.setObjectName("learningCurve")
        self.setAccessibleName("Learning curve")
        self.setMinimumHeight(260)
        self.order = list(metrics)
        self._dirty: set[str] = set()
        self._redraw = QTimer(self)
        self._redraw.setSingleShot(True)
        self._redraw.setInterval(self.REDRAW_MS)
        self._redraw.timeout.connect(self.redraw)
        self.clear_curves()

    def clear_curves(self) -> None:
        self.clear()
        self._dirty = set()
        self.series: dict[str, tuple[list[float], list[float], list[float]]] = {}
        self.plots: dict[str, Any] = {}
        self.curves: dict[str, tuple[Any, Any]] = {}

    def _plot_for(self, key: str) -> Any:
        if key not in self.plots:
            if len(self.plots) >= self.MAX_PLOTS:
                return None
            row = len(self.plots)
            plot = self.addPlot(row=row, col=0)
            plot.setLabel("left", METRICS.get(key, key.replace("_", " ")))
            plot.getAxis("left").enableAutoSIPrefix(False)
            plot.setMouseEnabled(x=False, y=False)
            first = next(iter(self.plots.values()), None)
            if first is not None:
                plot.setXLink(first)
            i = len(self.plots)
            raw = plot.plot([], [], pen=pg.mkPen(QColor(PALETTE[i % len(PALETTE)]).lighter(160), width=1))
            smooth = plot.plot([], [], pen=_pen(i, 2.2))
            self.plots[key] = plot
            self.curves[key] = (raw, smooth)
            self.series[key] = ([], [], [])
            for p in self.plots.values():
                p.setLabel("bottom", "")
            plot.setLabel("bottom", "step")
        return self.plots[key]

    def add(self, records: Iterable[Progress]) -> None:
        touched = set()
        for record in records:
            keys = [k for k in self.order if k in record.metrics] + [k for k in record.metrics if k not in self.order]
            for key in keys:
                if self._plot_for(key) is None:
                    continue
                xs, ys, smooth = self.series[key]
                value = float(record.metrics[key])
                xs.append(float(record.step))
                ys.append(value)
                smooth.append(value if not smooth else smooth[-1] + self.SMOOTHING * (value - smooth[-1]))
                touched.add(key)
        self._dirty |= touched
        if self._dirty and not self._redraw.isActive():
            self._redraw.start()

    def redraw(self) -> None:
        """Push the collected points to the plots now."""
        for key in self._dirty & set(self.curves):
            xs, ys, smooth = self.series[key]
            raw, curve = self.curves[key]
            raw.setData(xs, ys)
            curve.setData(xs, smooth)
        self._dirty.clear()

    def points(self, key: str) -> int:
        return len(self.series.get(key, ((), (), ()))[0])


def legend_below(layout: pg.GraphicsLayoutWidget, row: int, columns: int = 1) -> pg.LegendItem:
    """A legend in its own row under the plots (inside a plot it covered the data, see issue 26)."""
    legend = pg.LegendItem(colCount=3, labelTextSize="9pt")
    layout.addItem(legend, row=row, col=0, colspan=columns)
    return legend


class AccuracyPlot(pg.GraphicsLayoutWidget):
    """Acc@1 after k questions for each strategy, plus each stopping system at its mean turns (IC Fig. 2)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("accuracyPlot")
        self.setAccessibleName("Accuracy against the number of questions")
        self.setMinimumHeight(260)
        self.plot_item = self.addPlot(row=0, col=0)
        self.plot_item.showGrid(x=True, y=True, alpha=0.25)
        self.plot_item.setLabel("bottom", "questions asked")
        self.plot_item.setLabel("left", "Acc@1")
        self.plot_item.setYRange(0, 1)
        self.plot_item.setXRange(0, 10)
        self.plot_item.setMouseEnabled(x=False, y=False)
        self.legend = legend_below(self, 1)

    def getPlotItem(self) -> Any:
        return self.plot_item

    def show_report(self, report: Any) -> None:
        from assistant.app.research.research import POINT_NAMES

        plot = self.plot_item
        plot.clear()
        self.legend.clear()
        for i, (key, curve) in enumerate(report.curves.items()):
            acc1 = curve["acc1"]
            item = plot.plot(
                list(range(len(acc1))),
                acc1,
                pen=_pen(i),
                symbol="o",
                symbolSize=5,
                symbolBrush=PALETTE[i % len(PALETTE)],
            )
            self.legend.addItem(item, SYSTEM_WORDS.get(key, key))
        symbols = iter(("star", "t", "s", "d"))
        for j, row in enumerate(r for r in report.rows if r["system"] in POINT_NAMES):
            colour = PALETTE[(len(report.curves) + j) % len(PALETTE)]
            item = plot.plot(
                [row["mean_turns"]],
                [row["acc1"]],
                pen=None,
                symbol=next(symbols, "o"),
                symbolSize=14,
                symbolBrush=colour,
            )
            self.legend.addItem(item, SYSTEM_WORDS.get(row["system"], row["system"]))
        meta = report.meta
        plot.setTitle(
            f"{meta.get('domain', '')}: {meta.get('candidates', '?')} possible answers, "
            f"{meta.get('episodes', '?')} episodes"
        )
        plot.setYRange(0, 1)


class RankingPlot(pg.GraphicsLayoutWidget):
    """NDCG@5 and top-1 accuracy against interactions per model + strategy (BO Figures 3-4)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("rankingPlot")
        self.setAccessibleName("Ranking accuracy against interactions")
        self.setMinimumHeight(260)
        self.legend: pg.LegendItem | None = None

    def show_result(self, result: dict) -> None:
        self.clear()
        rows = result["rows"]
        prior = next((r for r in rows if r["model"] == "prior"), None)
        keys = list(dict.fromkeys((r["model"], r["strategy"]) for r in rows if r["model"] != "prior"))
        legend = self.legend = legend_below(self, 1, 2)
        for col, (metric, title) in enumerate((("ndcg5", "NDCG@5"), ("accuracy", "accuracy (top-1)"))):
            plot = self.addPlot(row=0, col=col, title=title)
            plot.showGrid(x=True, y=True, alpha=0.25)
            plot.setLabel("bottom", "comparisons")
            plot.setMouseEnabled(x=False, y=False)
            for i, key in enumerate(keys):
                pts = sorted((r["interactions"], r[metric]) for r in rows if (r["model"], r["strategy"]) == key)
                item = plot.plot(
                    [p[0] for p in pts],
                    [p[1] for p in pts],
                    pen=_pen(i),
                    symbol="o",
                    symbolSize=4,
                    symbolBrush=PALETTE[i % len(PALETTE)],
                )
                if col == 0:
                    legend.addItem(item, ranking_words(*key))
            if prior is not None:
                line = pg.InfiniteLine(pos=prior[metric], angle=0, pen=_pen(7, 1.2, Qt.PenStyle.DashLine))
                plot.addItem(line)
                if col == 0:
                    legend.addItem(plot.plot([], [], pen=_pen(7, 1.2, Qt.PenStyle.DashLine)), "no comparisons (prior)")
