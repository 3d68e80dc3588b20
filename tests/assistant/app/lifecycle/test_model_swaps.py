"""Model sets with the real `learn update` (assistant.app.desk.learning): a kill -9 just after it wrote its new encoder leaves the old
one serving and the next update starts from it, never from a rejected encoder; an accepted update switches
to a new set of models. The kill is real (SIGKILL of a process running the update) at a fault-injection point
(``assistant.paths.fault_point``), not at a moment found by timing; ``test_model_sets`` kills the switch
itself at each of its moments."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import replace

import pytest

from assistant import paths
from assistant.app.desk.learning import update
from assistant.app.lifecycle.registry import ModelRegistry
from assistant.priors.sru import encoder_checkpoint_path
from assistant.progress import collect
from assistant.store import KnowledgeBase
from benchmarks.reliability.environment import REPO, clarify_env
from tests.support import clarify_home
from tests.support.product import (
    NAME,
    TINY_ENCODER,
    SimulatedDesk,
    build_domain,
    log_sessions,
    train_tiny_encoder,
)

pytestmark = [pytest.mark.slow, pytest.mark.reliability]

REJECTED_STEPS = 1  # one step of training: worse on dev than the encoder trained for 20, so not kept

UPDATE = """
import sys
from dataclasses import replace
from assistant.app.desk.learning import update
from assistant.progress import run_job
from tests.support.product import NAME, TINY_ENCODER
steps = int(sys.argv[1])
config = replace(TINY_ENCODER, max_steps=steps, eval_every=min(steps, TINY_ENCODER.eval_every))
print(run_job(update(NAME, train_config=config, retrain_policies=False))["kept"])
"""


@pytest.fixture(scope="module")
def desk_home(tmp_path_factory):
    """A home with the small banking desk, its encoder (20 steps) and logged sessions to learn from."""
    home = tmp_path_factory.mktemp("desk-home")
    with clarify_home(home):
        truth = build_domain()
        train_tiny_encoder(max_steps=20)
        log_sessions(SimulatedDesk(), truth["sessions"])
    return home


@pytest.fixture
def desk(desk_home, fresh_clarify_home):
    shutil.copytree(desk_home, fresh_clarify_home, dirs_exist_ok=True)
    return fresh_clarify_home


def serving_weights() -> bytes:
    return encoder_checkpoint_path(NAME).with_suffix(".pt").read_bytes()


def run_update(home, steps: int, fault: str | None = None) -> subprocess.CompletedProcess:
    env = clarify_env(home)
    if fault:
        env[paths.FAULT_ENV] = fault
    return subprocess.run(
        [sys.executable, "-c", UPDATE, str(steps)], env=env, capture_output=True, text=True, timeout=600, cwd=REPO
    )


def queries_from_sessions() -> int:
    with KnowledgeBase.open(NAME) as kb:
        return kb.db.execute("SELECT COUNT(*) FROM queries WHERE source LIKE 'session%'").fetchone()[0]


def test_a_kill_just_after_the_update_wrote_its_encoder_leaves_the_old_one_serving(desk):
    before = serving_weights()
    killed = run_update(desk, REJECTED_STEPS, "learn-update:trained")
    assert killed.returncode == -9, killed.stderr[-800:]
    assert serving_weights() == before and queries_from_sessions() == 0
    assert ModelRegistry(NAME).encoder is not None  # it loads, and nothing has to be retrained

    # the next update starts from the serving encoder: rejected again, it leaves that one in place
    config = replace(TINY_ENCODER, max_steps=REJECTED_STEPS, eval_every=1)
    _, report = collect(update(NAME, train_config=config, retrain_policies=False))
    assert report["kept"] == "old" and serving_weights() == before
    assert not [p for p in paths.models_root(NAME).iterdir() if p.name.startswith("set-")], "the killed set is gone"


def test_an_accepted_update_switches_to_a_new_set_and_keeps_the_previous_one(desk):
    before = serving_weights()
    _, report = collect(update(NAME, train_config=TINY_ENCODER, retrain_policies=False))
    assert report["kept"] == "new", report
    serving = paths.serving_set(NAME)
    assert serving.parent == paths.models_root(NAME) and serving.name.startswith("set-")
    assert serving_weights() != before and queries_from_sessions() > 0
    assert not ModelRegistry(NAME).encoder.stale, "the new encoder was trained on what the store now holds"
    assert (paths.models_root(NAME) / "encoder.pt").read_bytes() == before  # the previous set, until the next one
