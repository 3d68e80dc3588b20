"""The research bench: every benchmark's tables from one run, with what is needed to reproduce them.

A benchmark is a module ``benchmarks/bench_NAME.py`` that registers itself with a module-level
``BENCHMARK = Benchmark(...)``: its name, its quick and full settings, the data sets it needs, and a ``run``
job that takes a ``BenchContext`` and returns a ``BenchOutput`` (tables of rows, PNG figures, a one-line
summary). ``run_bench`` checks each benchmark's data sets (a missing required one skips the benchmark, with
the reason), runs the rest, and ``assistant.evaluation.bench_report`` writes one JSON per table, the
figures and a Markdown report, with the commit, seeds, package versions and machine.

A module with only the older ``main(argv) -> dict`` is run through ``legacy_benchmark``: its JSON becomes
one table of its scalar values (``--quick`` passed through), so that a benchmark written before the bench
still appears in the report until it declares its own tables; a module-level ``KIND = "speed"`` says its kind.

Same seed, same numbers: every table says which of its columns are wall-clock measurements (``timing``);
every other value is a function of the settings and the seed.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import sys
import time
import traceback
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assistant.errors import ConfigError, DataMissingError
from assistant.progress import Progress

KINDS = ("quality", "speed")


@dataclass(frozen=True)
class Table:
    """Rows of one result table. ``timing``: the columns that are wall-clock measurements (they differ
    between runs and machines; everything else must not). ``columns`` orders the report (default: the keys
    of the first row)."""

    name: str
    title: str
    rows: list[dict]
    columns: tuple[str, ...] = ()
    timing: tuple[str, ...] = ()
    note: str = ""

    def column_names(self) -> list[str]:
        if self.columns:
            return list(self.columns)
        names: dict[str, None] = {}
        for row in self.rows:
            names.update(dict.fromkeys(row))
        return list(names)

    def without_timing(self) -> list[dict]:
        """The rows without the timing columns: what must repeat exactly under the same seed."""
        return [{k: v for k, v in row.items() if k not in self.timing} for row in self.rows]


@dataclass(frozen=True)
class Figure:
    """A PNG the benchmark wrote to ``BenchContext.figure_path(name)``."""

    name: str
    caption: str


@dataclass
class BenchOutput:
    """What a benchmark's run returns. ``skipped``: data sets it left out itself, with the reason."""

    tables: list[Table]
    figures: list[Figure] = field(default_factory=list)
    summary: str = ""
    skipped: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class DataSet:
    """A data set a benchmark reads. ``check(data_dir)`` raises DataMissingError when it is absent.
    A missing ``required`` data set skips the whole benchmark; a missing optional one is left out by it."""

    name: str
    check: Callable[[str | None], Any]
    required: bool = True


