"""Damaged checkpoints, sidecars and knowledge bases given to real commands: each copy of a trained data
folder gets one kind of damage, then `clarify ask`, `domain stats`, `sessions` and `evaluate` run on it.
They must answer (a damaged cache such as prior.json is rebuilt) or end with one error line and exit 2."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

from benchmarks.reliability.arguments import Case, Outcome, run_case
from benchmarks.reliability.environment import copy_home, served_policy


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: max(path.stat().st_size // 3, 1)])


def _pages(path: Path) -> None:
    data = bytearray(path.read_bytes())
    for start in range(4096, len(data), 8192):  # every other page after the first
        data[start : start + 64] = os.urandom(64)
    path.write_bytes(bytes(data))


def damages(domain: str) -> dict[str, Callable[[Path], None]]:
    models = Path("models") / domain
    db = Path("domains") / f"{domain}.db"
    policy = served_policy(domain)  # the one `clarify ask` loads: damaging another tests nothing

    def write(rel: Path, data: bytes) -> Callable[[Path], None]:
        return lambda home: (home / rel).write_bytes(data)

    return {
        "encoder.pt truncated": lambda home: _truncate(home / models / "encoder.pt"),
        "encoder.pt empty": write(models / "encoder.pt", b""),
        "encoder.pt is text": write(models / "encoder.pt", b"not a checkpoint"),
        "policy .pt is the encoder": lambda home: shutil.copyfile(
            home / models / "encoder.pt", home / models / f"{policy}.pt"
        ),
        "policy sidecar empty": write(models / f"{policy}.json", b""),
        "policy sidecar not UTF-8": write(models / f"{policy}.json", b"\xff\xfe\x00{"),
        "policy sidecar without config": write(models / f"{policy}.json", b"{}"),
        "encoder sidecar a list": write(models / "encoder.json", b"[1, 2]"),
        "prior.json damaged": write(models / "prior.json", b'{"beta": '),
        "prior.json nan": write(models / "prior.json", b'{"beta": NaN, "encoder": "x"}'),
        "knowledge base pages damaged": lambda home: _pages(home / db),
        "knowledge base truncated": lambda home: _truncate(home / db),
        "knowledge base empty": write(db, b""),
    }


def probe_damage(trained_home: Path, domain: str, work: Path, timeout: float = 300.0) -> list[Outcome]:
    """Run the commands on every kind of damage; returns each outcome (``ok`` when fine)."""
    outcomes: list[Outcome] = []
    old = os.environ.get("CLARIFY_HOME")
    try:
        for i, (name, damage) in enumerate(damages(domain).items()):
            home = copy_home(trained_home, work / f"damage-{i}", domain)
            damage(home)
            os.environ["CLARIFY_HOME"] = str(home)
            for argv, stdin in (
                (("ask", domain, "my card has not arrived", "--json-lines"), "q\n"),
                (("domain", "stats", domain), ""),
                (("sessions", domain), ""),
            ):
                case = Case(f"{name}: {argv[0]} {argv[1]}", argv, stdin, exit_codes=(0, 2))
                outcomes.append(run_case(case, timeout))
    finally:
        if old is None:
            os.environ.pop("CLARIFY_HOME", None)
        else:
            os.environ["CLARIFY_HOME"] = old
    return outcomes
