"""The log-friendly progress of the CLI (stderr not a terminal): a line per stage, and ETAs from the stage's
own pace."""

from __future__ import annotations

import io

from assistant.cli import common
from assistant.cli.common import ProgressLog
from assistant.progress import Progress


def test_progress_lines_name_each_stage_and_give_an_eta_from_the_stage_pace(monkeypatch):
    clock = iter([0.0, 0.0, 5.0, 10.0, 30.0, 31.0, 41.0, 60.0])
    monkeypatch.setattr(common.time, "monotonic", lambda: next(clock))
    stream = io.StringIO()
    log = ProgressLog("preparing faq", stream, every=10.0, after=2.0)  # starts at 0 s
    log(Progress(0, 3, "writing 125 labels"))  # 0 s: too early to print
    log(Progress(1, 3, "checking the result"))  # 5 s: a new stage
    log(Progress(10, 1500, "step 10: loss 4.4"))  # 10 s: a new stage, started at step 10
    log(Progress(30, 1500, "step 30: loss 3.1"))  # 30 s: 20 steps in 20 s
    log(Progress(31, 1500, "step 31: loss 3.0"))  # 31 s: less than 10 s since the last line
    log(Progress(40, 1500, "step 40: loss 2.9"))  # 41 s: 30 steps in 31 s
    log(Progress(0, 0, "training: the knowledge base differs from the release's"))  # 60 s
    lines = stream.getvalue().splitlines()
    assert lines == [
        "preparing faq: checking the result [1/3, 5 s]",
        "preparing faq: step 10: loss 4.4 [10/1500, 10 s]",
        "preparing faq: step 30: loss 3.1 [30/1500, 30 s, about 24 min left]",
        "preparing faq: step 40: loss 2.9 [40/1500, 41 s, about 25 min left]",
        "preparing faq: training: the knowledge base differs from the release's [0, 60 s]",
    ]


def test_a_metric_not_measured_yet_is_left_out_of_the_line(monkeypatch):
    clock = iter([0.0, 5.0])
    monkeypatch.setattr(common.time, "monotonic", lambda: next(clock))
    stream = io.StringIO()
    log = ProgressLog("preparing bank", stream, every=10.0, after=2.0)
    log(Progress(3, 10, "step 3", {"loss": 1.23456, "dev_acc1": None, "note": "warm"}))  # None crashed the line
    assert stream.getvalue().splitlines() == ["preparing bank: step 3 [3/10, 5 s] loss=1.235 note=warm"]


def test_a_stage_that_says_nothing_still_gets_a_line_every_period(monkeypatch):
    """Issue 41: preparing 5,000 articles printed nothing for minutes (one stage, no progress records)."""
    clock = iter([0.0, 5.0, 9.0, 16.0, 20.0, 27.0])
    monkeypatch.setattr(common.time, "monotonic", lambda: next(clock))
    stream = io.StringIO()
    log = ProgressLog("preparing desk", stream, every=10.0, after=2.0)  # starts at 0 s
    log(Progress(1, 3, "inducing questions"))  # 5 s: a new stage
    log.beat()  # 9 s: within the period
    log.beat()  # 16 s
    log.beat()  # 20 s: within the period of the beat
    log.beat()  # 27 s
    assert stream.getvalue().splitlines() == [
        "preparing desk: inducing questions [1/3, 5 s]",
        "preparing desk: inducing questions (still working) [1/3, 16 s]",
        "preparing desk: inducing questions (still working) [1/3, 27 s]",
    ]


def test_run_with_progress_beats_while_a_stage_works_without_a_word(monkeypatch):
    import threading

    stream = io.StringIO()
    monkeypatch.setattr(common.sys, "stderr", stream)
    monkeypatch.setattr(common.ProgressLog.__init__, "__defaults__", (0.0, 0.0))  # every=0, after=0
    heard = threading.Event()

    def job():
        yield Progress(0, 1, "reading 5,000 articles")
        for _ in range(1200):  # works on without a word until the heartbeat speaks (gives up after a minute)
            if "(still working)" in stream.getvalue():
                return "heard"
            heard.wait(0.05)
        return "silent"

    assert common.run_with_progress(job(), "preparing desk") == "heard"
    assert "preparing desk: reading 5,000 articles (still working) [0/1," in stream.getvalue()
