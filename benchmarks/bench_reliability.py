"""The reliability probe at full size (issue 12): damaged import files, kill -9 of real `clarify ask`
processes, a second writer, damaged checkpoints and knowledge bases, bad arguments and hostile strings.

    python -m benchmarks.bench_reliability [--quick] [--files 1500] [--kills 100] [--rounds 10]
        [--trained-home DIR] [--domain faq]            (also `make soak`)

The kill, session-writer and damage parts need a domain with trained models: ``--trained-home`` (default
$CLARIFY_HOME) must hold DOMAIN's encoder and policy (`clarify prepare DOMAIN`, or `clarify train policy
DOMAIN --iterations 3` on top of a trained encoder: the probe tests reliability, not accuracy); without them
those parts are skipped and say so. Everything is written into a scratch folder (--work); the trained home
is only copied. Targets: 0 crashes, hangs and partial imports; 0 corrupted, unresumable and answers lost;
0 failures with a second writer; 0 tracebacks.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import click

from benchmarks.common import HELP, run_command
from benchmarks.reliability.environment import build_crowd_domain, copy_home, served_policy, trained_files

TARGETS = ("crashes", "hangs", "partial_imports", "corrupted", "unresumable", "answers_lost", "writer_failures",
           "tracebacks", "wrong_exit_or_message")  # fmt: skip


def _trained(home: Path, domain: str) -> bool:
    return all(path.exists() for path in trained_files(home, domain))


def run_probe(work: Path, files: int, kills: int, rounds: int, trained_home: Path | None, domain: str,
              seed: int = 0, log=print) -> dict:  # fmt: skip
    """Every part of the probe in scratch folders under ``work``; returns the figures."""
    from benchmarks.reliability import arguments, damage, writers
    from benchmarks.reliability import files as files_part
    from benchmarks.reliability import kills as kills_part

    work.mkdir(parents=True, exist_ok=True)
    os.environ["CLARIFY_HOME"] = str(work / "crowd-home")
    build_crowd_domain("bank")
    result: dict = {"skipped": {}}
    start = time.perf_counter()
    log(f"files: {files} damaged import files")
    result["files"] = files_part.probe_files(work / "files", "bank", files, seed).summary()
    log("writers: imports while another program holds the write lock")
    good = [work / f"good-{i}.csv" for i in range(max(rounds, 1))]
    for i, path in enumerate(good):
        path.write_text(f"label,tag,answer,worker\ncard_arrival,probe tag {i},yes,w{i}\n", encoding="utf-8")
    imports = writers.probe_imports("bank", good, seed)
    log("arguments: bad command-line arguments")
    trained = trained_home is not None and _trained(trained_home, domain)
    if trained:
        arg_home = copy_home(trained_home, work / "arguments-home", domain)
        shutil.copyfile(work / "crowd-home" / "domains" / "bank.db", arg_home / "domains" / "bank.db")
        os.environ["CLARIFY_HOME"] = str(arg_home)
    outcomes = arguments.run_cases(
        arguments.bad_argument_cases(work / "arguments", "bank", domain if trained else None)
    )
    if trained:
        log("damage: damaged checkpoints and knowledge bases")
        outcomes.outcomes += damage.probe_damage(trained_home, domain, work / "damage")
        log("writers: sessions while another program holds the write lock; two sessions at once")
        os.environ["CLARIFY_HOME"] = str(copy_home(trained_home, work / "sessions-home", domain))
        sessions = writers.probe_sessions(domain, rounds, seed)
        log(f"kills: {kills} kill -9 of clarify ask --json-lines")
        result["kills"] = kills_part.probe_kills(
            copy_home(trained_home, work / "kills-home", domain), domain, kills, seed
        ).summary()
    else:
        reason = f"no trained {domain!r} in {trained_home} (encoder and {served_policy(domain)}): run `clarify prepare {domain}` there"
        result["skipped"] = {"kills": reason, "damage": reason, "session_writers": reason}
        sessions = writers.Figures()
        result["kills"] = kills_part.Figures().summary()
    result["writers"] = {
        "concurrent_writers": imports.concurrent_writers + sessions.concurrent_writers,
        "failures": len(imports.failures) + len(sessions.failures),
        "failure_messages": (imports.failures + sessions.failures)[:10],
    }
    result["arguments"] = outcomes.summary()
    result["seconds"] = round(time.perf_counter() - start, 1)
    return result


def headline(result: dict) -> dict:
    f, k, w, a = result["files"], result["kills"], result["writers"], result["arguments"]
    return {
        "files_tried": f["files_tried"], "crashes": f["crashes"], "hangs": f["hangs"] + a["hangs"],
        "partial_imports": f["partial_imports"],
        "kills": k["kills"], "corrupted": k["corrupted"], "unresumable": k["unresumable"],
        "answers_lost": k["answers_lost"], "acknowledged_answers": k["acknowledged_answers"],
        "concurrent_writers": w["concurrent_writers"], "writer_failures": w["failures"],
        "bad_arguments": a["bad_arguments"], "tracebacks": a["tracebacks"],
        "wrong_exit_or_message": a["wrong_exit_or_message"],
    }  # fmt: skip


def summary_line(h: dict) -> str:
    return (
        f"files tried {h['files_tried']} / crashes {h['crashes']} / partial imports {h['partial_imports']}; "
        f"kills {h['kills']} / corrupted {h['corrupted']} / unresumable {h['unresumable']} / answers lost "
        f"{h['answers_lost']} of {h['acknowledged_answers']}; concurrent writers {h['concurrent_writers']} / "
        f"failures {h['writer_failures']}; bad arguments {h['bad_arguments']} / tracebacks {h['tracebacks']} "
        f"(hangs {h['hangs']}, wrong exit or message {h['wrong_exit_or_message']})"
    )


@click.command(name="python -m benchmarks.bench_reliability", help=__doc__, context_settings=HELP)
@click.option("--quick", is_flag=True, help="a smoke run: 60 files, 5 kills, 1 round")
@click.option("--files", type=int, default=1500)
@click.option("--kills", type=int, default=100)
@click.option("--rounds", type=int, default=10)
@click.option("--seed", type=int, default=0)
@click.option("--domain", default="faq")
@click.option("--trained-home", default=lambda: os.environ.get("CLARIFY_HOME"), help="default: $CLARIFY_HOME")
@click.option("--work", default=None, help="scratch folder (default: a new temporary one)")
def command(
    quick: bool, files: int, kills: int, rounds: int, seed: int, domain: str, trained_home: str | None, work: str | None
) -> dict:
    if quick:
        files, kills, rounds = 60, 5, 1
    trained = Path(trained_home).resolve() if trained_home else None
    scratch = Path(work) if work else Path(tempfile.mkdtemp(prefix="clarify-reliability-"))
    old_home = os.environ.get("CLARIFY_HOME")
    try:
        result = run_probe(scratch, files, kills, rounds, trained, domain, seed,
                           log=lambda m: print(m, file=sys.stderr, flush=True))  # fmt: skip
    finally:
        if old_home is not None:
            os.environ["CLARIFY_HOME"] = old_home
    h = headline(result)
    result = {
        **h,
        "headline": h,
        **result,
        "work": str(scratch),
    }  # the headline also flat: the bench report shows scalars
    result["targets_met"] = all(h[k] == 0 for k in h if k in TARGETS) and not result["skipped"]
    print(json.dumps(result, indent=2))
    print(summary_line(h))
    return result


def main(argv: list[str] | None = None) -> dict:
    return run_command(command, argv)


if __name__ == "__main__":
    main()
    sys.exit(0)
