"""NDCG@1% against interactions (BO Figure 5), on matplotlib's Agg canvas (safe in worker threads)."""

from __future__ import annotations

from pathlib import Path


def plot_ndcg(result: dict, path: str | Path) -> Path:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7, 4.5), dpi=110)
    FigureCanvasAgg(figure)
    ax = figure.add_subplot(1, 1, 1)
    rows = result["rows"]
    prior = next(r for r in rows if r["strategy"] == "none")
    for strategy in dict.fromkeys(r["strategy"] for r in rows if r["strategy"] != "none"):
        pts = sorted((r["interactions"], r["ndcg1pct"]) for r in rows if r["strategy"] == strategy)
        learner = next(r["learner"] for r in rows if r["strategy"] == strategy)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"{learner}+{strategy}")
    ax.axhline(prior["ndcg1pct"], color="grey", linestyle="--", label=f"{result['prior']} prior")
    ax.set_xlabel("interactions")
    ax.set_ylabel("NDCG@1%")
    ax.set_title(f"{result['dataset']}: {result['topics']} topics, {result['features']} features")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    figure.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    return path
