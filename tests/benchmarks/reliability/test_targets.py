"""The full probe damages and kills what `clarify ask` really loads: a home prepared the way a person's is
(faq from its release models) counts as trained, and every damage changes a file that is there."""

from __future__ import annotations

import hashlib

import pytest

from assistant.app.desk.domains import prepare
from assistant.progress import run_job
from assistant.sources.adapters import build_domain
from benchmarks.bench_reliability import _trained
from benchmarks.reliability.damage import damages
from benchmarks.reliability.environment import copy_home


def _digests(home):
    return {p.relative_to(home): hashlib.sha256(p.read_bytes()).hexdigest() for p in home.rglob("*") if p.is_file()}


@pytest.mark.slow
def test_a_prepared_faq_home_is_probed_and_every_damage_hits_a_file_ask_loads(fresh_clarify_home, tmp_path):
    run_job(build_domain("faq"))
    run_job(prepare("faq"))
    assert _trained(fresh_clarify_home, "faq"), "the probe would skip its kills and damages on a prepared home"
    for i, (name, damage) in enumerate(damages("faq").items()):
        home = copy_home(fresh_clarify_home, tmp_path / f"copy-{i}", "faq")
        before = _digests(home)
        damage(home)
        after = _digests(home)
        assert after.keys() == before.keys(), f"{name!r} created a file instead of damaging one"
        assert after != before, f"{name!r} changed nothing"
