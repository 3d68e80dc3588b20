"""Tiny answer-selection problems for the learning tests (random but seeded MiniLM-sized embeddings)."""

from __future__ import annotations

import numpy as np

from assistant.learning.problems import LearningProblem


def make_problems(count: int, seed: int = 0, candidates: int = 6, signal: float = 0.6) -> list[LearningProblem]:
    """Questions whose correct answer (index drawn at random) lies closer to the question than the others by
    ``signal``, plus noise: learnable, but not trivially (the cosine alone is imperfect)."""
    rng = np.random.default_rng(seed)
    out = []
    for q in range(count):
        question = rng.normal(size=384)
        question /= np.linalg.norm(question)
        answers = rng.normal(size=(candidates, 384))
        best = int(rng.integers(candidates))
        answers[best] += signal * np.sqrt(384) * question * rng.uniform(0.0, 1.0)
        answers /= np.linalg.norm(answers, axis=1, keepdims=True)
        grades = np.zeros(candidates, dtype=np.int64)
        grades[best] = 1
        out.append(
            LearningProblem(
                f"q{q}",
                f"question {q}",
                tuple(f"answer {q}-{i}" for i in range(candidates)),
                grades,
                question.astype(np.float32),
                answers.astype(np.float32),
            )
        )
    return out
