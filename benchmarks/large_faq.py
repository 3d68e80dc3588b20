"""A large desk FAQ end to end (issues 33, 42): build it from ../shared/data (``benchmarks.build_large_faq``), then
`clarify domain create` and `clarify prepare` it, each as a new process, with their wall seconds, CPU seconds
(user + system) and peak memory (max RSS of the process), and the load average beside them; then `clarify ask`
to its first question and the seconds each later answer takes (``--json-lines``, answering the first option),
and the CPU seconds of a `clarify ask` that quits at its first question.

Sizes: ``--limit 1000`` (981 entries of StackFAQ and the Stack Exchange beer and coffee sets) and
``--sets stackfaq,beer,coffee,semeval --limit 5000`` (every entry the shared data gives, about 1,530).
``--speed-copies 5``: a turn's CPU seconds at about 5,000 entries, with the desk's entries **repeated under new
keys** for the speed figures only (``benchmarks.large_faq_checks.repeated_turns``). ``--quality``: the bundled
faq's test and hidden-style queries inside the desk against faq alone (``faq_inside_desk``; prepares faq in the
home first). ``--reuse``: measure a desk already created and prepared in the home.

Targets for 1,000 entries on an idle two-core machine: create + prepare <= 10 minutes, peak memory <= 2 GB,
first question <= 1.5 s of CPU, each answer <= 0.2 s; at 5,000 (the speed test) first question <= 2 s of CPU,
each answer <= 0.3 s. Prints JSON and a one-line summary; the FAQ and its home are outputs, never committed.

    python -m benchmarks.large_faq --home /tmp/large-home [--limit 1000] [--sets stackfaq,beer,coffee]
        [--reuse] [--speed-copies 5] [--quality]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import build_large_faq
from benchmarks.cli_start import conversation_process

ROOT = Path(__file__).resolve().parents[1]
TARGETS = {"create_prepare_s": 600.0, "peak_rss_gb": 2.0, "first_question_cpu_s": 1.5, "answer_s": 0.2}
QUERIES = ("my beer went flat", "coffee tastes bitter", "how do I keep my files in sync")


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def timed(args: list[str], home: Path) -> dict:
    """Run ``clarify ARGS`` to its end: wall and CPU seconds, peak RSS (GB), the load before and after."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load, start = _load(), time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "assistant.cli.main", *args],
        cwd=ROOT,
        env={**os.environ, "CLARIFY_HOME": str(home)},
        check=True,
        capture_output=True,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # ru_maxrss of the children is the largest of any child so far (kB on Linux)
    return {
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "max_rss_gb": round(after.ru_maxrss / 1024**2, 2),
        "load_before": load,
        "load_after": _load(),
    }


def ask_times(domain: str, query: str, home: Path, answers: int = 3) -> dict:
    """Seconds to the first question of `clarify ask DOMAIN QUERY --json-lines` and after each of ``answers``
    answers (the first option each time) to what comes next."""
    start = time.perf_counter()
    process = conversation_process(["ask", domain, query, "--json-lines"], home)
    assert process.stdin is not None and process.stdout is not None
    first: float | None = None
    sent: float | None = None
    later: list[float] = []
    for line in process.stdout:
        event = json.loads(line)
        now = time.perf_counter()
        if event.get("type") not in ("question", "proposal", "comparison"):
            if event.get("type") == "end":
                break
            continue
        if first is None:
            first = now - start
        elif sent is not None:
            later.append(now - sent)
        reply = "1" if event["type"] == "question" and len(later) < answers else "q"
        sent = time.perf_counter()
        process.stdin.write(reply + "\n")
        process.stdin.flush()
    process.stdin.close()
    process.wait(timeout=120)
    return {
        "query": query,
        "first_question_s": round(first or float("nan"), 2),
        "answers_s": [round(s, 3) for s in later],
    }


