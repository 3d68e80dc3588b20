"""Speed of the summary engine (issue 13 targets): one GPPL update over 10,000 candidate summaries (< 50 ms),
building 10,000 candidates and their bigram+ features for a DUC topic (< 10 s; the bundled MultiLing
cluster M000 when DUC is absent), and one RL summary (< 30 s on 2 cores).

BLAS: OPENBLAS_THREAD_TIMEOUT as set by the caller (make sets 4). Run: python -m benchmarks summaries_speed [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="bench_summaries_speed")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    from assistant.errors import DataMissingError
    from assistant.progress import run_job
    from assistant.ranking.acquisition import make_acquisition
    from assistant.ranking.base import Comparisons
    from assistant.summarization.documents import load_duc, load_multiling
    from assistant.summarization.prepare import prepare_topic
    from assistant.summarization.ranker import SummaryRankerSettings, make_model
    from assistant.summarization.rl import LearnedReward, RLSettings, RLSummarizer

    n = 1000 if args.quick else 10_000
    try:
        topic, source = load_duc("duc2004")[0], "duc2004 topic 0"
    except DataMissingError:
        topic, source = load_multiling("M000"), "multiling M000 (DUC absent)"
    start = time.perf_counter()
    prepared = run_job(
        prepare_topic(topic, n_random=n, strong=False, minilm_features=False, priors=("reaper",), gold=False)
    )
    build = time.perf_counter() - start
    x, p = prepared.features["bigram"], prepared.priors["reaper"]
    model = make_model("imp", SummaryRankerSettings())
    acq = make_acquisition("imp")
    rng = np.random.default_rng(0)
    comps = Comparisons.empty()
    post = model.fit(x, p, comps).posterior()
    times = []
    for _k in range(20):
        pair = acq.select(post, comps.seen(), rng)
        comps = comps.add(pair[0], pair[1], float(rng.integers(2)))
        t0 = time.perf_counter()
        post = model.fit(x, p, comps).posterior()
        acq.select(post, comps.seen(), rng)
        times.append(time.perf_counter() - t0)
    start = time.perf_counter()
    episodes = 300 if args.quick else 2000
    run_job(RLSummarizer(prepared, LearnedReward(prepared, model), RLSettings(episodes=episodes)).train())
    rl = time.perf_counter() - start
    result = {
        "source": source,
        "candidates": len(prepared.candidates),
        "sentences": len(prepared.table),
        "build_candidates_and_features_s": round(build, 2),
        "gppl_update_ms_median": round(1000 * float(np.median(times[1:])), 2),
        "gppl_update_ms_first": round(1000 * times[0], 2),
        "rl_summary_s": round(rl, 2),
        "rl_episodes": episodes,
        "blas": f"OPENBLAS_THREAD_TIMEOUT={os.environ.get('OPENBLAS_THREAD_TIMEOUT', 'unset')}",
    }
    print(json.dumps(result, indent=2))
    print(
        f"summaries: GPPL+IMP update {result['gppl_update_ms_median']} ms at {result['candidates']} candidates "
        f"(target < 50), build {result['build_candidates_and_features_s']} s (< 10), RL {result['rl_summary_s']} s (< 30)"
    )
    return result


if __name__ == "__main__":
    main()
