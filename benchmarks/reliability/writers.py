"""A second writer: another program holds the knowledge base's write lock (as a running import does) while
sessions answer and while imports write, and two sessions write at once. Every action must wait for the
other writer and then succeed; a failure is any exception."""

from __future__ import annotations

import threading
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from assistant.app.session.session import Phase
from benchmarks.reliability.environment import write_lock_held


@dataclass
class Figures:
    concurrent_writers: int = 0
    actions: int = 0
    failures: list[str] = field(default_factory=list)

    def summary(self) -> dict:
        return {
            "concurrent_writers": self.concurrent_writers,
            "actions": self.actions,
            "failures": len(self.failures),
            "failure_messages": self.failures[:10],
        }


def _answer_until_done(session, rng: np.random.Generator, limit: int = 40) -> int:
    """Answer ``session`` as a quick person would; returns the number of actions."""
    actions = 0
    while session.phase not in (Phase.FINISHED, Phase.FAILED) and actions < limit:
        if session.phase == Phase.OUT_OF_SCOPE and session.handed_off:
            break  # handed on to a person: the session is over
        if session.phase == Phase.CLARIFYING:
            session.answer(int(rng.integers(0, len(session.question.options))))
        elif session.phase == Phase.COMPARING:
            session.prefer(str(rng.choice(["left", "right", "tie"])))
        elif session.phase == Phase.OUT_OF_SCOPE and rng.random() < 0.5:  # "nothing fits": the closest answers
            session.show_closest()
        elif session.phase == Phase.OUT_OF_SCOPE:  # or hand it on
            session.hand_off("")
        else:
            session.accept()
        actions += 1
    return actions


def probe_sessions(domain: str, rounds: int, seed: int = 0) -> Figures:
    """``rounds`` of: a session answering while another program holds the write lock for a random while, and
    two sessions of the same domain answering at once in two threads (two connections)."""
    from assistant import paths
    from assistant.app.lifecycle.registry import ModelRegistry
    from assistant.app.session.session import Session
    from assistant.store import KnowledgeBase

    rng = np.random.default_rng(seed)
    registry = ModelRegistry(domain)
    db = paths.domain_db_path(domain)
    figures = Figures()
    queries = ["my card has not arrived", "reset my password", "where is it", "cancel my order"]
    for round_ in range(rounds):
        try:
            with KnowledgeBase.open(domain) as kb:
                session = Session.start(registry, queries[round_ % len(queries)], kb=kb)
                with write_lock_held(db, float(rng.uniform(0.2, 1.5))):
                    figures.concurrent_writers += 1
                    figures.actions += _answer_until_done(session, rng)
        except Exception:  # every failure is counted, with its traceback
            figures.failures.append(traceback.format_exc(limit=3)[-600:])
        errors: list[str] = []

        def run(query: str, seed_: int, errors: list[str] = errors) -> None:
            try:
                with KnowledgeBase.open(domain) as kb:
                    figures.actions += _answer_until_done(
                        Session.start(registry, query, kb=kb), np.random.default_rng(seed_)
                    )
            except Exception:
                errors.append(traceback.format_exc(limit=3)[-600:])

        threads = [
            threading.Thread(target=run, args=(q, seed * 1000 + round_ * 2 + i)) for i, q in enumerate(queries[:2])
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(300)
        figures.concurrent_writers += 1
        figures.failures += errors + [f"a session still running after 300 s in round {round_}"] * sum(
            t.is_alive() for t in threads
        )
    return figures


def probe_imports(domain: str, files: list[Path], seed: int = 0) -> Figures:
    """Each file imported into ``domain`` while another program holds the write lock for a random while."""
    from assistant import paths
    from assistant.progress import run_job
    from crowdsourcing.importing import import_file

    rng = np.random.default_rng(seed)
    figures = Figures()
    for path in files:
        try:
            with write_lock_held(paths.domain_db_path(domain), float(rng.uniform(0.2, 1.5))):
                figures.concurrent_writers += 1
                run_job(import_file(path, domain, "csv"))
                figures.actions += 1
        except Exception:
            figures.failures.append(traceback.format_exc(limit=3)[-600:])
    return figures
