"""Speed of one interactive ranking update: fit + posterior over all candidates + acquisition.

Random features (D = 384, MiniLM's size) and random prior scores; the comparisons are random pairs with
random answers. Reports the median over repeats (after one warm-up that builds the per-candidate-set kernel
cache; the cold first update is reported too) and the peak of Python allocations (tracemalloc) and the
peak resident memory of a fresh process that imports the ranker and runs the 10,000-candidate updates (so
that other benchmarks run before it in the same process, as `make bench` does, do not count). Targets (issue 4): GPPL+IMP < 5 ms at 100 candidates / 10 comparisons,
< 50 ms at 10,000 / 20, peak < 500 MB; MC-dropout step < 0.5 s at 100.

BLAS: limited to one thread with threadpoolctl (numpy's and scipy's OpenBLAS pools fight on 2 cores);
torch uses torch.set_num_threads(1) for the MCD step unless --torch-threads says otherwise.

Run: python -m benchmarks.bench_ranking_speed [--quick] [--repeats R]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import tracemalloc

import numpy as np


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


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="bench_ranking_speed", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--torch-threads", type=int, default=1)
    args = parser.parse_args(argv)
    repeats = args.repeats or (5 if args.quick else 30)
    import torch
    from threadpoolctl import threadpool_limits

    torch.set_num_threads(args.torch_threads)
    result: dict = {
        "blas": "threadpoolctl threadpool_limits(1) around every measurement; "
        f"OPENBLAS_THREAD_TIMEOUT={os.environ.get('OPENBLAS_THREAD_TIMEOUT', 'unset')}",
        "cores": os.cpu_count(),
        "gppl": [],
    }
    with threadpool_limits(limits=1):
        for n, p in ((100, 10), (10_000, 20)):
            for strategy in ("imp", "tp", "eig", "unpa"):
                result["gppl"].append(time_gppl(n, p, 384, repeats if n <= 100 else max(3, repeats // 3), strategy))
        result["mcd"] = time_mcd(100, 10, max(3, repeats // 3))
    result["peak_rss_mb"] = peak_rss_of_large_update()
    result["this_process_peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result["load_average_1min"] = os.getloadavg()[0]  # other processes on the 2 cores inflate every figure
    imp = {r["candidates"]: r for r in result["gppl"] if r["strategy"] == "imp"}
    result["targets"] = {
        "gppl_imp_100_10_under_5ms": imp[100]["median_ms"] < 5,
        "gppl_imp_10000_20_under_50ms": imp[10_000]["median_ms"] < 50,
        "peak_under_500mb": result["peak_rss_mb"] < 500,
        "mcd_100_under_500ms": result["mcd"]["median_ms"] < 500,
    }
    print(json.dumps(result, indent=2))
    print(
        f"GPPL+IMP update: {imp[100]['median_ms']:.2f} ms @100/10, {imp[10_000]['median_ms']:.1f} ms @10,000/20 "
        f"(cold {imp[10_000]['cold_ms']:.0f} ms); peak RSS {result['peak_rss_mb']:.0f} MB; "
        f"MCD step {result['mcd']['median_ms']:.0f} ms @100; BLAS 1 thread (threadpoolctl)"
    )
    return result


if __name__ == "__main__":
    main()
