"""Workers: Progress generators off the event loop, with batching, Cancel and errors as data."""

from __future__ import annotations

import time

import numpy as np
from gui_helpers import TIMEOUT_MS
from PySide6.QtCore import QElapsedTimer, QTimer
from PySide6.QtWidgets import QPushButton

from assistant.clarification.answer_model import AnswerModel
from assistant.errors import ConfigError
from assistant.priors.base import restrict
from assistant.progress import Progress
from assistant.simulation.episodes import sample_episodes
from assistant.training.policy import PolicyConfig, train_policy
from gui.workers import JobWorker, ProgressDialog, WorkerPool, run_with_dialog
from tests.support.tiny import KeywordPrior, make_tiny_domain


def counting_job(n: int, delay: float = 0.0, log: list | None = None):
    try:
        for i in range(n):
            if delay:
                time.sleep(delay)
            yield Progress(i + 1, n, "counting", {"value": float(i)})
        return "done"
    finally:
        if log is not None:
            log.append("closed")


def test_a_worker_reports_progress_in_batches_and_its_result(qtbot):
    batches: list[list[Progress]] = []
    worker = JobWorker(lambda: counting_job(2000), "count")
    worker.progressed.connect(batches.append)
    with qtbot.waitSignal(worker.succeeded, timeout=TIMEOUT_MS) as done:
        worker.start()
    worker.wait()
    assert done.args == ["done"] and worker.outcome == "succeeded"
    records = [r for b in batches for r in b]
    qtbot.waitUntil(lambda: sum(len(b) for b in batches) == 2000)
    records = [r for b in batches for r in b]
    assert [r.step for r in records] == list(range(1, 2001))
    assert len(batches) < 2000  # batched: the event loop is not flooded


def test_cancel_closes_the_generator(qtbot):
    log: list[str] = []
    worker = JobWorker(lambda: counting_job(10_000, 0.005, log), "slow")
    with qtbot.waitSignal(worker.progressed, timeout=TIMEOUT_MS):
        worker.start()
    with qtbot.waitSignal(worker.cancelled, timeout=TIMEOUT_MS):
        worker.cancel()
    worker.wait()
    assert worker.outcome == "cancelled" and log == ["closed"]


def test_errors_come_back_as_data(qtbot):
    def broken():
        yield Progress(1, 2, "half way")
        raise ConfigError("episodes must be positive: choose at least 1")

    worker = JobWorker(broken, "broken")
    with qtbot.waitSignal(worker.failed, timeout=TIMEOUT_MS) as failed:
        worker.start()
    worker.wait()
    exc, details = failed.args
    assert isinstance(exc, ConfigError) and "at least 1" in str(exc) and "ConfigError" in details


def test_the_progress_dialog_cancels(qtbot):
    from PySide6.QtWidgets import QWidget

    parent = QWidget()
    qtbot.addWidget(parent)
    pool = WorkerPool(parent)
    outcome: list[str] = []
    run_with_dialog(
        parent,
        pool,
        "Counting slowly",
        lambda: counting_job(10_000, 0.005),
        lambda result: outcome.append("ok"),
        lambda exc, details: outcome.append("error"),
        lambda: outcome.append("cancelled"),
    )
    dialog = parent.findChild(ProgressDialog)
    assert dialog is not None and dialog.isVisible()
    qtbot.waitUntil(lambda: dialog.curve is not None and dialog.curve.points("value") > 2, timeout=TIMEOUT_MS)
    cancel = dialog.findChild(QPushButton, "jobProgressCancelButton")
    cancel.click()
    qtbot.waitUntil(lambda: outcome == ["cancelled"], timeout=TIMEOUT_MS)
    qtbot.waitUntil(lambda: not pool.running, timeout=TIMEOUT_MS)


def tiny_training_job(iterations: int):
    """Real REINFORCE training of a stop policy on the tiny domain (no encoder needed)."""
    domain = make_tiny_domain()
    episodes = sample_episodes(domain, 200, 0, "train")
    prior = restrict(KeywordPrior(domain).scores([e.query for e in episodes]), None)
    targets = np.array([e.target for e in episodes])
    model = AnswerModel(domain.p_hat(1.0), domain.option_mask)
    config = PolicyConfig(iterations=iterations, batch_size=32, learning_rate=0.02, turn_reward=-0.5, max_turns=3)
    return train_policy(model, domain.p_hat(1.0), episodes, prior, targets, config, seed=1)


