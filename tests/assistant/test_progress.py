"""The one ETA of a job's progress (assistant.progress.Eta): the CLI's lines and the GUI's panel show it,
jobs never write one into their messages, so a cold start shows one ETA, not two on one line."""

from __future__ import annotations

from assistant.app.desk.cold_start import OverallProgress
from assistant.progress import Eta, Progress, eta_text


def test_the_eta_counts_from_the_first_record_of_a_stage():
    eta = Eta()
    assert eta.seconds_left(Progress(10, 100, "step 10: loss 4"), now=5.0) is None and eta.new_stage
    assert eta.seconds_left(Progress(30, 100, "step 30: loss 3"), now=25.0) == 70.0 and not eta.new_stage
    assert eta.seconds_left(Progress(1, 3, "fitting: the prior"), now=26.0) is None and eta.new_stage
    assert eta.seconds_left(Progress(0, 0, "no total"), now=27.0) is None


def test_eta_text_reads_as_a_person_says_it():
    assert [eta_text(s) for s in (1, 44, 89, 90, 1470)] == [
        "about 5 s left",
        "about 45 s left",
        "about 90 s left",
        "about 2 min left",
        "about 24 min left",
    ]


def test_a_cold_starts_stages_carry_no_eta_of_their_own():
    def stage():
        yield Progress(1, 2, "calibrating")
        yield Progress(2, 2, "done")

    overall = OverallProgress({"prior": 1.0, "policy": 3.0})
    records = list(overall.run(stage(), "prior", "prior"))
    assert [r.step for r in records] == [0, 125, 250] and all("left" not in r.message for r in records)
