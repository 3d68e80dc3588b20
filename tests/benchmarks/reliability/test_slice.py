"""A quick slice of the reliability probe (the full run: `make soak`, python -m benchmarks.bench_reliability):
the same parts at a few seconds' size, with the same targets."""

from __future__ import annotations

import pytest

from benchmarks.reliability import arguments, files, outputs, swaps, writers
from benchmarks.reliability.environment import build_crowd_domain


def test_damaged_import_files_never_crash_hang_or_import_half(tmp_path):
    build_crowd_domain("bank")
    figures = files.probe_files(tmp_path / "files", "bank", examples=25, seed=1)
    summary = figures.summary()
    assert figures.tried == 25 and figures.rejected > 0
    assert (summary["crashes"], summary["hangs"], summary["partial_imports"]) == (0, 0, 0), summary["failures"]


def test_an_import_waits_for_a_second_writer(tmp_path):
    build_crowd_domain("bank")
    path = tmp_path / "tags.csv"
    path.write_text("label,tag,answer,worker\ncard_arrival,slice tag,yes,w1\n", encoding="utf-8")
    figures = writers.probe_imports("bank", [path])
    assert figures.concurrent_writers == 1 and figures.actions == 1, figures.failures


def test_a_sample_of_bad_arguments_gives_one_line_errors(tmp_path):
    build_crowd_domain("bank")
    cases = arguments.bad_argument_cases(tmp_path / "work", "bank")
    sample = [c for c in cases[::16] if "fifo" not in " ".join(c.argv)]
    figures = arguments.run_cases(sample, timeout=120)
    summary = figures.summary()
    assert summary["bad_arguments"] >= 12
    assert (summary["tracebacks"], summary["hangs"], summary["wrong_exit_or_message"]) == (0, 0, 0), summary


def test_model_set_changes_killed_at_any_moment_leave_one_whole_set_serving(tmp_path):
    figures = swaps.probe_model_sets(tmp_path, kills=4, seed=1).summary()
    assert figures["model_set_kills"] >= 2 and figures["mixed_sets"] == 0, figures["failures"]


@pytest.mark.slow
def test_printed_texts_written_files_a_closed_pipe_and_a_wide_header(tmp_path, fresh_clarify_home):
    build_crowd_domain("bank")
    figures = outputs.Figures()
    outputs.probe_terminal(tmp_path / "terminal", "bank", figures=figures)
    outputs.probe_output_targets(tmp_path / "outputs", "bank", figures)
    outputs.probe_closed_pipe(fresh_clarify_home, "bank", figures)
    outputs.probe_wide_header(tmp_path, "bank", figures=figures)
    summary = figures.summary()
    assert summary["terminal_checks"] >= 5 and summary["output_targets"] >= 13 and summary["wide_header_refused"]
    assert (summary["raw_escapes"], summary["outputs_replaced"], summary["closed_pipe_errors"]) == (0, 0, 0), summary


def test_planted_links_and_refused_inputs_write_nothing_outside_the_home(tmp_path):
    """Issue 41's probe part without its two-creates race and trained models (those run in `make soak`)."""
    from benchmarks.reliability import hostile

    figures = hostile.Figures()
    hostile.probe_refused_inputs(tmp_path, figures)
    hostile.probe_planted_links(tmp_path, figures)
    assert figures.cases == 6 and figures.failures == []
    assert figures.summary()["writes_outside"] == 0
