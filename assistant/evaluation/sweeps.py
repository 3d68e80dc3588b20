"""Sweeps: a grid of settings evaluated as independent shards, merged afterwards.

A sweep function (``SweepFunction``) turns one grid point (a dict of settings: data set or domain, system,
seed, hyperparameters) into shard inputs (``shards``, in this process: it may prepare data, e.g. train
missing models or embed texts once) and evaluates one shard (``run``: a pure function of its input,
run anywhere) into metric rows ``{"metric", "step", "sum", "count"}``. Merging adds the sums and counts of
a point's shards in shard order, so the merged values are the same whether the shards ran in this process,
in N local workers or on a cluster: every shard runs with one BLAS and one torch thread, and floating-point
sums are taken in the same order.

Backends: ``serial`` (this process), ``loky`` (joblib's process pool, ``workers`` processes) and ``ray``
(``address`` of a running cluster, or a local instance when None; the optional ``[ray]`` extra).

Shapes: a grid of G points, each split into S_g shards; merged rows are tidy: one per point x metric x step.
"""

from __future__ import annotations

import itertools
import math
import os
import time
import tomllib
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assistant.errors import ConfigError
from assistant.progress import Job, Progress

BACKENDS = ("serial", "loky", "ray")
# Settings a shard's worker process takes from the process that planned it (data folders).
CARRIED_ENV = (
    "CLARIFY_HOME",
    "CLARIFY_SHARED_DATA",
    "OPENBLAS_THREAD_TIMEOUT",
    "HF_HUB_OFFLINE",
    "TRANSFORMERS_OFFLINE",
)


@dataclass(frozen=True)
class SweepFunction:
    """``shards(point)`` -> job returning the point's shard inputs (dicts); ``run(shard)`` -> metric rows."""

    name: str
    shards: Callable[[dict[str, Any]], Job[list[dict[str, Any]]]]
    run: Callable[[dict[str, Any]], list[dict[str, Any]]]
    description: str = ""


@dataclass
class SweepConfig:
    """A sweep as written in its TOML file::

    function = "ranking"            # a registered sweep function
    metrics = ["accuracy"]          # optional: the metrics to plot (default: all)
    [fixed]                         # settings shared by every point
    dataset = "beer"
    [grid]                          # every combination of these lists is one point
    seed = [0, 1, 2]
    t = [0.1, 0.3, 1.0]
    """

    function: str
    grid: dict[str, list[Any]]
    fixed: dict[str, Any] = field(default_factory=dict)
    metrics: list[str] = field(default_factory=list)
    source: str = ""

    @classmethod
    def from_toml(cls, path: str | Path) -> SweepConfig:
        path = Path(path)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise ConfigError(f"sweep file {path} not found") from exc
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML ({exc}); see docs/bench.md for the format") from exc
        return cls.from_dict(data, str(path))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "") -> SweepConfig:
        where = source or "sweep"
        unknown = sorted(set(data) - {"function", "grid", "fixed", "metrics"})
        if unknown:
            raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)}; use function, grid, fixed, metrics")
        if not isinstance(data.get("function"), str):
            raise ConfigError(f'{where}: give the sweep function, e.g. function = "ranking"')
        grid = dict(data.get("grid", {}))
        for key, values in grid.items():
            if not isinstance(values, list) or not values:
                raise ConfigError(f"{where}: grid.{key} must be a non-empty list, e.g. {key} = [0, 1]")
        fixed = dict(data.get("fixed", {}))
        both = sorted(set(grid) & set(fixed))
        if both:
            raise ConfigError(f"{where}: {', '.join(both)} appear in both [grid] and [fixed]; keep one")
        return cls(data["function"], grid, fixed, list(data.get("metrics", [])), source)

    def points(self) -> list[dict[str, Any]]:
        """Every grid combination merged with the fixed settings, in a fixed order (the grid's keys vary
        last-fastest, as in itertools.product)."""
        keys = list(self.grid)
        return [{**self.fixed, **dict(zip(keys, combo))} for combo in itertools.product(*self.grid.values())]


