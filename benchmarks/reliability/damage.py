"""Damaged checkpoints, sidecars and knowledge bases given to real commands: each copy of a trained data
folder gets one kind of damage, then `clarify ask`, `domain stats`, `sessions` and `evaluate` run on it.
They must answer (a damaged cache such as prior.json is rebuilt) or end with one error line and exit 2.
Damaged numbers in models (NaN weights, a mention weight of -5, a NaN temperature: issue 27) must be
replaced from the release or retrained, so there `clarify ask` must answer. A session row that is not JSON
must give one error line on `--resume` and not stop `learn suggest` (``probe_damaged_sessions``)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import torch

from benchmarks.reliability.arguments import Case, Outcome, run_case
from benchmarks.reliability.environment import copy_home, served_policy


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: max(path.stat().st_size // 3, 1)])


def _pages(path: Path) -> None:
    data = bytearray(path.read_bytes())
    for start in range(4096, len(data), 8192):  # every other page after the first
        data[start : start + 64] = os.urandom(64)
    path.write_bytes(bytes(data))


def _nan_weights(path: Path) -> None:
    state = torch.load(path, weights_only=True)
    name = next(k for k, v in state.items() if v.is_floating_point() and v.ndim == 2)
    state[name] = torch.full_like(state[name], float("nan"))
    torch.save(state, path)


def _sidecar(path: Path, change: Callable[[dict], None]) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def _negative_mention_weight(home: Path, models: Path) -> None:
    encoder = json.loads((home / models / "encoder.json").read_text())
    stamp = f"{encoder.get('data_hash', '')}@{encoder.get('created_at', '')}"  # ModelRegistry.encoder_hash
    (home / models / "prior.json").write_text(json.dumps({"encoder": stamp, "beta": -5}))


# damages a first launch must repair (release models or training), so `clarify ask` must answer; issue 41's
# damaged caches (a traceback in every ask) among them (its hostile checkpoints: benchmarks.reliability.hostile,
# in processes of their own, where a native crash is counted)
MUST_ANSWER = ("policy weights NaN", "encoder weights NaN", "encoder temperature NaN", "prior.json beta -5",
               "text-embeddings.npz truncated", "text-embeddings.npz random after PK")  # fmt: skip


def damages(domain: str) -> dict[str, Callable[[Path], object]]:  # each damages a copied home
    models = Path("models") / domain
    db = Path("domains") / f"{domain}.db"
    policy = served_policy(domain)  # the one `clarify ask` loads: damaging another tests nothing

    def write(rel: Path, data: bytes) -> Callable[[Path], object]:
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
        "policy weights NaN": lambda home: _nan_weights(home / models / f"{policy}.pt"),
        "encoder weights NaN": lambda home: _nan_weights(home / models / "encoder.pt"),
        "encoder temperature NaN": lambda home: _sidecar(
            home / models / "encoder.json", lambda d: d["config"].update(temperature=float("nan"))
        ),
        "prior.json beta -5": lambda home: _negative_mention_weight(home, models),
        "text-embeddings.npz truncated": lambda home: _truncate(home / models / "text-embeddings.npz"),
        "text-embeddings.npz random after PK": write(models / "text-embeddings.npz", b"PK\x03\x04" + os.urandom(4096)),
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
                codes = (0,) if name in MUST_ANSWER and argv[0] == "ask" else (0, 2)
                case = Case(f"{name}: {argv[0]} {argv[1]}", argv, stdin, exit_codes=codes)
                outcomes.append(run_case(case, timeout))
    finally:
        if old is None:
            os.environ.pop("CLARIFY_HOME", None)
        else:
            os.environ["CLARIFY_HOME"] = old
    return outcomes


def probe_damaged_sessions(trained_home: Path, domain: str, work: Path, timeout: float = 300.0) -> list[Outcome]:
    """A session whose entry (or settings) is not JSON: `ask --resume` gives one error line and exit 2,
    `learn suggest` skips it (exit 0, or 2 when nothing is left to suggest), never a traceback."""
    from assistant.store import KnowledgeBase, SessionLog

    outcomes: list[Outcome] = []
    old = os.environ.get("CLARIFY_HOME")
    damaged = {
        "a session entry that is not JSON": "UPDATE turns SET payload = '{\"index\": ' WHERE session_id = ?",
        "session settings that are not JSON": "UPDATE sessions SET config = 'not json' WHERE id = ?",
    }
    try:
        for i, (name, sql) in enumerate(damaged.items()):
            home = copy_home(trained_home, work / f"session-{i}", domain)
            os.environ["CLARIFY_HOME"] = str(home)
            with KnowledgeBase.open(domain) as kb:
                log = SessionLog(kb)
                session = log.create("my card has not arrived", {"candidates": "all"})
                log.append(session, "answer", {"index": 0, "option": 0, "kind": "option"}, "active", None)
                with kb.transaction():
                    kb.db.execute(sql, [session])
            for argv, codes in (
                (("ask", domain, "--resume", str(session)), (2,)),
                (("learn", "suggest", domain, "--out", str(work / f"suggest-{i}.csv"), "--samples", "2"), (0, 2)),
            ):
                outcomes.append(run_case(Case(f"{name}: {argv[0]} {argv[1]}", argv, "q\n", exit_codes=codes), timeout))
    finally:
        if old is None:
            os.environ.pop("CLARIFY_HOME", None)
        else:
            os.environ["CLARIFY_HOME"] = old
    return outcomes
