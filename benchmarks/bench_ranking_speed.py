"""Speed of one interactive ranking update: fit + posterior over all candidates + acquisition.

Random features (D = 384, MiniLM's size) and random prior scores; the comparisons are random pairs with
random answers. Reports the median over repeats (after one warm-up that builds the per-candidate-set kernel
cache; the cold first update is reported too) and the peak of Python allocations (tracemalloc) and the
peak resident memory of a fresh process that imports the ranker and runs the 10,000-candidate updates (so
that other benchmarks run before it in the same process, as `make bench` does, do not count). Targets (issue 4): GPPL+IMP < 5 ms at 100 candidates / 10 comparisons,
< 50 ms at 10,000 / 20, peak < 500 MB; MC-dropout step < 0.5 s at 100.

BLAS: limited to one thread with threadpoolctl (numpy's and scipy's OpenBLAS pools fight on 2 cores);
torch uses torch.set_num_threads(1) for the MCD step unless --torch-threads says otherwise.

Peers in the same run (issue 15): one interactive update of BoTorch's PairwiseGP with its own analytic EUBO
and EI (fit_gpytorch_mll at every update, posterior in chunks) against GPPL+IMP, and choix's Bradley-Terry
against ours, at 100, 1,000 and 10,000 candidates, each as a ratio to ours (timed interleaved, so load on
the machine affects both alike), with the peak memory of a fresh process doing that update.

Run: python -m benchmarks.bench_ranking_speed [--quick] [--set repeats=R]
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import tracemalloc

import numpy as np
from threadpoolctl import threadpool_limits

from assistant.evaluation.bench import BenchContext, BenchJob, Benchmark, BenchOutput, Figure, Table
from assistant.progress import Progress
from benchmarks.common import run_main


def _comparisons(n: int, p: int, rng: np.random.Generator):
    from assistant.ranking.base import Comparisons

    pairs: set[tuple[int, int]] = set()
    while len(pairs) < p:
        a, b = (int(v) for v in rng.choice(n, 2, replace=False))
        pairs.add((min(a, b), max(a, b)))
    pairs_arr = np.array(sorted(pairs))
    outcomes = rng.choice([0.0, 1.0, 0.5], size=p, p=[0.45, 0.45, 0.1])
    return Comparisons(pairs_arr, outcomes)


def time_gppl(n: int, p: int, dim: int, repeats: int, strategy: str, seed: int = 0) -> dict:
    """Median / cold ms of one GPPL update + acquisition, and peak memory (MB)."""
    from assistant.ranking.acquisition import make_acquisition
    from assistant.ranking.gppl import GPPL

    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, dim))
    prior = rng.normal(size=n)
    base = _comparisons(n, p - 1, rng)
    acq = make_acquisition(strategy)
    model = GPPL()

    def step(comps) -> None:
        post = model.fit(x, prior, comps).posterior()
        acq.select(post, comps.seen(), np.random.default_rng(1))

    def with_new_pair():
        # As in a real dialogue, each update adds one comparison, usually of items not compared before.
        while True:
            a, b = (int(v) for v in rng.choice(n, 2, replace=False))
            if (min(a, b), max(a, b)) not in base.seen():
                return base.add(a, b, float(rng.integers(2)))

    tracemalloc.start()
    start = time.perf_counter()
    step(with_new_pair())  # cold: includes the median heuristic and the scaled features
    cold = time.perf_counter() - start
    times = []
    for _ in range(repeats):
        comps = with_new_pair()
        start = time.perf_counter()
        step(comps)
        times.append(time.perf_counter() - start)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "candidates": n,
        "comparisons": p,
        "dim": dim,
        "strategy": strategy,
        "median_ms": 1000 * float(np.median(times)),
        "p90_ms": 1000 * float(np.percentile(times, 90)),
        "cold_ms": 1000 * cold,
        "peak_traced_mb": peak / 2**20,
        "repeats": repeats,
    }


def time_mcd(n: int, p: int, repeats: int, seed: int = 0) -> dict:
    """One MC-dropout step (fine-tune on the comparisons + T = 20 passes + EI) with an untrained head."""
    import torch

    from assistant.ranking.acquisition import make_acquisition
    from assistant.ranking.deep import MCDropoutRanker
    from models.deep_ranker import SiameseRanker, pair_features

    rng = np.random.default_rng(seed)
    q = rng.normal(size=384)
    c = rng.normal(size=(n, 384))
    x = pair_features(q / np.linalg.norm(q), c / np.linalg.norm(c, axis=1, keepdims=True))
    torch.manual_seed(seed)
    head = SiameseRanker(x.shape[1])
    comps = _comparisons(n, p, rng)
    model = MCDropoutRanker(head, samples=20, seed=seed)
    acq = make_acquisition("imp")
    times = []
    for _ in range(repeats + 1):
        start = time.perf_counter()
        post = model.fit(x, None, comps).posterior()
        acq.select(post, comps.seen(), np.random.default_rng(1))
        times.append(time.perf_counter() - start)
    return {
        "candidates": n,
        "comparisons": p,
        "samples": 20,
        "median_ms": 1000 * float(np.median(times[1:])),
        "torch_threads": torch.get_num_threads(),
    }


def peak_rss_of_large_update() -> float:
    """Peak resident memory (MB) of a fresh Python process that runs GPPL+IMP at 10,000 / 20."""
    code = (
        "from threadpoolctl import threadpool_limits\n"
        "from benchmarks.bench_ranking_speed import time_gppl\n"
        "with threadpool_limits(limits=1):\n"
        "    time_gppl(10_000, 20, 384, 3, 'imp')\n"
        # VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent across fork and exec.
        "print(next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM')) / 1024)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


# ---- peers, measured in the same run ---------------------------------------------------------------------
PEERS = {
    # method: (model, acquisition, the row it is a ratio to)
    "gppl+imp": ("gppl", "imp", "gppl+imp"),
    "pairwisegp+eubo": ("pairwisegp", "eubo", "gppl+imp"),
    "pairwisegp+botorch_ei": ("pairwisegp", "botorch_ei", "gppl+imp"),
    "bt+unc": ("bt", "unc", "bt+unc"),
    "choix_bt+unc": ("choix_bt", "unc", "bt+unc"),
}


def _peer_problem(n: int, p: int, seed: int):
    """Unit-norm features (like MiniLM's), prior scores and p - 1 comparisons of random pairs."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 384))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return x, rng.normal(size=n), _comparisons(n, p - 1, rng), rng


def _peer_model(name: str, seed: int):
    from assistant.evaluation.cqa.protocol import RankerSettings, make_model

    if name == "choix_bt":
        from assistant.evaluation.peers.choix_bt import ChoixBradleyTerry

        return ChoixBradleyTerry(alpha=0.5)  # penalty alpha * ||s||^2: unit prior variance, like our BT's l2 = 1
    return make_model(name, RankerSettings(), None, seed)


def peer_update(method: str, x, prior, comps, seed: int = 0, model=None):
    """One interactive update of ``method``: fit on ``comps`` + posterior over all candidates + next pair.
    ``model``: the dialogue's model (GPPL keeps its kernel rows between updates; PairwiseGP is rebuilt and
    refitted at every update, as BoTorch's loop does)."""
    from assistant.evaluation.cqa.protocol import make_acquisition_for

    model_name, strategy, _ = PEERS[method]
    model = model or _peer_model(model_name, seed)
    post = model.fit(x, prior, comps).posterior()
    return make_acquisition_for(strategy, model.noise).select(post, comps.seen(), np.random.default_rng(seed))


def time_peers(
    n: int, p: int, repeats: int, methods: list[str], seed: int = 0, problem=None, models=None
) -> dict[str, list[float]]:
    """Seconds of each method's update, interleaved repeat by repeat (load drifts affect all alike). Each
    repeat adds one new comparison, as in a dialogue; one warm-up update per method is not timed.
    ``problem``: (features, prior, comparisons, rng) instead of random ones; ``models``: method -> model."""
    x, prior, base, rng = problem or _peer_problem(n, p, seed)
    times: dict[str, list[float]] = {m: [] for m in methods}
    # one model per dialogue, as a session keeps it
    models = models or {m: _peer_model(PEERS[m][0], seed) for m in methods}
    for r in range(repeats + 1):
        while True:
            a, b = (int(v) for v in rng.choice(n, 2, replace=False))
            if (min(a, b), max(a, b)) not in base.seen():
                comps = base.add(a, b, float(rng.integers(2)))
                break
        for method in methods:
            start = time.perf_counter()
            peer_update(method, x, prior, comps, seed, models[method])
            if r:  # the first round warms caches and imports
                times[method].append(time.perf_counter() - start)
    return times


def peer_peak_memory(method: str, n: int, p: int) -> dict:
    """Peak resident memory (MB) of a fresh process doing two updates of ``method``, and its rise over the
    same process after the imports (every peer's libraries are imported in each, so baselines match)."""
    code = (
        "import torch, botorch, choix\n"
        "from threadpoolctl import threadpool_limits\n"
        "from benchmarks.bench_ranking_speed import _peer_problem, peer_update\n"
        "def rss(key): return next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith(key)) / 1024\n"
        f"x, prior, comps, rng = _peer_problem({n}, {p}, 0)\n"
        "base = rss('VmRSS')\n"
        "with threadpool_limits(limits=1):\n"
        f"    peer_update({method!r}, x, prior, comps); peer_update({method!r}, x, prior, comps)\n"
        "print(rss('VmHWM'), rss('VmHWM') - base)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    peak, extra = (float(v) for v in out.stdout.strip().splitlines()[-1].split())
    return {"peak_rss_mb": round(peak, 1), "update_rss_mb": round(extra, 1)}


def peer_rows(sizes, repeats: dict, methods: list[str], memory: bool) -> list[dict]:
    rows = []
    for n, p in sizes:
        reps = repeats["small"] if n <= 1000 else repeats["large"]
        with threadpool_limits(limits=1):
            times = time_peers(n, p, reps, methods)
        medians = {m: float(np.median(t)) for m, t in times.items()}
        for method in methods:
            ref = PEERS[method][2]
            row = {
                "candidates": n,
                "comparisons": p,
                "method": method,
                "median_ms": round(1000 * medians[method], 2),
                "ratio_to_ours": round(medians[method] / medians[ref], 1) if ref in medians else None,
                "ours": ref,
                "repeats": len(times[method]),
            }
            if memory:
                row.update(peer_peak_memory(method, n, p))
            rows.append(row)
    return rows


def summary_peer_rows(candidates: int, p: int, repeats: int, seed: int = 0) -> list[dict]:
    """One GPPL update over ``candidates`` candidate summaries (bigram+ features, REAPER prior; DUC 2004's
    first topic, or the bundled MultiLing M000 when DUC is absent) against PairwiseGP + EUBO on the same data,
    and against BO's published ~1 s per update (Simpson et al. 2020, their own GPPL code)."""
    from assistant.errors import DataMissingError
    from assistant.progress import run_job
    from assistant.summarization.documents import load_duc, load_multiling
    from assistant.summarization.prepare import prepare_topic
    from assistant.summarization.ranker import SummaryRankerSettings, make_model

    try:
        topic, source = load_duc("duc2004")[0], "duc2004 topic 0"
    except DataMissingError:
        topic, source = load_multiling("M000"), "multiling M000 (DUC absent)"
    prepared = run_job(
        prepare_topic(topic, n_random=candidates, strong=False, minilm_features=False, priors=("reaper",), gold=False)
    )
    x, prior = prepared.features["bigram"], prepared.priors["reaper"]
    rng = np.random.default_rng(seed)
    problem = (x, prior, _comparisons(len(x), p - 1, rng), rng)
    models = {
        "gppl+imp": make_model("imp", SummaryRankerSettings()),
        "pairwisegp+eubo": _peer_model("pairwisegp", seed),
    }
    with threadpool_limits(limits=1):
        times = time_peers(len(x), p, repeats, list(models), seed, problem, models)
    ours = float(np.median(times["gppl+imp"]))
    rows = []
    for method, seconds in [*((m, float(np.median(t))) for m, t in times.items()), ("BO's GPPL (published)", 1.0)]:
        rows.append(
            {
                "source": source,
                "candidates": len(x),
                "features": x.shape[1],
                "comparisons": p,
                "method": method,
                "median_ms": round(1000 * seconds, 2),
                "ratio_to_ours": round(seconds / ours, 1),
            }
        )
    return rows


def plot_peers(rows: list[dict], path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure

    figure = MplFigure(figsize=(6.5, 4), dpi=110)
    FigureCanvasAgg(figure)
    ax = figure.add_subplot(1, 1, 1)
    for method in dict.fromkeys(r["method"] for r in rows):
        pts = [(r["candidates"], r["median_ms"]) for r in rows if r["method"] == method]
        ax.plot([a for a, _ in pts], [b for _, b in pts], marker="o", label=method)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("candidates")
    ax.set_ylabel("ms per update (median)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path)


def run(context: BenchContext) -> BenchJob:
    import torch

    torch.set_num_threads(context["torch_threads"])
    repeats = context["repeats"]
    yield Progress(0, 3, "GPPL with every acquisition, MC dropout")
    ours = []
    with threadpool_limits(limits=1):
        for n, p in ((100, 10), (10_000, 20)):
            for strategy in ("imp", "tp", "eig", "unpa"):
                row = time_gppl(n, p, 384, repeats if n <= 100 else max(3, repeats // 3), strategy)
                ours.append({k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()})
        mcd = time_mcd(100, 10, max(3, repeats // 3))
    ours.append({"candidates": 100, "comparisons": 10, "strategy": "mcd+imp", "median_ms": round(mcd["median_ms"], 1)})
    peak = peak_rss_of_large_update()
    yield Progress(1, 3, "peers: PairwiseGP, choix")
    methods = [m for m in PEERS if m.split("+")[0] not in context["without"]]
    peers = peer_rows(context["peer_sizes"], context["peer_repeats"], methods, context["memory"])
    summaries = []
    if context["summary_candidates"]:
        yield Progress(2, 3, "peers on candidate summaries")
        summaries = summary_peer_rows(context["summary_candidates"], 20, context["peer_repeats"]["large"])
    yield Progress(2, 3, "plots")
    plot_peers(peers, context.figure_path("peers"))
    imp = {r["candidates"]: r for r in ours if r.get("strategy") == "imp"}
    ratio = {r["candidates"]: r["ratio_to_ours"] for r in peers if r["method"] == "pairwisegp+eubo"}
    small, large = min(ratio, default=None), max(ratio, default=None)
    goals = {
        "pairwisegp_eubo_at_least_10x_at_100": None if small is None else ratio[small] >= 10,
        "pairwisegp_eubo_at_least_50x_at_10000": None if large != 10_000 else ratio[large] >= 50,
    }
    load = os.getloadavg()[0]
    summary = (
        f"GPPL+IMP {imp[100]['median_ms']:.2f} ms @100/10, {imp[10_000]['median_ms']:.1f} ms @10,000/20, "
        f"peak RSS {peak:.0f} MB; PairwiseGP+EUBO / GPPL+IMP = "
        + ", ".join(f"x{v} @{k}" for k, v in ratio.items())
        + f" (goals x10 @100, x50 @10,000: {goals}); load {load:.1f}"
    )
    blas = "BLAS 1 thread (threadpoolctl) in every measurement; torch threads " + str(context["torch_threads"])
    tables = [
        Table(
            "gppl",
            "GPPL update (fit + posterior + acquisition) by acquisition; MC dropout step",
            ours,
            timing=("median_ms", "p90_ms", "cold_ms", "peak_traced_mb"),
            note=blas + f"; peak RSS of a fresh process at 10,000/20: {peak:.0f} MB",
        ),
        Table(
            "peers",
            "Peers in the same run: one interactive update, as a ratio to ours",
            peers,
            timing=("median_ms", "ratio_to_ours", "peak_rss_mb", "update_rss_mb", "repeats"),
            note=blas + "; PairwiseGP: fit_gpytorch_mll at every update, posterior and acquisition in chunks of 1,000; "
            "choix: item-level BT (opt_pairwise, Newton-CG), no features; ratios from interleaved repeats",
        ),
        Table(
            "summaries",
            "One update over candidate summaries: GPPL against PairwiseGP + EUBO and BO's published ~1 s",
            summaries,
            timing=("median_ms", "ratio_to_ours"),
            note="BO's row is the figure published by Simpson et al. (2020) for their code, not measured here",
        ),
        Table(
            "goals",
            "Speed goals against PairwiseGP",
            [{"goal": k, "met": v} for k, v in goals.items()],
            timing=("met",),
        ),
    ]
    figures = [Figure("peers", "Update time against the number of candidates, ours and peers")]
    return BenchOutput(tables, figures, summary)


BENCHMARK = Benchmark(
    name="ranking_speed",
    title="Ranking update speed: GPPL, and BoTorch's PairwiseGP and choix in the same run",
    run=run,
    quick={
        "repeats": 5,
        "peer_sizes": [[100, 10], [1000, 15], [10_000, 20]],
        "peer_repeats": {"small": 3, "large": 1},
        "memory": False,
        "summary_candidates": 1000,
    },
    full={
        "repeats": 30,
        "torch_threads": 1,
        "peer_sizes": [[100, 10], [1000, 15], [10_000, 20]],
        "peer_repeats": {"small": 10, "large": 3},
        "memory": True,
        "summary_candidates": 10_000,
        "without": [],
    },
    kind="speed",
)


def main(argv: list[str] | None = None) -> dict:
    return run_main(BENCHMARK, argv)


if __name__ == "__main__":
    main()
