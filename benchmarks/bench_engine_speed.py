"""Speed of one clarification turn: belief update + information gain over all questions + policy decision.

Two scales: birds (200 labels x 287 questions, up to 5 options; the real bundled answer model when
the birds domain is built, else random) and a synthetic 10,000 labels x 2,000 questions x 4 options.
Targets (issue 3): median < 0.5 ms at birds scale, < 50 ms at the synthetic scale. The same run times a plain
numpy reference implementation of the same belief update + information gain (``ReferenceTurn``, the physical
floor) on the same answer model, and reports ours as a ratio to it.

    python -m benchmarks engine_speed [--quick]
"""

from __future__ import annotations

import os
import statistics
import time

import numpy as np
import torch
from threadpoolctl import threadpool_limits

from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.clarifier import Clarifier, ClarifierConfig
from assistant.clarification.stopping import LearnedPolicy
from assistant.evaluation.bench import BenchContext, BenchJob, Benchmark, BenchOutput, Figure, Table
from assistant.evaluation.peers.numpy_turn import ReferenceTurn
from assistant.progress import Progress
from assistant.store import BINARY_OPTIONS, Domain, Label, Question
from benchmarks.common import bundled_domain, run_main
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


def time_turns(
    domain: Domain, turns: int, conversations: int, rng: np.random.Generator, with_policy: bool = True
) -> list[float]:
    """Wall time (ms) of each answer + next-question decision (+ the policy's decision ``with_policy``)."""
    torch.manual_seed(0)
    policy = LearnedPolicy(StopPolicyNet())
    model = AnswerModel(domain.p_hat(1.0), domain.option_mask)
    _ = model.matrix, model.cond_entropy  # built once per domain, not per turn
    prior = _FixedPrior(rng.normal(size=domain.num_labels).astype(np.float32))
    # the policy must not stop, so that every timed turn does the full work (its decision is still computed)
    stop = _NeverStop(policy if with_policy else None)
    clarifier = Clarifier(domain, prior, model, stop, config=ClarifierConfig(max_turns=turns + 1))
    times = []
    for _ in range(conversations):
        conversation = clarifier.start("query")
        question = conversation.next_question()
        for _ in range(turns):
            assert question is not None  # _NeverStop and max_turns = turns + 1: a question every turn
            start = time.perf_counter()
            conversation.answer(question, int(rng.integers(len(domain.questions[question].options))))
            question = conversation.next_question()
            times.append((time.perf_counter() - start) * 1000)
    return times


class _NeverStop:
    """Computes the learned policy's decision (its cost is part of a turn) but never stops."""

    name = "never"

    def __init__(self, policy: LearnedPolicy | None) -> None:
        self.policy = policy

    def should_stop(self, probs, turn, max_turns, best_gain: float = 0.0) -> bool:
        if self.policy is not None:
            self.policy.stop_probability(probs, turn, max_turns, best_gain)
        return False


def time_reference(domain: Domain, turns: int, conversations: int, rng: np.random.Generator) -> list[float]:
    """Wall time (ms) of each answer + next question of the plain numpy reference (same answer model)."""
    model = AnswerModel(domain.p_hat(1.0), domain.option_mask)
    prior = rng.normal(size=domain.num_labels)
    times = []
    for _ in range(conversations):
        turn = ReferenceTurn(model.matrix, model.cond_entropy, prior)
        question = turn.next_question()
        for _ in range(turns):
            start = time.perf_counter()
            turn.answer(question, int(rng.integers(len(domain.questions[question].options))))
            question = turn.next_question()
            times.append((time.perf_counter() - start) * 1000)
    return times


def run(context: BenchContext) -> BenchJob:
    rng = np.random.default_rng(context.seed)
    yield Progress(0, 3, "building the birds domain")
    scales = [("birds", bundled_domain("birds"), 9, context["birds_conversations"])]
    for labels, questions in context["synthetic"]:
        scales.append(
            (f"{labels}x{questions}x4", synthetic_domain(labels, questions, 4, rng), 5, context["large_conversations"])
        )
    rows = []
    for i, (name, domain, turns, conversations) in enumerate(scales):
        yield Progress(i + 1, len(scales) + 1, f"timing turns at {name}")
        with threadpool_limits(limits=context["blas_threads"]):
            ours = time_turns(domain, turns, conversations, rng)
            bare = time_turns(domain, turns, conversations, rng, with_policy=False)
            floor = time_reference(domain, turns, conversations, rng)
        rows.append(
            {
                "scale": name,
                "labels": domain.num_labels,
                "questions": domain.num_questions,
                "turns_timed": len(ours),
                "ours_ms": round(statistics.median(ours), 4),
                "ours_without_policy_ms": round(statistics.median(bare), 4),
                "numpy_floor_ms": round(statistics.median(floor), 4),
                "ratio_ours_to_floor": round(statistics.median(ours) / statistics.median(floor), 2),
                "target_ms": 0.5 if name == "birds" else 50.0,
            }
        )
        del domain
    path = context.figure_path("turn_vs_size")
    plot_speed(rows, path)
    birds, large = rows[0], rows[-1]
    summary = (
        f"turn median {birds['ours_ms']} ms at birds (floor {birds['numpy_floor_ms']}, x{birds['ratio_ours_to_floor']}), "
        f"{large['ours_ms']} ms at {large['scale']} (floor {large['numpy_floor_ms']}, x{large['ratio_ours_to_floor']})"
    )
    note = (
        f"median over turns; BLAS {context['blas_threads']} thread(s) (threadpoolctl), "
        f"OPENBLAS_THREAD_TIMEOUT={os.environ.get('OPENBLAS_THREAD_TIMEOUT')}; ours = answer + next question + the "
        "learned policy's decision; the floor = the same belief update + IG in plain numpy, no policy"
    )
    table = Table(
        "turn",
        "One clarification turn against the numpy floor",
        rows,
        timing=("ours_ms", "ours_without_policy_ms", "numpy_floor_ms", "ratio_ours_to_floor"),
        note=note,
    )
    return BenchOutput(
        [table], [Figure("turn_vs_size", "Turn time against problem size (labels x questions)")], summary
    )


def plot_speed(rows: list[dict], path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure

    figure = MplFigure(figsize=(6.5, 4), dpi=110)
    FigureCanvasAgg(figure)
    ax = figure.add_subplot(1, 1, 1)
    size = [r["labels"] * r["questions"] for r in rows]
    for key, label in (
        ("ours_ms", "ours (with policy)"),
        ("ours_without_policy_ms", "ours, no policy"),
        ("numpy_floor_ms", "numpy floor"),
    ):
        ax.plot(size, [r[key] for r in rows], marker="o", label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("labels x questions")
    ax.set_ylabel("ms per turn (median)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path)


BENCHMARK = Benchmark(
    name="engine_speed",
    title="Clarifier turn speed, with a numpy reference turn as the floor",
    run=run,
    quick={"birds_conversations": 20, "synthetic": [[2000, 400]], "large_conversations": 2},
    full={
        "birds_conversations": 200,
        "synthetic": [[2000, 400], [10_000, 2_000]],
        "large_conversations": 6,
        "blas_threads": None,
    },
    kind="speed",
)


def main(argv: list[str] | None = None) -> dict:
    return run_main(BENCHMARK, argv)


if __name__ == "__main__":
    main()
