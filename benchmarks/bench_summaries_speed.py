"""Speed of the summary engine (issue 13 targets): one GPPL update over 10,000 candidate summaries (< 50 ms),
building 10,000 candidates and their bigram+ features and REAPER prior for a DUC topic (< 10 s; the bundled
MultiLing cluster M000 when DUC is absent), and one RL summary on the learned reward (< 30 s on 2 cores).

An update is what a person waits for after a comparison: the GPPL fit on the answers so far and the next IMP
pair. BLAS: OPENBLAS_THREAD_TIMEOUT / OPENBLAS_NUM_THREADS as set by the caller (make sets the timeout to 4);
the machine's load average is recorded beside the figures (the machine is shared).

Run: python -m benchmarks summaries_speed [--quick] [--topic N]
"""

from __future__ import annotations

import json
import os
import time

import click
import numpy as np

from benchmarks.common import HELP, run_command

KIND = "speed"  # the bench runs the timed part (learning's quality table needs --quality)


@click.command(name="bench_summaries_speed", context_settings=HELP)
@click.option("--quick", is_flag=True)
@click.option("--topic", "topic_index", type=int, default=0, help="DUC 2004 topic index")
def command(quick: bool, topic_index: int) -> dict:
    from assistant.errors import DataMissingError
    from assistant.progress import run_job
    from assistant.ranking.acquisition import first_pair, make_acquisition
    from assistant.ranking.base import Comparisons
    from assistant.summarization.documents import load_duc, load_multiling
    from assistant.summarization.prepare import prepare_topic
    from assistant.summarization.ranker import SummaryRankerSettings, make_model
    from assistant.summarization.rewards import LearnedReward
    from assistant.summarization.rl import RLSettings, RLSummarizer

    n = 1000 if quick else 10_000
    try:
        topic, source = load_duc("duc2004")[topic_index], f"duc2004 topic {topic_index}"
    except DataMissingError:
        topic, source = load_multiling("M000"), "multiling M000 (DUC absent)"
    run_job(prepare_topic(topic, n_random=10, strong=False, minilm_features=False, priors=("reaper",), gold=False))
    start = time.perf_counter()  # the second time: the tokenizer and stemmer are loaded, as in a running app
    prepared = run_job(
        prepare_topic(topic, n_random=n, strong=False, minilm_features=False, priors=("reaper",), gold=False)
    )
    build = time.perf_counter() - start
    x, p = prepared.features["bigram"], prepared.priors["reaper"]
    model = make_model("imp", SummaryRankerSettings())
    acquisition = make_acquisition("imp")
    rng = np.random.default_rng(0)
    comparisons = Comparisons.empty()
    posterior = model.fit(x, p, comparisons).posterior()
    pair: tuple[int, int] | None = first_pair(posterior.mean, x)
    times = []
    for _ in range(20):
        assert pair is not None  # 20 comparisons never exhaust the candidates' pairs
        comparisons = comparisons.add(pair[0], pair[1], float(rng.integers(2)))
        t0 = time.perf_counter()
        posterior = model.fit(x, p, comparisons).posterior()
        pair = acquisition.select(posterior, comparisons.seen(), rng)
        times.append(time.perf_counter() - t0)
    settings = RLSettings(replay_episodes=300) if quick else RLSettings()
    start = time.perf_counter()
    run_job(RLSummarizer(prepared, LearnedReward(prepared, model), settings).train())
    rl = time.perf_counter() - start
    result = {
        "source": source,
        "candidates": len(prepared.candidates),
        "sentences": len(prepared.table),
        "build_candidates_and_features_s": round(build, 2),
        "gppl_update_ms_median": round(1000 * float(np.median(times)), 2),
        "gppl_update_ms_max": round(1000 * float(np.max(times)), 2),
        "rl_summary_s": round(rl, 2),
        "rl_episodes": settings.replay_episodes + settings.policy_episodes,
        "load_average_1min": round(os.getloadavg()[0], 2),
        "blas": f"OPENBLAS_THREAD_TIMEOUT={os.environ.get('OPENBLAS_THREAD_TIMEOUT', 'unset')}, "
        f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}",
    }
    print(json.dumps(result, indent=2))
    print(
        f"summaries: GPPL+IMP update {result['gppl_update_ms_median']} ms at {result['candidates']} candidates "
        f"(target < 50), build {result['build_candidates_and_features_s']} s (< 10), RL {result['rl_summary_s']} s "
        f"(< 30), load average {result['load_average_1min']}"
    )
    return result


def main(argv: list[str] | None = None) -> dict:
    return run_command(command, argv)


if __name__ == "__main__":
    main()
