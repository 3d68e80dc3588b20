"""Two programs on one desk (issue 41): creating a domain is one decision, so the second of two creates with
different FAQs fails and writes nothing instead of both saying "created" while one FAQ is thrown away; an
update and a prepare take turns through the domain's lock."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from assistant import paths
from assistant.app.desk.own_faq import create_domain_job
from assistant.app.lifecycle.model_sets import domain_lock
from assistant.progress import run_job
from assistant.store import KnowledgeBase
from assistant.store.building import CreatedMeanwhileError
from benchmarks.reliability.environment import REPO, clarify_env
from tests.assistant.app.desk.test_own_faq import FAQ, write_rows

pytestmark = pytest.mark.reliability


def _faq(tmp_path, rows, name: str, keep: int):
    return write_rows(tmp_path / name, rows[:keep])


def _entries(name: str) -> int:
    with KnowledgeBase.open(name) as kb:
        return kb.load_domain().num_labels


def test_the_second_of_two_creates_fails_and_writes_nothing(tmp_path):
    import csv

    with FAQ.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    first, second = _faq(tmp_path, rows, "first.csv", 6), _faq(tmp_path, rows, "second.csv", 9)
    slow = create_domain_job("desk", first)
    while not next(slow).message.startswith("writing"):  # read and induced, not written yet
        pass
    run_job(create_domain_job("desk", second))  # another program creates it meanwhile
    with pytest.raises(CreatedMeanwhileError, match=r"^desk was created by another program meanwhile; nothing written"):
        run_job(slow)
    assert _entries("desk") == 9  # the other program's FAQ, whole
    assert not [p.name for p in paths.domains_dir().iterdir() if ".building-" in p.name]


def test_an_update_waits_for_a_prepare_holding_the_domain(tmp_path):
    import csv

    with FAQ.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    run_job(create_domain_job("desk", _faq(tmp_path, rows, "first.csv", 6)))
    holder = subprocess.Popen(  # a prepare in another process holds the domain's lock
        [sys.executable, "-c", "import sys, time\nfrom assistant.app.lifecycle.model_sets import domain_lock\n"
         "from assistant.progress import run_job\nrun_job(domain_lock('desk'))\nprint('held', flush=True)\n"
         "sys.stdin.readline()"],
        cwd=REPO, env=clarify_env(paths.home()), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        update = create_domain_job("desk", _faq(tmp_path, rows, "second.csv", 9), update=True)
        waiting = [next(update).message for _ in range(4)]
        assert waiting[-1] == f"waiting for another Clarify (process {holder.pid}) to finish preparing desk"
        assert _entries("desk") == 6  # nothing written while it waits
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.close()
        holder.wait(timeout=60)
    run_job(update)
    assert _entries("desk") == 9


def test_a_prepare_says_it_waits_for_an_update(tmp_path):
    release = run_job(domain_lock("desk", "updating"))  # this thread: an update from the FAQ
    code = (
        "from assistant.app.lifecycle.model_sets import domain_lock\njob = domain_lock('desk')\n"
        "print(next(job).message, flush=True)\njob.close()\n"
    )
    try:
        done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=clarify_env(paths.home()), capture_output=True,
                              text=True, timeout=120)  # fmt: skip
    finally:
        release()
    assert done.stdout.strip() == f"waiting for another Clarify (process {os.getpid()}) to finish updating desk"


def test_the_hint_of_a_stale_minilm_prior_names_the_domains_own_prior(tmp_path):
    """Issue 41: a prepare cut short by an update said `--prior minilm` for a domain whose prior is sru."""
    import csv

    from assistant.app.lifecycle.prior_choice import save_text_prior_choice
    from assistant.app.lifecycle.registry import ModelRegistry
    from assistant.errors import ModelMissingError

    with FAQ.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    run_job(create_domain_job("desk", _faq(tmp_path, rows, "first.csv", 6)))
    with pytest.raises(ModelMissingError, match=r"run `clarify prepare desk`$"):  # no prior chosen yet
        ModelRegistry("desk", text_prior="minilm").encoder  # noqa: B018 - loading is the check
    save_text_prior_choice("desk", "minilm", {})
    with pytest.raises(ModelMissingError, match=r"run `clarify prepare desk`$"):
        ModelRegistry("desk", text_prior="minilm").encoder  # noqa: B018
    save_text_prior_choice("desk", "sru", {})
    with pytest.raises(ModelMissingError, match=r"run `clarify prepare desk --prior minilm`$"):
        ModelRegistry("desk", text_prior="minilm").encoder  # noqa: B018