@dataclass
class SweepResult:
    """Tidy merged rows (grid settings + metric, step, value, count), the grid's keys and the wall time."""

    rows: list[dict[str, Any]]
    grid_keys: list[str]
    shards: int
    seconds: float
    backend: str
    workers: int

    def to_csv(self, path: str | Path) -> Path:
        import csv

        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        columns: dict[str, None] = {}
        for row in self.rows:
            columns.update(dict.fromkeys(row))
        with path.open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=list(columns))
            writer.writeheader()
            writer.writerows(self.rows)
        return path


# ---- running shards ----------------------------------------------------------------------------------------
def run_shard(function: SweepFunction, shard: dict[str, Any], env: Mapping[str, str]) -> list[dict[str, Any]]:
    """Run one shard with one BLAS thread and one torch thread (results then do not depend on how many
    shards share the machine) under the planning process's data folders ``env``."""
    from threadpoolctl import threadpool_limits

    for key, value in env.items():
        os.environ[key] = value
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with threadpool_limits(limits=1):
            return function.run(shard)
    finally:
        torch.set_num_threads(before)


def _serial(function, shards, env) -> Iterator[tuple[int, list[dict]]]:
    for i, shard in enumerate(shards):
        yield i, run_shard(function, shard, env)


def _indexed(function, i, shard, env):
    return i, run_shard(function, shard, env)


def _loky(function, shards, env, workers: int) -> Iterator[tuple[int, list[dict]]]:
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=workers, backend="loky", return_as="generator_unordered")
    yield from parallel(delayed(_indexed)(function, i, shard, env) for i, shard in enumerate(shards))


def _ray(function, shards, env, address: str | None, workers: int) -> Iterator[tuple[int, list[dict]]]:
    try:
        import ray
    except ImportError as exc:
        raise ConfigError(
            "the ray backend needs Ray: pip install 'clarify-assistant[ray]' (keep torch==2.13.0 pinned)"
        ) from exc
    started_here = not ray.is_initialized()
    if started_here:
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address:
            ray.init(address=address, **kwargs)
        else:
            ray.init(num_cpus=workers, **kwargs)
    try:
        remote = ray.remote(num_cpus=1)(_indexed)
        pending = [remote.remote(function, i, shard, env) for i, shard in enumerate(shards)]
        while pending:
            done, pending = ray.wait(pending, num_returns=1, timeout=None)
            for ref in done:
                yield ray.get(ref)
    finally:
        if started_here:
            ray.shutdown()


def merge(point: Mapping[str, Any], shard_rows: Sequence[list[dict[str, Any]]], keys: Sequence[str]) -> list[dict]:
    """Tidy rows of one point: its grid settings + each row's labels (metric, step, and any other label such as
    system) + value (= sum of sums / sum of counts) and count.

    ``shard_rows`` must be in shard order: sums are added in that order, so the floating-point result does
    not depend on which shard finished first."""
    totals: dict[tuple, list[float]] = {}
    for rows in shard_rows:
        for row in rows:
            labels = tuple((k, v) for k, v in row.items() if k not in ("sum", "count"))
            acc = totals.setdefault(labels, [0.0, 0.0])
            acc[0] += float(row["sum"])
            acc[1] += float(row["count"])
    base = {k: point[k] for k in keys}
    out = []
    for labels, (total, count) in totals.items():
        row = {**base, **dict(labels)}
        row.setdefault("step", None)
        out.append({**row, "value": total / count if count else math.nan, "count": int(count)})
    return out


