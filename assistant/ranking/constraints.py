"""What the person said, kept: stated preferences as order constraints on the utilities.

A probit GP treats "a is better than b" as soft evidence: against a strong prior (or between two
candidates the kernel thinks alike) its posterior mean can leave b above a, and the ranking then
contradicts what the person just said. Here every stated preference is an order constraint
``u_winner >= u_loser + margin`` unless later answers contradict it:

- ``standing_preferences`` keeps, newest first, each (winner, loser) that does not close a cycle with the
  newer ones already kept (a newer answer wins over an older one it contradicts, also through a chain);
- ``project_order`` moves the posterior mean the least (in squared distance) to satisfy them
  (Hildreth's dual coordinate ascent: a quadratic programme over a few constraints);
- ``chance_best`` is each candidate's probability of being the best, over posterior draws that respect
  the constraints (rejection; draws that keep failing are projected), among the candidates still in play;
- ``chance_best_weighted`` is the same probability for a person who may err: draws of the utilities
  *before* any answer, each weighted by the likelihood of every stated preference under ``PERSON_ERROR``.
  No stated preference is certain, so two comparisons never make a candidate 100% sure, and with the same
  draws a candidate that keeps winning never loses chance (every draw in which it is the best already
  agrees with the answer; the others can only lose weight).

Shapes: N candidates; edges [K, 2] int (winner, loser); draws [S, N].
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

MARGIN = 1e-6
_SWEEPS = 500
# How often a person picks the worse of two answers (misreads, hurries): the stated preference's likelihood.
PERSON_ERROR = 0.1


def _reaches(edges: dict[int, set[int]], start: int, goal: int) -> bool:
    """Whether ``goal`` is reachable from ``start`` along ``edges`` (winner -> losers)."""
    todo, seen = [start], {start}
    while todo:
        node = todo.pop()
        if node == goal:
            return True
        for nxt in edges.get(node, ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


def standing_preferences(answers: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The (winner, loser) pairs of ``answers`` (oldest first) that later answers do not contradict.

    Newest first, a pair is kept unless the pairs kept so far already order its loser above its winner;
    the result (oldest first) never contains a cycle.
    """
    kept: list[tuple[int, int]] = []
    graph: dict[int, set[int]] = {}
    for winner, loser in reversed(list(answers)):
        if winner == loser or _reaches(graph, loser, winner):
            continue
        graph.setdefault(winner, set()).add(loser)
        kept.append((winner, loser))
    return kept[::-1]


def project_order(values: np.ndarray, edges: Iterable[tuple[int, int]], margin: float = MARGIN) -> np.ndarray:
    """The values closest to ``values`` ([N] or [S, N], row by row) with values[w] >= values[l] + margin for
    every (w, l) in ``edges`` (which must be acyclic). Exact up to ``1e-9``; unchanged when already ordered."""
    e = np.asarray(list(edges), dtype=np.int64).reshape(-1, 2)
    out = np.array(values, dtype=np.float64, copy=True)
    if len(e) == 0:
        return out
    if out.ndim == 1:
        return np.array(_project_one(out.tolist(), e.tolist(), margin))
    flat = False
    u = np.ascontiguousarray((out[None, :] if flat else out).T)  # [N, S]: one contiguous row per candidate
    winners, losers = e[:, 0], e[:, 1]
    duals = np.zeros((len(e), u.shape[1]))
    for _ in range(_SWEEPS):
        gaps = u[winners] - u[losers]  # [K, S]
        # converged: every constraint holds, and those with a positive dual are tight (KKT)
        if np.all(gaps >= margin - 1e-9) and np.all((duals <= 0) | (gaps <= margin + 1e-9)):
            break
        for k in range(len(e)):
            w, lo = winners[k], losers[k]
            # maximise the dual in coordinate k (||e_w - e_l||^2 = 2)
            step = np.maximum(-duals[k], (margin - (u[w] - u[lo])) / 2.0)
            duals[k] += step
            u[w] += step
            u[lo] -= step
    out = u.T[0].copy() if flat else np.ascontiguousarray(u.T)
    return out


