"""PNG of DASL's Figure 3: test MRR against the labelled fraction per method (mean over seeds, with the
seeds' spread as a band) and the full-data MRR as a dashed line. matplotlib's Agg canvas, no pyplot: safe in
worker threads."""

from __future__ import annotations

from pathlib import Path

import numpy as np

NAMES = {"dasl": "DASL", "dal": "DAL", "bald": "BALD", "coreset": "Core-Set", "random": "random"}


def plot_learning_curves(result: dict, path: str | Path) -> Path:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    path = Path(path)
    rows = result["rows"]
    figure = Figure(figsize=(7, 4.5), dpi=110)
    FigureCanvasAgg(figure)
    ax = figure.add_subplot(1, 1, 1)
    needed = {n["method"]: n["fraction"] for n in result.get("needed", [])}
    for method in dict.fromkeys(r["method"] for r in rows if r["method"] != "full"):
        by_fraction: dict[float, list[float]] = {}
        for r in rows:
            if r["method"] == method:
                by_fraction.setdefault(round(r["labelled_fraction"], 6), []).append(r["mrr"])
        xs = np.array(sorted(by_fraction))
        means = np.array([np.mean(by_fraction[x]) for x in xs])
        sds = np.array([np.std(by_fraction[x]) for x in xs])
        value = needed.get(method)
        label = NAMES.get(method, method) + (f" (full MRR at {value:.0%})" if value else "")
        (line,) = ax.plot(100 * xs, means, marker=".", label=label)
        ax.fill_between(100 * xs, means - sds, means + sds, color=line.get_color(), alpha=0.12)
    full = [r["mrr"] for r in rows if r["method"] == "full"]
    if full:
        ax.axhline(float(np.mean(full)), color="black", linestyle="--", linewidth=1, label="all labels")
    ax.set_xlabel("labelled questions (% of the pool)")
    ax.set_ylabel("test MRR")
    seeds = len({r["seed"] for r in rows})
    ax.set_title(f"{result.get('dataset', '')}, {result.get('model', '')} model: mean of {seeds} seeds")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    return path
