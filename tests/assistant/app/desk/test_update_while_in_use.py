"""`clarify domain update` while a conversation of that domain goes on in another process (issue 34): the
update writes in place (WAL, one transaction), so the other process's session survives, its turns written
before, during and after the update are all kept, and the sessions and learned queries of unchanged entries
stay."""

from __future__ import annotations

import csv
import multiprocessing
import os
import time

import pytest

from assistant.app.desk.inbox import INBOX_SOURCE
from assistant.app.desk.own_faq import create_domain_job
from assistant.progress import run_job
from assistant.store import KnowledgeBase, SessionLog
from tests.support import EXAMPLES

pytestmark = pytest.mark.slow  # builds the library FAQ from its texts twice

FAQ = EXAMPLES / "library-faq.csv"


def _converse(home: str, ready, go, done, turns: int) -> None:
    """The other process: a conversation that writes a turn before, during and after the update."""
    os.environ["CLARIFY_HOME"] = home
    with KnowledgeBase.open("library") as kb:
        log = SessionLog(kb)
        number = log.create("where do i return an ebook", {})
        log.append(number, "answer", {"turn": 0}, "active", None)
        ready.put(number)
        go.wait(120)
        for turn in range(1, turns + 1):  # while the update runs in the parent (a few seconds)
            log.append(number, "answer", {"turn": turn}, "active", None)
            time.sleep(0.1)
        log.append(number, "accept", {"label": "return-ebook"}, "finished", "return-ebook")
    done.put("ok")


def test_an_update_while_a_session_is_open_in_another_process_keeps_it(tmp_path):
    home = os.environ["CLARIFY_HOME"]
    run_job(create_domain_job("library", FAQ))
    with KnowledgeBase.open("library") as kb:  # something learned about an unchanged entry
        kb.add_queries([(kb.label_ids()["wifi"], "the internet does not work", "train", INBOX_SOURCE, "")])
    rows = list(csv.DictReader(FAQ.open(encoding="utf-8")))
    rows[0]["answer"] += " Children need a parent's signature."  # edited
    rows = [r for r in rows if r["key"] != "parking"]  # removed
    rows.append({**rows[1], "key": "museum-pass", "question": "Can I borrow a museum pass?", "answer": "Yes."})
    edited = tmp_path / "library-faq.csv"
    with edited.open("w", encoding="utf-8", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)

    context = multiprocessing.get_context("spawn")
    ready, done, go = context.Queue(), context.Queue(), context.Event()
    other = context.Process(target=_converse, args=(home, ready, go, done, 40))
    other.start()
    number = ready.get(timeout=120)
    go.set()
    report = run_job(create_domain_job("library", edited, update=True))
    assert done.get(timeout=120) == "ok"
    other.join(60)
    assert other.exitcode == 0
    assert (len(report.changes.edited), len(report.changes.removed), len(report.changes.added)) == (1, 1, 1)
    with KnowledgeBase.open("library") as kb:
        (status,) = kb.db.execute("SELECT status FROM sessions WHERE id = ?", [number]).fetchone()
        turns = [kind for kind, _ in SessionLog(kb).entries(number)]
        learned = kb.db.execute(
            "SELECT COUNT(*) FROM queries q JOIN labels l ON l.id = q.label_id WHERE q.source = ? AND l.key = 'wifi'",
            [INBOX_SOURCE],
        ).fetchone()[0]
        keys = set(kb.label_ids())
    assert status == "finished"
    assert turns.count("answer") == 41 and turns[-1] == "accept"
    assert learned == 1 and "museum-pass" in keys and "parking" not in keys
