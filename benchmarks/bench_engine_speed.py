"""Speed of one clarification turn: belief update + information gain over all questions + policy decision.

Two scales: birds (200 labels x 287 questions, up to 5 options; the real bundled answer model when
the birds domain is built, else random) and a synthetic 10,000 labels x 2,000 questions x 4 options.
Targets (issue 3): median < 0.5 ms at birds scale, < 50 ms at the synthetic scale.

    python -m benchmarks engine_speed [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np
import torch

from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.clarifier import Clarifier, ClarifierConfig
from assistant.clarification.stopping import LearnedPolicy
from assistant.store import BINARY_OPTIONS, Domain, Label, Question
from benchmarks.common import bundled_domain
from models.policy_net import StopPolicyNet


class _FixedPrior:
    name = "fixed"

    def __init__(self, scores: np.ndarray) -> None:
        self._scores = scores

    def scores(self, texts):
        return np.repeat(self._scores[None, :], len(texts), axis=0)


def synthetic_domain(labels: int, questions: int, options: int, rng: np.random.Generator) -> Domain:
    qs = [
        Question(f"t{q}", f"q{q}", "binary", f"g{q}", BINARY_OPTIONS)
        if options == 2
        else Question(f"t{q}", f"q{q}", "choice", f"g{q}", tuple(f"o{r}" for r in range(options)))
        for q in range(questions)
    ]
    counts = rng.gamma(0.5, 4.0, size=(questions, options, labels)).astype(np.float32)
    return Domain("synthetic", "synthetic", [Label(f"l{i}", f"l{i}") for i in range(labels)], qs, counts)


def time_turns(domain: Domain, turns: int, conversations: int, rng: np.random.Generator) -> list[float]:
    """Wall time (ms) of each answer + next-question decision."""
    torch.manual_seed(0)
    policy = LearnedPolicy(StopPolicyNet())
    model = AnswerModel(domain.p_hat(1.0), domain.option_mask)
    _ = model.matrix, model.cond_entropy  # built once per domain, not per turn
    prior = _FixedPrior(rng.normal(size=domain.num_labels).astype(np.float32))
    # the policy must not stop, so that every timed turn does the full work (its decision is still computed)
    clarifier = Clarifier(domain, prior, model, _NeverStop(policy), config=ClarifierConfig(max_turns=turns + 1))
    times = []
    for _ in range(conversations):
        conversation = clarifier.start("query")
        question = conversation.next_question()
        for _ in range(turns):
            start = time.perf_counter()
            conversation.answer(question, int(rng.integers(len(domain.questions[question].options))))
            question = conversation.next_question()
            times.append((time.perf_counter() - start) * 1000)
    return times


class _NeverStop:
    """Computes the learned policy's decision (its cost is part of a turn) but never stops."""

    name = "never"

    def __init__(self, policy: LearnedPolicy) -> None:
        self.policy = policy

    def should_stop(self, probs, turn, max_turns) -> bool:
        self.policy.stop_probability(probs, turn, max_turns)
        return False


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    birds = bundled_domain("birds")
    birds_ms = time_turns(birds, 9, 20 if args.quick else 200, rng)
    big_labels, big_questions = (2000, 400) if args.quick else (10_000, 2_000)
    big = synthetic_domain(big_labels, big_questions, 4, rng)
    big_ms = time_turns(big, 5, 2 if args.quick else 6, rng)
    result = {
        "benchmark": "engine_speed",
        "birds": {
            "source": "bundled birds domain",
            "labels": birds.num_labels,
            "questions": birds.num_questions,
            "turns_timed": len(birds_ms),
            "median_ms": round(statistics.median(birds_ms), 4),
            "p90_ms": round(float(np.percentile(birds_ms, 90)), 4),
            "target_ms": 0.5,
        },
        "large": {
            "labels": big_labels,
            "questions": big_questions,
            "options": 4,
            "turns_timed": len(big_ms),
            "median_ms": round(statistics.median(big_ms), 2),
            "target_ms": 50.0,
        },
        "threads": {"OPENBLAS_THREAD_TIMEOUT": os.environ.get("OPENBLAS_THREAD_TIMEOUT"), "cpus": os.cpu_count()},
    }
    print(json.dumps(result, indent=2))
    print(
        f"engine_speed: birds turn median {result['birds']['median_ms']} ms (target < 0.5), "
        f"{big_labels}x{big_questions}x4 turn median {result['large']['median_ms']} ms (target < 50)"
    )
    return result


if __name__ == "__main__":
    main()
