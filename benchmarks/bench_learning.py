"""Learning from use (DASL): the speed of one acquisition round, and the quality table.

Speed (issue 14: < 60 s on 2 cores): one DASL round over 2,000 unlabelled questions with T MC-dropout
passes: the T stochastic passes of the deep answer-selection model, the expected ranking losses, the
choice of k questions and the self-paced pseudo-labels. The questions are the bundled beer problems (20
candidates each, MiniLM embeddings, cached) repeated to 2,000; the model is trained on 50 of them first
(training is not part of the round and is reported separately).

Quality (``--quality``, long): ``clarify learn evaluate`` on the data sets given (default beer), deep
model, 4 seeds; prints DASL's Table 1 (fraction of labels needed to reach the full-data MRR).

Run: python -m benchmarks learning [--quick] [--samples T] [--quality] [--datasets beer,semeval]
"""

from __future__ import annotations

import json
import os
import time

import click
import numpy as np

from benchmarks.common import HELP, run_command

KIND = "speed"  # the bench runs the timed part (learning's quality table needs --quality)


def speed(questions: int, samples: int, k: int, seed: int = 0, distinct: int | None = None) -> dict:
    import torch

    from assistant.evaluation.learning.data import load_problems
    from assistant.learning.acquisition import DASL
    from assistant.learning.loop import estimate_pool
    from assistant.learning.models import DeepSelector, TrainConfig
    from assistant.learning.uncertainty import pseudo_grades
    from assistant.progress import run_job

    torch.set_num_threads(int(os.environ.get("BENCH_TORCH_THREADS", "2")))
    # --quick: 80 distinct beer questions (building the candidates of all 272 took four minutes in a fresh home)
    problems = run_job(load_problems("beer", max_questions=distinct))
    pool = [problems[i % len(problems)] for i in range(questions)]
    model = DeepSelector(TrainConfig(epochs=5), seed=seed)
    start = time.perf_counter()
    run_job(model.fit(problems[:50], [p.grades for p in problems[:50]]))
    train_seconds = time.perf_counter() - start
    acquisition = DASL()
    start = time.perf_counter()
    estimate = estimate_pool(model, pool, problems[:50], acquisition, samples, seed)
    chosen = acquisition(estimate, k, np.random.default_rng(seed))
    pseudo = {int(j): pseudo_grades(estimate.samples[j]) for j in acquisition.pseudo_labelled(estimate, chosen, 0)}
    round_seconds = time.perf_counter() - start
    return {
        "questions": questions,
        "distinct_questions": len(problems),
        "candidates_per_question": float(np.mean([len(p.texts) for p in pool])),
        "samples": samples,
        "k": k,
        "round_seconds": round(round_seconds, 2),
        "train_seconds_50_questions": round(train_seconds, 2),
        "pseudo_labelled": len(pseudo),
        "torch_threads": torch.get_num_threads(),
        "target_seconds": 60.0,
    }


def quality(datasets: list[str], seeds: int) -> dict:
    from assistant.evaluation.learning.protocol import evaluate
    from assistant.progress import run_job

    out = {}
    for name in datasets:
        result = run_job(evaluate(name, model="deep", seeds=seeds))
        out[name] = {"needed": result["needed"], "questions": result["questions"]}
    return out


@click.command(name="python -m benchmarks learning", context_settings=HELP)
@click.option("--quick", is_flag=True)
@click.option("--samples", type=int, default=100)
@click.option("--questions", type=int, default=2000)
@click.option("--quality", "with_quality", is_flag=True)
@click.option("--datasets", default="beer")
@click.option("--seeds", type=int, default=4)
def command(quick: bool, samples: int, questions: int, with_quality: bool, datasets: str, seeds: int) -> dict:
    questions = 200 if quick else questions
    result = {"speed": speed(questions, samples, k=50, distinct=80 if quick else None)}
    if with_quality:
        result["quality"] = quality(datasets.split(","), seeds)
    print(json.dumps(result, indent=2))
    s = result["speed"]
    verdict = "ok" if s["round_seconds"] < s["target_seconds"] else "SLOWER than the target"
    print(
        f"learning: one DASL round over {s['questions']} questions x {s['candidates_per_question']:.0f} candidates, "
        f"T = {s['samples']}: {s['round_seconds']} s ({verdict}, target < 60 s)"
    )
    return result


def main(argv: list[str] | None = None) -> dict:
    return run_command(command, argv)


if __name__ == "__main__":
    main()
