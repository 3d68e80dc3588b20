"""PNG plots for reports, with matplotlib's Agg canvas (no pyplot, no GUI backend, no Qt): safe in worker
threads, where pyplot's global state is not."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol


class CurvesReport(Protocol):
    """What the accuracy plot reads of an ``assistant.evaluation.report.EvaluationReport``."""

    rows: list[dict]
    curves: dict[str, dict[str, list[float]]]
    meta: dict


CURVE_NAMES = {
    "ig": "information gain (fixed turns)",
    "lambda_1": "lambda = 1",
    "static_ig": "static IG",
    "random": "random questions",
}
POINT_NAMES = {"ours": "ours (policy)", "threshold": "threshold", "no_interaction_bm25": "BM25, no interaction"}


def plot_accuracy_vs_turns(report: CurvesReport, path: str | Path) -> Path:
    """Acc@1 after k questions for each question strategy, plus each stopping system at its mean turns."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7, 4.5), dpi=110)
    FigureCanvasAgg(figure)
    ax = figure.add_subplot(1, 1, 1)
    for key, curve in report.curves.items():
        acc1 = curve["acc1"]
        ax.plot(range(len(acc1)), acc1, marker=".", label=CURVE_NAMES.get(key, key))
    markers = iter("*^sD")
    for row in report.rows:
        if row["system"] in POINT_NAMES:
            ax.scatter(
                [row["mean_turns"]],
                [row["acc1"]],
                s=90,
                marker=next(markers, "o"),
                zorder=5,
                label=POINT_NAMES[row["system"]],
            )
    meta = report.meta
    ax.set_title(
        f"{meta.get('domain', '')}: {meta.get('candidates', '?')} candidates, {meta.get('episodes', '?')} episodes"
    )
    ax.set_xlabel("questions asked")
    ax.set_ylim(0, 1)
    _accuracy_axes(ax)
    return _save(figure, path)


FRONTIER_POINTS = {
    "ours": ("ours (learned policy)", "*", 220),
    "threshold": ("threshold (dev-tuned)", "s", 70),
    "lambda_1": ("lambda = 1 policy", "^", 70),
    "static_ig": ("static IG", "D", 60),
}


def plot_frontier(report: CurvesReport, path: str | Path, title: str = "") -> Path:
    """The accuracy/questions frontier: Acc@1 against mean questions of a fixed number of questions (0..max)
    and of the threshold rule at every threshold (read off the same rollouts), with ours and the other
    stopping systems as points on it."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7, 4.5), dpi=110)
    FigureCanvasAgg(figure)
    ax = figure.add_subplot(1, 1, 1)
    if "ig" in report.curves:
        acc1 = report.curves["ig"]["acc1"]
        ax.plot(range(len(acc1)), acc1, marker="o", markersize=4, color="tab:blue", label="fixed N questions")
    sweep = report.meta.get("threshold_sweep")
    if sweep:
        ax.plot(sweep["mean_turns"], sweep["acc1"], color="tab:orange", linewidth=1.2, label="threshold, every value")
    for row in report.rows:
        if row["system"] in FRONTIER_POINTS:
            label, marker, size = FRONTIER_POINTS[row["system"]]
            colour = "tab:red" if row["system"] == "ours" else None
            ax.scatter([row["mean_turns"]], [row["acc1"]], s=size, marker=marker, zorder=5, label=label, color=colour)
    meta = report.meta
    ax.set_title(title or f"{meta.get('domain', '')}: {meta.get('episodes', '?')} episodes")
    ax.set_xlabel("mean questions asked")
    _accuracy_axes(ax)
    return _save(figure, path)


def plot_ranking_curves(result: dict, path: str | Path) -> Path:
    """NDCG@5 and top-1 accuracy against the number of comparisons (BO Figures 3-4) for a result of
    ``assistant.evaluation.cqa.protocol.evaluate``, the prior as a dashed line."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(11, 4.2), dpi=110)
    FigureCanvasAgg(figure)
    axes = figure.subplots(1, 2)
    rows = result["rows"]
    prior = next(r for r in rows if r["model"] == "prior")
    for ax, metric, title in ((axes[0], "ndcg5", "NDCG@5"), (axes[1], "accuracy", "accuracy (top-1)")):
        for key in dict.fromkeys((r["model"], r["strategy"]) for r in rows if r["model"] != "prior"):
            pts = sorted((r["interactions"], r[metric]) for r in rows if (r["model"], r["strategy"]) == key)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3, label=f"{key[0]}+{key[1]}")
        ax.axhline(prior[metric], color="grey", linestyle="--", label="prior")
        ax.set_xlabel("interactions")
        ax.set_title(title)
        ax.grid(alpha=0.3)
    axes[1].legend(fontsize=7, ncol=2)
    figure.suptitle(f"{result['dataset']} ({result['split']}, {result['questions']} questions, t = {result['t']})")
    return _save(figure, path)


def _accuracy_axes(ax) -> None:
    """Acc@1 on the y axis, a light grid, the legend in the corner the curves leave free."""
    ax.set_ylabel("Acc@1")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")


def _save(figure, path: str | Path) -> Path:
    """Lay the figure out and write it to ``path`` (its folder made if needed)."""
    figure.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    return path