def run_sweep(
    config: SweepConfig,
    function: SweepFunction,
    backend: str = "serial",
    workers: int = 1,
    address: str | None = None,
) -> Generator[Progress, None, SweepResult]:
    """Plan every point's shards here, run them on ``backend`` and merge. Yields Progress per shard
    (the CLI shows an ETA from it)."""
    if backend not in BACKENDS:
        raise ConfigError(f"unknown backend {backend!r}: use one of {', '.join(BACKENDS)}")
    if workers < 1:
        raise ConfigError(f"workers must be at least 1, got {workers}")
    if backend == "serial" and workers > 1:
        backend = "loky"
    start = time.perf_counter()
    points = config.points()
    planned: list[tuple[int, dict]] = []  # (point index, shard input)
    for p, point in enumerate(points):
        yield Progress(p, len(points), f"planning shards of point {p + 1}/{len(points)}")
        for shard in (yield from function.shards(point)):
            planned.append((p, shard))
    env = {k: os.environ[k] for k in CARRIED_ENV if k in os.environ}
    shards = [s for _, s in planned]
    if backend == "serial":
        stream = _serial(function, shards, env)
    elif backend == "loky":
        stream = _loky(function, shards, env, workers)
    else:
        stream = _ray(function, shards, env, address, workers)
    results: dict[int, list[dict]] = {}
    run_start = time.perf_counter()
    for i, rows in stream:
        results[i] = rows
        yield Progress(len(results), len(shards), "shards", {"elapsed_s": time.perf_counter() - run_start})
    keys = list(config.grid)
    merged: list[dict] = []
    for p, point in enumerate(points):
        ordered = [results[i] for i, (q, _) in enumerate(planned) if q == p]
        merged.extend(merge(point, ordered, keys))
    return SweepResult(merged, keys, len(shards), round(time.perf_counter() - start, 2), backend, workers)


def plot_metrics(result: SweepResult, out_dir: str | Path, metrics: Sequence[str] = ()) -> list[Path]:
    """One PNG per metric. Metrics with steps (curves): value against step, a line per grid point and label
    (e.g. system; mean over seeds when seed is a grid key, with +-1 sd bands). Without steps: value against the
    first non-seed grid key, a line per combination of the other keys and labels."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    wanted = list(metrics) or list(dict.fromkeys(r["metric"] for r in result.rows))
    reserved = {*result.grid_keys, "metric", "step", "value", "count"}
    labels = list(dict.fromkeys(k for r in result.rows for k in r if k not in reserved))  # e.g. system
    group_keys = [k for k in result.grid_keys if k != "seed"]
    paths = []
    for metric in wanted:
        rows = [r for r in result.rows if r["metric"] == metric]
        if not rows:
            continue
        figure = Figure(figsize=(7, 4.5), dpi=110)
        FigureCanvasAgg(figure)
        ax = figure.add_subplot(1, 1, 1)
        curves = any(r["step"] is not None for r in rows)
        x_key = "step" if curves else (group_keys[0] if group_keys else None)
        line_keys = (group_keys if curves else group_keys[1:]) + labels
        lines: dict[tuple, dict[Any, list[float]]] = {}
        for r in rows:
            label = tuple(r.get(k) for k in line_keys)
            x = r[x_key] if x_key else 0
            lines.setdefault(label, {}).setdefault(x, []).append(r["value"])
        for label, by_x in lines.items():
            xs = sorted(by_x, key=lambda v: (isinstance(v, str), v))
            mean = [sum(by_x[x]) / len(by_x[x]) for x in xs]
            sd = [math.sqrt(sum((v - m) ** 2 for v in by_x[x]) / len(by_x[x])) for x, m in zip(xs, mean)]
            name = ", ".join(f"{k}={v}" for k, v in zip(line_keys, label)) or metric
            positions = list(range(len(xs))) if any(isinstance(x, str) for x in xs) else xs
            ax.plot(positions, mean, marker="o", markersize=3, label=name)
            if any(s > 0 for s in sd):
                ax.fill_between(
                    positions, [m - s for m, s in zip(mean, sd)], [m + s for m, s in zip(mean, sd)], alpha=0.15
                )
            if positions is not xs:
                ax.set_xticks(positions, [str(x) for x in xs])
        seeds = len(set(r.get("seed") for r in rows)) if "seed" in result.grid_keys else 1
        ax.set_title(f"{metric}" + (f" (mean +- sd over {seeds} seeds)" if seeds > 1 else ""))
        ax.set_xlabel(x_key or "")
        ax.set_ylabel(metric)
        ax.grid(alpha=0.3)
        if len(lines) > 1 or line_keys:
            ax.legend(fontsize=7)
        figure.tight_layout()
        path = out_dir / f"{metric}.png"
        figure.savefig(path)
        paths.append(path)
    return paths
