"""The benchmark scripts' options (click): list options, defaults read when parsing, errors exit 2."""

from __future__ import annotations

import pytest

from benchmarks import bench_prior, bench_reliability, bench_vague
from benchmarks.common import run_command


def test_list_options_take_commas_or_repeats_and_keep_their_defaults():
    parsed = bench_prior.command.make_context("bench_prior", ["--domains", "faq,banking", "--domains", "birds"]).params
    assert parsed["domains"] == ["faq", "banking", "birds"] and parsed["vectors"] == ["minilm", "glove"]
    assert bench_prior.command.make_context("bench_prior", ["--vectors", ""]).params["vectors"] == []
    paces = bench_vague.paces_command.make_context("x", ["--paces", "--episodes", "5"]).params
    assert paces["domains"] == list(bench_vague.SETTINGS) and paces["episodes"] == 5


def test_the_trained_home_defaults_to_clarify_home_when_parsed(monkeypatch, tmp_path):
    monkeypatch.setenv("CLARIFY_HOME", str(tmp_path))
    assert bench_reliability.command.make_context("x", []).params["trained_home"] == str(tmp_path)


def test_bad_options_and_help_exit_as_before(capsys):
    with pytest.raises(SystemExit) as bad:
        run_command(bench_prior.command, ["--episodes", "3"])
    assert bad.value.code == 2 and "No such option" in capsys.readouterr().err
    with pytest.raises(SystemExit) as shown:
        run_command(bench_prior.command, ["--help"])
    assert shown.value.code == 0 and "--zero-shot" in capsys.readouterr().out
