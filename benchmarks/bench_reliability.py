"""The reliability probe at full size (issues 12 and 27): damaged import files, kill -9 of real `clarify ask`
processes, a second writer, damaged checkpoints and knowledge bases, bad arguments and hostile strings;
kills during model swaps, `learn update` and first builds, two first launches at once, escape sequences on
the way to a terminal, output files that must not be replaced, a closed pipe and a 200,000-column header.

    python -m benchmarks.bench_reliability [--quick] [--files 1500] [--kills 100] [--rounds 10]
        [--set-kills 30] [--update-kills 3] [--build-kills 10] [--launch-pairs 2]
        [--trained-home DIR] [--domain faq]            (also `make soak`)
    python -m benchmarks.bench_reliability --hostile-only [--pairs 2] [--trained-home DIR]   (issue 41 alone)

The kill, session-writer and damage parts need a domain with trained models: ``--trained-home`` (default
$CLARIFY_HOME) must hold DOMAIN's encoder and policy (`clarify prepare DOMAIN`, or `clarify train policy
DOMAIN --iterations 3` on top of a trained encoder: the probe tests reliability, not accuracy); without them
those parts are skipped and say so. Everything is written into a scratch folder (--work); the trained home
is only copied. Targets: 0 crashes, hangs and partial imports; 0 corrupted, unresumable and answers lost;
0 failures with a second writer; 0 tracebacks; 0 mixed model sets, wrong encoders after a killed update,
empty built domains, unhealed builds and failed first launches; 0 raw escapes, replaced outputs and closed-
pipe errors; the wide header refused.
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
           "tracebacks", "wrong_exit_or_message", "mixed_sets", "wrong_encoders", "empty_built_domains",
           "unhealed_builds", "launch_failures", "raw_escapes", "outputs_replaced", "closed_pipe_errors",
           "added_words_stored", "native_crashes", "hostile_tracebacks", "writes_outside", "silent_losses",
           "hostile_wrong", "hostile_hangs")  # fmt: skip


# issue 27's parts at full size: each first build or launch takes 10-30 s, each learn update about 25 s
SIZES = {"set_kills": 30, "update_kills": 3, "build_kills": 10, "launch_pairs": 2}


def _trained(home: Path, domain: str) -> bool:
    return all(path.exists() for path in trained_files(home, domain))


def run_probe(work: Path, files: int, kills: int, rounds: int, trained_home: Path | None, domain: str,
              seed: int = 0, log=print, sizes: dict | None = None) -> dict:  # fmt: skip
    """Every part of the probe in scratch folders under ``work``; returns the figures. ``sizes``: how many
    model-set kills, learn-update kills, first-build kills and pairs of first launches (issue 27)."""
    from benchmarks.reliability import arguments, damage, hostile, outputs, swaps, writers
    from benchmarks.reliability import files as files_part
    from benchmarks.reliability import kills as kills_part

    sizes = {**SIZES, **(sizes or {})}

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
    log("outputs: escape sequences, output files, a closed pipe, a 200,000-column header")
    shown = outputs.Figures()
    outputs.probe_output_targets(work / "outputs", "bank", shown)
    outputs.probe_closed_pipe(work / "crowd-home", "bank", shown)
    outputs.probe_wide_header(work, "bank", figures=shown)
    log(f"swaps: {sizes['set_kills']} kills of model-set changes, {sizes['build_kills']} of first builds, "
        f"{sizes['launch_pairs']} pairs of first launches")  # fmt: skip
    swapped = swaps.probe_model_sets(work / "swaps", sizes["set_kills"], seed)
    swaps.probe_first_builds(work / "swaps", sizes["build_kills"], seed, figures=swapped)
    swaps.probe_concurrent_launches(work / "swaps", sizes["launch_pairs"], figures=swapped)
    log("arguments: bad command-line arguments")
    trained = trained_home is not None and _trained(trained_home, domain)
    if trained_home is not None and trained:
        arg_home = copy_home(trained_home, work / "arguments-home", domain)
        shutil.copyfile(work / "crowd-home" / "domains" / "bank.db", arg_home / "domains" / "bank.db")
        os.environ["CLARIFY_HOME"] = str(arg_home)
    outcomes = arguments.run_cases(
        arguments.bad_argument_cases(work / "arguments", "bank", domain if trained else None)
    )
    outputs.probe_terminal(work / "terminal", "bank", domain if trained else None, shown)
    if trained_home is not None and trained:
        log("damage: damaged checkpoints, knowledge bases and session rows")
        outcomes.outcomes += damage.probe_damage(trained_home, domain, work / "damage")
        outcomes.outcomes += damage.probe_damaged_sessions(trained_home, domain, work / "damage")
        log(f"swaps: {sizes['update_kills']} kills of learn update just after it wrote its encoder")
        swaps.probe_learn_update(trained_home, domain, work / "swaps", sizes["update_kills"], swapped)
        log("writers: sessions while another program holds the write lock; two sessions at once")
        os.environ["CLARIFY_HOME"] = str(copy_home(trained_home, work / "sessions-home", domain))
        sessions = writers.probe_sessions(domain, rounds, seed)
        log(f"kills: {kills} kill -9 of clarify ask --json-lines")
        result["kills"] = kills_part.probe_kills(
            copy_home(trained_home, work / "kills-home", domain), domain, kills, seed
        ).summary()
    else:
        reason = f"no trained {domain!r} in {trained_home} (encoder and {served_policy(domain)}): run `clarify prepare {domain}` there"
        result["skipped"] = {"kills": reason, "damage": reason, "session_writers": reason, "learn_update": reason}
        sessions = writers.Figures()
        result["kills"] = kills_part.Figures().summary()
    log("hostile: two creates at once, planted links, refused inputs, crafted checkpoints (issue 41)")
    result["hostile"] = hostile.probe_hostile(work / "hostile", trained_home if trained else None, domain).summary()
    result["writers"] = {
        "concurrent_writers": imports.concurrent_writers + sessions.concurrent_writers,
        "failures": len(imports.failures) + len(sessions.failures),
        "failure_messages": (imports.failures + sessions.failures)[:10],
    }
    result["arguments"] = outcomes.summary()
    result["outputs"] = shown.summary()
    result["swaps"] = swapped.summary()
    result["seconds"] = round(time.perf_counter() - start, 1)
    return result


def headline(result: dict) -> dict:
    f, k, w, a = result["files"], result["kills"], result["writers"], result["arguments"]
    o, s = result["outputs"], result["swaps"]
    return {
        "files_tried": f["files_tried"], "crashes": f["crashes"], "hangs": f["hangs"] + a["hangs"],
        "partial_imports": f["partial_imports"],
        "kills": k["kills"], "corrupted": k["corrupted"], "unresumable": k["unresumable"],
        "answers_lost": k["answers_lost"], "acknowledged_answers": k["acknowledged_answers"],
        "concurrent_writers": w["concurrent_writers"], "writer_failures": w["failures"],
        "bad_arguments": a["bad_arguments"], "tracebacks": a["tracebacks"],
        "wrong_exit_or_message": a["wrong_exit_or_message"],
        "model_set_kills": s["model_set_kills"], "mixed_sets": s["mixed_sets"],
        "learn_update_kills": s["learn_update_kills"], "wrong_encoders": s["wrong_encoders"],
        "first_build_kills": s["first_build_kills"], "empty_built_domains": s["empty_built_domains"],
        "unhealed_builds": s["unhealed_builds"], "concurrent_first_launches": s["concurrent_first_launches"],
        "launch_failures": s["launch_failures"],
        "terminal_checks": o["terminal_checks"], "raw_escapes": o["raw_escapes"],
        "added_words_stored": o["added_words_stored"],
        "output_targets": o["output_targets"], "outputs_replaced": o["outputs_replaced"],
        "closed_pipe_errors": o["closed_pipe_errors"], "wide_header_seconds": o["wide_header_seconds"],
        **hostile_headline(result["hostile"]),
    }  # fmt: skip


def hostile_headline(hostile: dict) -> dict:
    keys = ("hostile_cases", "native_crashes", "hostile_tracebacks", "writes_outside", "silent_losses", "hostile_hangs",
            "hostile_wrong")  # fmt: skip
    return {k: hostile[k] for k in keys}


def hostile_line(h: dict) -> str:
    return (
        f"hostile cases {h['hostile_cases']} / native crashes {h['native_crashes']} / tracebacks "
        f"{h['hostile_tracebacks']} / writes outside the home {h['writes_outside']} / silent losses "
        f"{h['silent_losses']} / hangs {h['hostile_hangs']} / wrong exit or message {h['hostile_wrong']}"
    )


def summary_line(h: dict) -> str:
    return (
        f"files tried {h['files_tried']} / crashes {h['crashes']} / partial imports {h['partial_imports']}; "
        f"kills {h['kills']} / corrupted {h['corrupted']} / unresumable {h['unresumable']} / answers lost "
        f"{h['answers_lost']} of {h['acknowledged_answers']}; concurrent writers {h['concurrent_writers']} / "
        f"failures {h['writer_failures']}; bad arguments {h['bad_arguments']} / tracebacks {h['tracebacks']} "
        f"(hangs {h['hangs']}, wrong exit or message {h['wrong_exit_or_message']}); model-set kills "
        f"{h['model_set_kills']} / mixed {h['mixed_sets']}; learn update kills {h['learn_update_kills']} / wrong "
        f"encoder {h['wrong_encoders']}; first-build kills {h['first_build_kills']} / empty built "
        f"{h['empty_built_domains']} / unhealed {h['unhealed_builds']}; first launches "
        f"{h['concurrent_first_launches']} at once / failures {h['launch_failures']}; terminal checks "
        f"{h['terminal_checks']} / raw escapes {h['raw_escapes']}; output targets {h['output_targets']} / replaced "
        f"{h['outputs_replaced']}; closed pipe errors {h['closed_pipe_errors']}; 200,000-column header refused in "
        f"{h['wide_header_seconds']} s; {hostile_line(h)}"
    )


@click.command(name="python -m benchmarks.bench_reliability", help=__doc__, context_settings=HELP)
@click.option("--quick", is_flag=True, help="a smoke run: 60 files, 5 kills, 1 round")
@click.option("--files", type=int, default=1500)
@click.option("--kills", type=int, default=100)
@click.option("--rounds", type=int, default=10)
@click.option("--set-kills", type=int, default=SIZES["set_kills"], help="kills of model-set changes")
@click.option("--update-kills", type=int, default=SIZES["update_kills"], help="kills of learn update")
@click.option("--build-kills", type=int, default=SIZES["build_kills"], help="kills of first builds")
@click.option("--launch-pairs", type=int, default=SIZES["launch_pairs"], help="pairs of first launches")
@click.option("--hostile-only", is_flag=True, help="only issue 41's part: two creates, planted links, hostile files")
@click.option("--pairs", type=int, default=2, help="pairs of concurrent creates (--hostile-only)")
@click.option("--ask-timeout", type=float, default=900.0, help="seconds an ask may take (--hostile-only)")
@click.option("--seed", type=int, default=0)
@click.option("--domain", default="faq")
@click.option("--trained-home", default=lambda: os.environ.get("CLARIFY_HOME"), help="default: $CLARIFY_HOME")
@click.option("--work", default=None, help="scratch folder (default: a new temporary one)")
def command(
    quick: bool,
    files: int,
    kills: int,
    rounds: int,
    set_kills: int,
    update_kills: int,
    build_kills: int,
    launch_pairs: int,
    hostile_only: bool,
    pairs: int,
    ask_timeout: float,
    seed: int,
    domain: str,
    trained_home: str | None,
    work: str | None,
) -> dict:
    if quick:
        files, kills, rounds = 60, 5, 1
        set_kills, update_kills, build_kills, launch_pairs = 6, 1, 2, 1
    trained = Path(trained_home).resolve() if trained_home else None
    scratch = Path(work) if work else Path(tempfile.mkdtemp(prefix="clarify-reliability-"))
    if hostile_only:
        return _hostile_only(scratch, trained, domain, pairs, ask_timeout)
    old_home = os.environ.get("CLARIFY_HOME")
    try:
        sizes = {"set_kills": set_kills, "update_kills": update_kills, "build_kills": build_kills,
                 "launch_pairs": launch_pairs}  # fmt: skip
        result = run_probe(scratch, files, kills, rounds, trained, domain, seed,
                           log=lambda m: print(m, file=sys.stderr, flush=True), sizes=sizes)  # fmt: skip
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


def _hostile_only(work: Path, trained: Path | None, domain: str, pairs: int, timeout: float) -> dict:
    from benchmarks.reliability import hostile

    usable = trained if trained is not None and _trained(trained, domain) else None
    start = time.perf_counter()
    result = hostile.probe_hostile(work / "hostile", usable, domain, pairs, timeout).summary()
    h = hostile_headline(result)
    result = {**result, "headline": h, "seconds": round(time.perf_counter() - start, 1), "work": str(work),
              "skipped": {} if usable else {"checkpoints": f"no trained {domain!r} in {trained}"}}  # fmt: skip
    result["targets_met"] = all(h[k] == 0 for k in h if k in TARGETS) and not result["skipped"]
    print(json.dumps(result, indent=2))
    print(hostile_line(h))
    return result


def main(argv: list[str] | None = None) -> dict:
    return run_command(command, argv)


if __name__ == "__main__":
    main()
    sys.exit(0)
