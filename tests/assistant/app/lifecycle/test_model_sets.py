"""Switching model sets (``assistant.app.lifecycle.model_sets.ModelSetChange``): a process killed (SIGKILL,
at a fault-injection point) just before or just after the rename of serving.json leaves a whole set
serving: the old one or the new one, never a mix; a set left by a killed process is removed by the next
change, and one that is not committed is never served."""

from __future__ import annotations

import subprocess
import sys

import pytest

from assistant import paths
from assistant.app.lifecycle.model_sets import ModelSetChange
from benchmarks.reliability.environment import REPO, clarify_env

pytestmark = pytest.mark.reliability

CHANGE = """
from assistant import paths
from assistant.app.lifecycle.model_sets import ModelSetChange

with ModelSetChange("desk") as change:
    for name in ("encoder.pt", "encoder.json", "policy.pt"):
        (paths.models_dir("desk") / name).write_text("new " + name)
    change.commit()
"""
FILES = ("encoder.pt", "encoder.json", "policy.pt")


def serving() -> dict[str, str]:
    return {name: (paths.models_dir("desk") / name).read_text() for name in FILES}


@pytest.fixture
def old_set(fresh_clarify_home):
    for name in FILES:
        (paths.models_root("desk") / name).write_text(f"old {name}")
    return {name: f"old {name}" for name in FILES}


def change_in_a_process(home, fault: str | None = None) -> int:
    env = clarify_env(home) | ({paths.FAULT_ENV: fault} if fault else {})
    done = subprocess.run([sys.executable, "-c", CHANGE], env=env, cwd=REPO, capture_output=True, timeout=120)
    return done.returncode


@pytest.mark.parametrize(("fault", "serves"), [("model-set:before-switch", "old"), ("model-set:after-switch", "new")])
def test_a_kill_at_the_switch_leaves_one_whole_set_serving(fresh_clarify_home, old_set, fault, serves):
    assert change_in_a_process(fresh_clarify_home, fault) == -9
    expected = old_set if serves == "old" else {name: f"new {name}" for name in FILES}
    assert serving() == expected


def test_the_next_change_removes_a_killed_one_and_the_set_before_the_previous(fresh_clarify_home, old_set):
    assert change_in_a_process(fresh_clarify_home, "model-set:before-switch") == -9
    assert len([p for p in paths.models_root("desk").iterdir() if p.is_dir()]) == 1  # the killed set, on disk
    assert change_in_a_process(fresh_clarify_home) == 0
    first = paths.serving_set("desk")
    assert serving() == {name: f"new {name}" for name in FILES}
    assert [p for p in paths.models_root("desk").iterdir() if p.is_dir()] == [first]  # the killed set is gone
    assert (paths.models_root("desk") / "encoder.pt").read_text() == "old encoder.pt"  # the previous set stays
    assert change_in_a_process(fresh_clarify_home) == 0
    assert paths.serving_set("desk") != first and first.is_dir()  # previous now
    assert not (paths.models_root("desk") / "encoder.pt").exists()  # the one before it is gone


def test_a_change_that_is_not_committed_is_never_served(fresh_clarify_home, old_set):
    with ModelSetChange("desk") as change:
        (paths.models_dir("desk") / "encoder.pt").write_text("rejected")
        assert paths.models_dir("desk") == change.folder != paths.serving_set("desk")
    assert serving() == old_set and not change.folder.exists()


def test_a_damaged_pointer_serves_the_first_set(fresh_clarify_home, old_set):
    (paths.models_root("desk") / paths.SERVING).write_text('{"set": "../../etc"}')
    assert serving() == old_set