def test_the_event_loop_stays_responsive_while_training(qtbot, tiny_window):
    """A QTimer keeps ticking while the Lab trains a policy in its worker; the curve grows live; Cancel stops
    the training; a short training then completes with its summary."""
    window = tiny_window
    window.show_page("lab")
    panel = window.lab_page.training
    ticks: list[int] = []
    clock = QElapsedTimer()
    clock.start()
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(clock.elapsed()))
    timer.start()
    sizes: list[int] = []
    worker = panel.run(lambda: tiny_training_job(100_000))
    worker.progressed.connect(lambda _: sizes.append(panel.curve.points("reward")))
    started = clock.elapsed()
    # the event loop runs (and the timer ticks) while the worker trains, for at least 1.5 s and 3 points
    qtbot.waitUntil(lambda: clock.elapsed() - started > 1500 and panel.curve.points("reward") >= 3, timeout=60_000)
    finished = clock.elapsed()
    cancel = panel.findChild(QPushButton, "trainingProgressCancelButton")
    assert cancel.isEnabled()
    cancel.click()
    qtbot.waitUntil(lambda: worker.outcome == "cancelled", timeout=TIMEOUT_MS)
    timer.stop()
    assert panel.curve.points("reward") > 0 and len(sizes) >= 2 and sizes[-1] > sizes[0]
    during = [t for t in ticks if started <= t <= finished]
    gaps = np.diff([started, *during, finished])
    # A blocked event loop would not tick at all until the training ends. The bounds are loose because a busy
    # 2-core machine delays timers, and a rare long gap is Python's full garbage collection (it stops every
    # thread), never the training itself.
    assert len(during) >= 0.2 * (finished - started) / 10, f"{len(during)} ticks in {finished - started} ms"
    assert np.percentile(gaps, 95) < 100, f"95% of the timer's intervals should be short: {np.percentile(gaps, 95)} ms"
    assert gaps.max() < 1500, f"the event loop stalled for {gaps.max()} ms"
    qtbot.waitUntil(panel.run_button.isEnabled, timeout=TIMEOUT_MS)

    worker = panel.run(lambda: tiny_training_job(5))
    qtbot.waitUntil(lambda: worker.outcome == "succeeded", timeout=60_000)
    qtbot.waitUntil(lambda: "reward" in panel.summary.text(), timeout=TIMEOUT_MS)
    assert panel.curve.points("accuracy") == 5


def test_garbage_is_collected_in_the_gui_thread_only():
    import gc

    from gui.workers import GuiThreadGarbageCollection

    assert not gc.isenabled()  # the GUI tests run under it (conftest), as the app does
    collection = GuiThreadGarbageCollection()
    collection.start()
    gc.collect()
    assert collection.collect() == -1  # nothing allocated since: nothing to do
    for _ in range(2 * collection.thresholds[0]):  # reference cycles: only a collection frees them
        cycle: list = []
        cycle.append(cycle)
    del cycle
    assert gc.get_count()[0] > collection.thresholds[0]
    assert collection.collect() >= 0 and gc.get_count()[0] < collection.thresholds[0]
    collection.stop()
    assert gc.isenabled()
    gc.disable()  # the fixture's collection is still running for this test


def test_the_oldest_generation_waits_while_the_models_load():
    """The app collects only the youngest generation, and often, until the first domain is ready (longer
    collections would walk the model stack's new heap in the GUI thread), then freezes what is alive and
    collects as before."""
    import gc

    from gui.workers import GuiThreadGarbageCollection

    collection = GuiThreadGarbageCollection()
    collection.young_only()
    assert collection.timer.interval() == collection.interval_ms // 10
    gc.collect()
    oldest = len(collection.thresholds) - 1
    collected = []
    for _ in range(1000):  # collect the youngest generation until the next would be due
        for _ in range(collection.thresholds[0] + 1):
            cycle: list = []
            cycle.append(cycle)
        del cycle
        collected.append(collection.collect())
        if gc.get_count()[1] > collection.thresholds[1]:
            break
    assert gc.get_count()[1] > collection.thresholds[1]
    assert max(collected) == 0, "the youngest generation was collected, never an older one"
    collection.freeze()
    try:
        assert gc.get_freeze_count() > 0 and collection.timer.interval() == collection.interval_ms
        collected = []
        for _ in range(1000):
            for _ in range(collection.thresholds[0] + 1):
                cycle = []
                cycle.append(cycle)
            del cycle
            collected.append(collection.collect())
            if collected[-1] == oldest:
                break
        assert collected[-1] == oldest  # full collections run again, over what came after the freeze
    finally:
        gc.unfreeze()


def test_the_progress_panel_shows_the_one_eta_once_a_stage_has_a_rate(qtbot):
    from gui.workers import ProgressPanel

    panel = ProgressPanel()
    qtbot.addWidget(panel)
    panel.show_progress([Progress(1, 100, "step 1: training")])
    assert "left" not in panel.message.text()  # one record: no rate yet
    time.sleep(0.05)
    panel.show_progress([Progress(2, 100, "step 2: training")])
    assert panel.message.text().count("left") == 1 and "about" in panel.message.text()


def test_a_bar_of_several_stages_never_goes_backwards(qtbot):
    """Issue 34: the background update's bar went from 32% back to 6% when its next stage began."""
    from PySide6.QtWidgets import QProgressBar

    from assistant.progress import Progress
    from gui.workers import show_on_bar

    bar = QProgressBar()
    qtbot.addWidget(bar)
    show_on_bar(bar, Progress(32, 100, "first stage"), forward_only=True)
    show_on_bar(bar, Progress(6, 100, "second stage"), forward_only=True)
    assert bar.value() == 320
    show_on_bar(bar, Progress(6, 100, "a job's own bar"))
    assert bar.value() == 60