def first_question_cpu(domain: str, query: str, home: Path) -> float:
    """CPU seconds (user + system) of a `clarify ask DOMAIN QUERY --json-lines` told to quit at its first
    question: what a person's first question costs, process start and model loading included."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    process = conversation_process(["ask", domain, query, "--json-lines"], home)
    assert process.stdin is not None and process.stdout is not None
    for line in process.stdout:
        if json.loads(line).get("type") in ("question", "proposal", "comparison", "end"):
            break
    process.stdin.write("q\n")
    process.stdin.close()
    process.wait(timeout=120)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 2)


def in_process_checks(args: argparse.Namespace) -> dict:
    """The speed test beyond the data and the quality check (``benchmarks.large_faq_checks``), in this process
    on the home."""
    os.environ["CLARIFY_HOME"] = str(args.home)
    from assistant.app.lifecycle.registry import ModelRegistry
    from benchmarks import large_faq_checks

    out: dict = {}
    if args.unprepared:  # the desk's domain only: a stand-in clarifier (large_faq_checks.stand_in_clarifier)
        from assistant.app.lifecycle.registry import load_domain

        base = large_faq_checks.stand_in_clarifier(load_domain(args.name))
        out["repeated_turns"] = {"clarifier": "stand-in (BM25, lambda 1, 90% stop)"}
        out["repeated_turns"].update(large_faq_checks.repeated_turns(base, QUERIES, args.speed_copies or 1))
        return out
    desk = ModelRegistry(args.name)
    if args.speed_copies:
        turns = large_faq_checks.repeated_turns(desk.clarifier(), QUERIES, args.speed_copies)
        out["repeated_turns"] = {"clarifier": "the prepared desk's", **turns}
    if args.quality:
        timed(["prepare", "faq"], args.home)
        out["faq_inside_desk"] = large_faq_checks.faq_inside_desk(ModelRegistry("faq"), desk)
    return out


def build(args: argparse.Namespace) -> dict:
    """Write the FAQ, then `clarify domain create` and `clarify prepare` it (each timed)."""
    with tempfile.TemporaryDirectory() as folder:
        faq = Path(folder) / "faq.csv"
        build_large_faq.main(["--out", str(faq), "--limit", str(args.limit), "--sets", args.sets])
        for suffix in ("", "-wal", "-shm"):
            (args.home / "domains" / f"{args.name}.db{suffix}").unlink(missing_ok=True)
        create = timed(["domain", "create", args.name, "--from", str(faq)], args.home)
    prepare = timed(["prepare", args.name], args.home)
    return {
        "create": create,
        "prepare": prepare,
        "create_prepare_s": round(create["wall_s"] + prepare["wall_s"], 1),
        "create_prepare_cpu_s": round(create["cpu_s"] + prepare["cpu_s"], 1),
        "peak_rss_gb": max(create["max_rss_gb"], prepare["max_rss_gb"]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="CLARIFY_HOME to create the domain in.")
    parser.add_argument("--name", default="desk1000", help="The domain's name (replaced if it exists).")
    parser.add_argument("--limit", type=int, default=1000)
    parser.add_argument("--sets", default="stackfaq,beer,coffee")
    parser.add_argument("--reuse", action="store_true", help="Measure the desk already prepared in the home.")
    parser.add_argument("--speed-copies", type=int, default=0, help="The speed test at this many copies (0: none).")
    parser.add_argument("--quality", action="store_true", help="The bundled faq's queries inside the desk.")
    parser.add_argument(
        "--unprepared", action="store_true", help="Only the speed test, on a created desk without its models."
    )
    args = parser.parse_args(argv)
    if args.unprepared:
        print(json.dumps(in_process_checks(args), indent=2))
        return 0
    result: dict = {"entries_limit": args.limit, "sets": args.sets, "load_before": _load()}
    if not args.reuse:
        result.update(build(args))
    asks = [ask_times(args.name, q, args.home) for q in QUERIES]
    answers = [s for a in asks for s in a["answers_s"]]
    cpu = [first_question_cpu(args.name, q, args.home) for q in QUERIES]
    result.update(
        asks=asks,
        first_question_max_s=max(a["first_question_s"] for a in asks),
        first_question_cpu_s=cpu,
        answer_max_s=max(answers) if answers else None,
        targets=TARGETS,
    )
    result.update(in_process_checks(args) if args.speed_copies or args.quality else {})
    result["load_after"] = _load()
    print(json.dumps(result, indent=2))
    built = (
        f"create + prepare {result['create_prepare_s']:.0f} s wall ({result['create_prepare_cpu_s']:.0f} s CPU), "
        f"peak {result['peak_rss_gb']} GB; "
        if "create" in result
        else ""
    )
    print(
        f"large FAQ ({args.limit} at most, load {result['load_before']}-{result['load_after']}): {built}"
        f"first question <= {result['first_question_max_s']} s wall, <= {max(cpu)} s CPU; "
        f"answers <= {result['answer_max_s']} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
