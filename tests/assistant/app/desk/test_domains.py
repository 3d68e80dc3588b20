"""First builds (assistant.app.desk.domains.prepare, assistant.sources.adapters.build_domain): a first build that is cut short (kill -9, a full disk) leaves no domain at all, never an
empty one that looks built; an empty one left by an older Clarify heals itself; two first launches take
turns instead of building into the same file."""

from __future__ import annotations

import subprocess
import threading

import pytest

from assistant import paths
from assistant.app.desk.domains import available_domains, prepare
from assistant.app.lifecycle.model_sets import domain_lock, domain_lock_path
from assistant.app.lifecycle.registry import ModelRegistry
from assistant.errors import StoreError
from assistant.progress import run_job
from assistant.sources.adapters import build_domain
from assistant.store import KnowledgeBase
from benchmarks.reliability.environment import clarify_command, clarify_env, wait_for
from crowdsourcing.importing import import_file
from models.locks import PidLock

pytestmark = pytest.mark.reliability


def built(name: str) -> bool:
    """What `clarify domain list` says."""
    return any(entry.built for entry in available_domains() if entry.name == name)


def leftovers() -> list[str]:
    """The domains folder's files, without the hidden ones beside a knowledge base (its lock, its last check)."""
    return sorted(p.name for p in paths.domains_dir().iterdir() if not p.name.startswith("."))


@pytest.mark.slow
def test_a_kill_before_the_build_is_in_place_leaves_no_domain(fresh_clarify_home):
    env = {**clarify_env(fresh_clarify_home), paths.FAULT_ENV: "domain-build:before-rename"}
    killed = subprocess.run(clarify_command("domain", "build", "faq"), env=env, capture_output=True, timeout=300)
    assert killed.returncode == -9, killed.stderr.decode()[-500:]
    assert not built("faq") and not paths.domain_db_path("faq").exists()
    assert [name.split(".building-")[0] for name in leftovers()] == ["faq.db"]  # removed by the next build


@pytest.mark.slow
def test_a_kill_during_the_first_import_into_a_new_domain_leaves_no_domain(fresh_clarify_home, tmp_path):
    labels = tmp_path / "labels.csv"
    labels.write_text("label,name,text\nrefund,Refund,How do I get my money back?\nlogin,Log-in,I cannot log in\n")
    argv = clarify_command("import", "csv", str(labels), "--domain", "desk", "--kind", "labels")
    env = {**clarify_env(fresh_clarify_home), paths.FAULT_ENV: "domain-build:before-rename"}
    killed = subprocess.run(argv, env=env, capture_output=True, timeout=300, cwd=tmp_path)
    assert killed.returncode == -9, killed.stderr.decode()[-500:]
    assert not built("desk") and len(leftovers()) == 1

    run_job(import_file(labels, "desk", "csv", kind="labels"))  # the next import starts again

    assert built("desk") and leftovers() == ["desk.db"]
    with KnowledgeBase.open("desk") as kb:
        assert kb.stats()["labels"] == 2


@pytest.mark.slow
def test_a_failed_first_build_leaves_no_domain(monkeypatch):
    def disk_full(kb, data):
        kb.db.execute("CREATE TABLE half_written (x)")
        raise StoreError("cannot write the knowledge base (database or disk is full)")

    monkeypatch.setattr("assistant.sources.adapters.registry.write_domain", disk_full)
    with pytest.raises(StoreError):
        run_job(build_domain("faq"))
    assert not built("faq") and leftovers() == []


@pytest.mark.slow
def test_an_empty_domain_left_by_an_older_clarify_is_built_again_by_the_next_launch(fresh_clarify_home):
    KnowledgeBase.create("faq").close()  # what a build killed after its first write used to leave
    assert built("faq")

    done = run_job(prepare("faq"))

    assert "release models" in done
    assert ModelRegistry("faq").domain.num_labels == 125


@pytest.mark.slow
def test_a_second_first_launch_waits_for_the_first_and_builds_nothing(fresh_clarify_home):
    holder = PidLock(domain_lock_path("faq"))  # the first launch, in this process
    assert holder.try_acquire()
    second = subprocess.Popen(
        clarify_command("prepare", "faq"), env=clarify_env(fresh_clarify_home), stderr=subprocess.PIPE, text=True
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(second.stderr), daemon=True)
    reader.start()
    try:
        waiting = f"waiting for another Clarify (process {subprocess.os.getpid()}) to finish preparing faq"
        assert wait_for(lambda: any(waiting in line for line in lines) or second.poll() is not None, 120)
        assert any(waiting in line for line in lines), "".join(lines)[-800:]
        assert not paths.domain_db_path("faq").exists()
        run_job(build_domain("faq"))  # the first launch builds while the second waits
        with KnowledgeBase.open("faq") as kb:
            built_at = kb.get_meta()["built_at"]
    finally:
        holder.release()
    assert second.wait(timeout=300) == 0, "".join(lines)[-800:]
    reader.join(10)
    with KnowledgeBase.open("faq") as kb:
        assert kb.get_meta()["built_at"] == built_at, "the second launch must not build again"
    assert ModelRegistry("faq").missing() == []


def test_a_lock_left_by_a_dead_process_is_taken_over_at_once():
    path = domain_lock_path("faq")
    path.write_text("999999999\n")  # its owner is gone: the kernel dropped its flock
    job = domain_lock("faq")
    with pytest.raises(StopIteration) as done:
        next(job)  # no "waiting" record: acquired at once
    release = done.value.value
    assert path.read_text().split()[0] == str(subprocess.os.getpid())
    release()


def test_reloading_fits_a_prior_no_longer_calibrated_on_the_data_first(monkeypatch):
    """Issue 34 (the Xvfb session): after the inbox made a new entry, reloading the window's models failed with
    "the pooled MiniLM prior … is not calibrated on its data: run clarify prepare"; now it is fitted first."""
    import assistant.app.desk.domains as domains
    from assistant.errors import ModelMissingError
    from assistant.progress import run_job

    fitted: list[str] = []

    class Registry:
        text_prior = "minilm"

        def __init__(self, name):
            self.name = name

        @property
        def encoder(self):
            if not fitted:
                raise ModelMissingError("not calibrated on its data")
            return "prior"

        def warm_up(self):
            assert fitted, "warmed up before the prior was fitted"
            yield from ()

        def stale(self):
            return []

    def fit(registry, kind, seed=0, config=None):
        assert kind == "prior"  # the models' one job table, for the prior alone
        fitted.append(registry.name)
        yield from ()

    monkeypatch.setattr(domains, "ModelRegistry", Registry)
    monkeypatch.setattr("assistant.app.lifecycle.model_jobs.train_model_job", fit)  # domains imports it where it trains
    registry = run_job(domains.reload_job("pool"))
    assert fitted == ["pool"] and registry.encoder == "prior"