def _project_one(u: list[float], edges: list[list[int]], margin: float) -> list[float]:
    """``project_order`` of one vector, in plain floats (many sweeps of a few constraints: numpy's per-call
    overhead would dominate)."""
    duals = [0.0] * len(edges)
    for _ in range(_SWEEPS * 10):
        done = True
        for k, (w, lo) in enumerate(edges):
            step = max(-duals[k], (margin - (u[w] - u[lo])) / 2.0)
            if abs(step) > 1e-12:
                done = False
                duals[k] += step
                u[w] += step
                u[lo] -= step
        if done:
            break
    return u


def respects(draws: np.ndarray, edges: Sequence[tuple[int, int]]) -> np.ndarray:
    """[S] bool: which rows of ``draws`` [S, N] order every (winner, loser) of ``edges`` correctly."""
    ok = np.ones(len(draws), dtype=bool)
    for w, lo in edges:
        ok &= draws[:, w] > draws[:, lo]
    return ok


def chance_best(
    sample,
    n: int,
    edges: Sequence[tuple[int, int]],
    in_play: np.ndarray,
    rng: np.random.Generator,
    samples: int = 500,
    rounds: int = 8,
    least: int = 100,
) -> np.ndarray:
    """[N] P(candidate is the best of those ``in_play``), over draws of ``sample(size, rng)`` -> [size, N]
    that respect ``edges``; candidates out of play get 0. Draws are taken in up to ``rounds`` batches of
    ``samples`` until ``samples`` respect the constraints; if fewer than ``least`` do, projected draws
    (``project_order``) make up the difference."""
    in_play = np.asarray(in_play, dtype=bool)
    chances = np.zeros(n)
    if not in_play.any():
        return chances
    if in_play.sum() == 1:
        chances[in_play] = 1.0
        return chances
    kept: list[np.ndarray] = []
    total = 0
    last = None
    for _ in range(rounds):
        draws = sample(samples, rng)
        last = draws
        good = draws[respects(draws, edges)]
        kept.append(good)
        total += len(good)
        if total >= samples:
            break
    if total < least and last is not None:
        failing = last[~respects(last, edges)]
        kept.append(project_order(failing[: least - total], edges))
    pool = np.concatenate(kept)[:samples] if kept else np.zeros((0, n))
    scores = np.where(in_play[None, :], pool, -np.inf)
    winners = np.argmax(scores, axis=1)
    np.add.at(chances, winners, 1.0)
    return chances / max(len(pool), 1)


def chance_best_weighted(
    draws: np.ndarray, stated: Sequence[tuple[int, int]], in_play: np.ndarray, error: float = PERSON_ERROR
) -> np.ndarray:
    """[N] P(candidate is the best of those ``in_play``) given the (winner, loser) preferences ``stated``
    (oldest first, contradictions included): ``draws`` [S, N] of the utilities before any answer, each
    weighted by prod (1 - error) over the preferences it agrees with and ``error`` over the others."""
    draws = np.asarray(draws, dtype=np.float64)
    n = draws.shape[1]
    in_play = np.asarray(in_play, dtype=bool)
    chances = np.zeros(n)
    if not in_play.any():
        return chances
    if in_play.sum() == 1:
        chances[in_play] = 1.0
        return chances
    log_weights = np.zeros(len(draws))
    agree, disagree = np.log1p(-error), np.log(error)
    for winner, loser in stated:
        log_weights += np.where(draws[:, winner] > draws[:, loser], agree, disagree)
    weights = np.exp(log_weights - log_weights.max())
    winners = np.argmax(np.where(in_play[None, :], draws, -np.inf), axis=1)
    chances += np.bincount(winners, weights=weights, minlength=n)
    return chances / weights.sum()
