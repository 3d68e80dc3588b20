"""What the probes run in: data folders of their own, the tiny crowd domain, real `clarify` processes, and a
second program that holds the knowledge base's write lock."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from assistant.app.lifecycle.registry import policy_stem
from assistant.clarification.stopping import default_pace
from assistant.store import KnowledgeBase, Label, Question

REPO = Path(__file__).resolve().parents[2]

LABELS = [
    Label("card_arrival", "Card arrival", "My new card has not arrived yet", ("Cards arrive within 5 working days.",)),
    Label("lost_or_stolen_card", "Lost or stolen card", "I lost my card or it was stolen"),
    Label("exchange_rate", "Exchange rate", "Which exchange rate do you use?"),
    Label("top_up_failed", "Top up failed", "My top-up did not go through"),
]
QUESTIONS = [
    Question("card delivery", "Is it about card delivery?", "binary", "card delivery", ("yes", "no"), induced=True),
    Question("lost card", "Is it about a lost card?", "binary", "lost card", ("yes", "no")),
    Question("top up", "Is it about topping up?", "binary", "top up", ("yes", "no")),
    Question("card type", "Which card type is it?", "choice", "card type", ("visa", "mastercard")),
]


def build_crowd_domain(name: str = "bank") -> str:
    """A tiny domain to import into (4 labels, 3 binary + 1 choice question, a few queries), in CLARIFY_HOME."""
    with KnowledgeBase.create(name) as kb, kb.transaction():
        label_ids = kb.upsert_labels(LABELS, source="probe")
        question_ids = kb.upsert_questions(QUESTIONS, source="probe")
        kb.add_annotations(
            (label_ids[label.key], question_ids["card delivery"], answer, 5.0, "induced", "", "")
            for label in LABELS
            for answer in ("yes", "no")
        )
        kb.add_queries(
            [
                (label_ids["card_arrival"], "where is my card", "train", "probe", ""),
                (label_ids["exchange_rate"], "what rate for euros", "train", "probe", ""),
            ]
        )
        kb.set_meta(title="Probe bank")
    return name


def dump(name: str) -> str:
    """The whole database of domain ``name`` as SQL text ('' when it does not exist)."""
    from assistant import paths

    path = paths.domain_db_path(name)
    if not path.exists():
        return ""
    with KnowledgeBase(path, name) as kb:
        return kb.dump()


def clarify_env(home: Path) -> dict[str, str]:
    """The environment of a `clarify` process working in ``home``: offline, the venv's tools on PATH."""
    env = dict(os.environ)
    env.update(
        CLARIFY_HOME=str(home),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        OPENBLAS_THREAD_TIMEOUT="4",
        PYTHONUNBUFFERED="1",
        PYTHONPATH=str(REPO) + os.pathsep + env.get("PYTHONPATH", ""),
        PATH=str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", ""),
    )
    return env


def clarify_command(*args: str) -> list[str]:
    """argv of `clarify ARGS...` run by this interpreter (the installed console script is not needed)."""
    return [sys.executable, "-c", "import sys; from assistant.cli import main; sys.exit(main())", *args]


def run_clarify(home: Path, *args: str, input: str = "", timeout: float = 120.0) -> subprocess.CompletedProcess:
    """Run `clarify ARGS...` to the end; a run past ``timeout`` counts as a hang (TimeoutExpired)."""
    return subprocess.run(
        clarify_command(*args),
        input=input,
        capture_output=True,
        text=True,
        env=clarify_env(home),
        timeout=timeout,
        cwd=home,
    )


def served_policy(domain: str) -> str:
    """The file stem of the policy `clarify ask DOMAIN` loads: ours, all candidates, the domain's default pace."""
    return policy_stem("all", "learned", pace=default_pace(domain))


def trained_files(home: Path, domain: str) -> list[Path]:
    """What `clarify ask DOMAIN` needs in ``home``: the knowledge base, the encoder and the served policy."""
    models = home / "models" / domain
    policy = served_policy(domain)
    return [
        home / "domains" / f"{domain}.db",
        models / "encoder.pt",
        models / f"{policy}.pt",
        models / f"{policy}.json",
    ]


def copy_home(source: Path, target: Path, domain: str) -> Path:
    """A data folder with ``source``'s domain ``domain`` (knowledge base and models), for a probe to damage."""
    (target / "domains").mkdir(parents=True, exist_ok=True)
    with KnowledgeBase(source / "domains" / f"{domain}.db", domain) as kb:
        kb.backup(target / "domains" / f"{domain}.db")
    if (source / "models" / domain).is_dir():
        shutil.copytree(source / "models" / domain, target / "models" / domain, dirs_exist_ok=True)
    return target


HOLD_LOCK = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=60)
conn.execute("BEGIN IMMEDIATE")
conn.execute("INSERT INTO meta (key, value) VALUES ('probe_writer', '1') "
             "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
conn.execute("COMMIT")
print("released", flush=True)
"""


@contextmanager
def write_lock_held(db: Path, seconds: float) -> Iterator[subprocess.Popen]:
    """Another program holds ``db``'s write lock (an open write transaction, as a running import does) for
    ``seconds`` from the moment the block starts; the block may run while it holds it."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(db), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None  # stdout=PIPE
    try:
        line = holder.stdout.readline()
        if line.strip() != "locked":
            raise RuntimeError(f"the lock holder did not start: {line!r}")
        yield holder
    finally:
        try:
            holder.wait(timeout=seconds + 60)
        except subprocess.TimeoutExpired:
            holder.kill()
            holder.wait()


def wait_for(predicate, timeout: float, every: float = 0.05) -> bool:
    """Poll ``predicate`` until it is true or ``timeout`` seconds have passed."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(every)
    return bool(predicate())