@dataclass(frozen=True)
class BenchContext:
    """What a benchmark run receives: its settings (quick or full, with overrides), the seed, the shared
    data folder, the data sets found, and where to write figures."""

    name: str
    settings: Mapping[str, Any]
    quick: bool
    seed: int
    data_dir: str | None
    present: tuple[str, ...]
    figure_dir: Path

    def __getitem__(self, key: str) -> Any:
        return self.settings[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.settings.get(key, default)

    def figure_path(self, name: str) -> Path:
        self.figure_dir.mkdir(parents=True, exist_ok=True)
        return self.figure_dir / f"{self.name}.{name}.png"


BenchJob = Generator[Progress, None, BenchOutput]


@dataclass(frozen=True)
class Benchmark:
    """A registered benchmark. ``run(context)`` is a generator job returning a ``BenchOutput``."""

    name: str
    title: str
    run: Callable[[BenchContext], BenchJob]
    quick: Mapping[str, Any] = field(default_factory=dict)
    full: Mapping[str, Any] = field(default_factory=dict)
    datasets: tuple[DataSet, ...] = ()
    kind: str = "quality"

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ConfigError(f"benchmark {self.name}: kind must be one of {', '.join(KINDS)}, got {self.kind!r}")

    def settings(self, quick: bool, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The full settings, updated with the quick ones when ``quick``, then with ``overrides``."""
        out = {**self.full, **(self.quick if quick else {})}
        for key, value in (overrides or {}).items():
            if key not in out:
                known = ", ".join(sorted(out)) or "none"
                raise ConfigError(f"benchmark {self.name} has no setting {key!r} (its settings: {known})")
            out[key] = value
        return out

    def data_status(self, data_dir: str | None) -> dict[str, str | None]:
        """Each data set's name -> None when present, else why it is missing."""
        status: dict[str, str | None] = {}
        for ds in self.datasets:
            try:
                ds.check(data_dir)
                status[ds.name] = None
            except DataMissingError as exc:
                status[ds.name] = str(exc)
        return status


# ---- discovery ---------------------------------------------------------------------------------------------
def _flatten(data: Any, prefix: str = "") -> dict[str, Any]:
    """Scalar leaves of nested dicts and lists, keyed by their dotted path."""
    if isinstance(data, Mapping):
        out: dict[str, Any] = {}
        for k, v in data.items():
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    if isinstance(data, list | tuple):
        out = {}
        for i, v in enumerate(data):
            out.update(_flatten(v, f"{prefix}[{i}]"))
        return out
    return {prefix: data} if isinstance(data, str | int | float | bool) or data is None else {}


def legacy_benchmark(name: str, main: Callable[[list[str]], dict], doc: str = "", kind: str = "quality") -> Benchmark:
    """Wrap a ``main(argv) -> dict`` benchmark: its printed output is kept out of the terminal (its last line
    is the summary) and its JSON becomes one table (key, value), with a note when it holds timings."""

    def run(context: BenchContext) -> BenchJob:
        yield Progress(0, 1, f"{name} (main)")
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            result = main(["--quick"] if context.quick else [])
        rows = [{"key": k, "value": v} for k, v in _flatten(result).items()]
        timing = any(t in r["key"] for r in rows for t in ("seconds", "_ms", "_s"))
        summary = next((line for line in reversed(printed.getvalue().splitlines()) if line.strip()), "")
        note = "values whose key names seconds or ms are timings" if timing else ""
        return BenchOutput(
            [Table("result", f"{name}: its JSON, flattened", rows, ("key", "value"), (), note)], summary=summary
        )

    title = (doc or name).strip().splitlines()[0]
    return Benchmark(name=name, title=title, run=run, kind=kind)


def discover(directory: str | Path) -> dict[str, Benchmark]:
    """The benchmarks of ``directory`` (a ``benchmarks`` package: bench_*.py modules), by name."""
    directory = Path(directory).resolve()
    if not (directory / "__init__.py").is_file():
        raise ConfigError(
            f"{directory} is not a benchmarks package (no __init__.py): run from a Clarify source checkout "
            "or pass the benchmarks folder explicitly"
        )
    root = str(directory.parent)
    if root not in sys.path:
        sys.path.insert(0, root)
    found: dict[str, Benchmark] = {}
    for path in sorted(directory.glob("bench_*.py")):
        module = importlib.import_module(f"{directory.name}.{path.stem}")
        declared = getattr(module, "BENCHMARK", None)
        if isinstance(declared, Benchmark):
            found[declared.name] = declared
        elif callable(getattr(module, "main", None)):
            name = path.stem.removeprefix("bench_")
            found[name] = legacy_benchmark(name, module.main, module.__doc__ or "", getattr(module, "KIND", "quality"))
    return found


def select(found: Mapping[str, Benchmark], only: Sequence[str] | None) -> list[Benchmark]:
    """The benchmarks named in ``only`` (all when empty), in the order given; unknown names are an error."""
    if not only:
        return list(found.values())
    unknown = [n for n in only if n not in found]
    if unknown:
        raise ConfigError(f"unknown benchmark(s) {', '.join(unknown)}: choose from {', '.join(found)}")
    return [found[n] for n in dict.fromkeys(only)]


# ---- running -----------------------------------------------------------------------------------------------
@dataclass
class BenchResult:
    """One benchmark's outcome: status is "ok", "skipped" (a required data set is missing) or "failed"."""

    name: str
    title: str
    kind: str
    status: str
    settings: dict[str, Any]
    seconds: float
    output: BenchOutput | None = None
    reason: str = ""
    datasets: dict[str, str | None] = field(default_factory=dict)
    cpu_seconds: float = 0.0  # this process's and its children's CPU time: robust to other load on the machine

    @property
    def skipped_datasets(self) -> dict[str, str]:
        out = dict(self.output.skipped) if self.output else {}
        out.update({k: v for k, v in self.datasets.items() if v})  # the runner's reason names the missing file
        return out


def run_one(
    bench: Benchmark,
    quick: bool,
    seed: int,
    data_dir: str | None,
    figure_dir: Path,
    overrides: Mapping[str, Any] | None = None,
) -> Generator[Progress, None, BenchResult]:
    """Run one benchmark (or skip it when a required data set is missing); failures are recorded, not raised."""
    settings = bench.settings(quick, overrides)
    status = bench.data_status(data_dir)
    missing = [name for name, why in status.items() if why and _required(bench, name)]
    result = BenchResult(bench.name, bench.title, bench.kind, "skipped", settings, 0.0, datasets=status)
    if missing:
        result.reason = "; ".join(f"{name}: {status[name]}" for name in missing)
        return result
    present = tuple(name for name, why in status.items() if why is None)
    context = BenchContext(bench.name, settings, quick, seed, data_dir, present, figure_dir)
    start, cpu = time.perf_counter(), _cpu_seconds()
    try:
        result.output = yield from bench.run(context)
        result.status = "ok"
    except DataMissingError as exc:
        result.reason = str(exc)
    except Exception as exc:  # one broken benchmark must not lose the others' tables
        result.status = "failed"
        result.reason = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=8)}"
    result.seconds = round(time.perf_counter() - start, 2)
    result.cpu_seconds = round(_cpu_seconds() - cpu, 2)
    return result


def _cpu_seconds() -> float:
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _required(bench: Benchmark, name: str) -> bool:
    return next(ds.required for ds in bench.datasets if ds.name == name)


def run_bench(
    benchmarks: Sequence[Benchmark],
    out: str | Path,
    quick: bool = False,
    seed: int = 0,
    data_dir: str | None = None,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
) -> Generator[Progress, None, list[BenchResult]]:
    """Run ``benchmarks`` one after another and write the report into ``out`` (see ``bench_report``);
    ``overrides`` maps a benchmark's name to settings that replace its quick/full ones."""
    from assistant.evaluation.bench_report import environment, write_report

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    env = environment()
    results: list[BenchResult] = []
    started = time.perf_counter()
    for i, bench in enumerate(benchmarks):
        yield Progress(i, len(benchmarks), f"benchmark {bench.name}")
        inner = run_one(bench, quick, seed, data_dir, out / "figures", (overrides or {}).get(bench.name))
        result = yield from _prefixed(inner, bench.name)
        results.append(result)
        write_report(out, results, env, quick, seed, time.perf_counter() - started)  # kept up to date
    yield Progress(len(benchmarks), len(benchmarks), "report written")
    return results


def _prefixed(job: Generator[Progress, None, BenchResult], name: str) -> Generator[Progress, None, BenchResult]:
    """Pass a benchmark's progress on with its name in front of the message."""
    try:
        record = next(job)
        while True:
            yield Progress(record.step, record.total, f"{name}: {record.message}", record.metrics)
            record = next(job)
    except StopIteration as stop:
        return stop.value
