"""The simulated people of the kill and session-writer probes answer every state a session can wait in."""

import io
import json
from types import SimpleNamespace

import numpy as np
import pytest

from benchmarks.reliability.kills import Person


@pytest.mark.parametrize("seed", range(4))
def test_the_person_answers_the_out_of_scope_ending_and_counts_the_answer_it_acknowledges(seed):
    stdin = io.StringIO()
    person = Person(SimpleNamespace(stdin=stdin), np.random.default_rng(seed))
    person.handle(json.dumps({"type": "question", "options": ["yes", "no"]}), reply=True, started=0.0)
    sent = stdin.getvalue()
    person.handle(json.dumps({"type": "out_of_scope", "did_you_mean": []}), reply=True, started=0.0)
    assert person.acknowledged == 1  # the ending shows the answer before it was saved
    assert stdin.getvalue()[len(sent) :] in ("c\n", "h\n")  # a reply, not a wait until the kill


class _EndsOutOfScope:
    """A session that ends "nothing fits" after one answer, as issue 17's sessions can."""

    def __init__(self):
        self.phase, self.handed_off, self.question = "clarifying", False, SimpleNamespace(options=("yes", "no"))

    def answer(self, option):
        self.phase = "out_of_scope"

    def show_closest(self):
        self.phase = "decided"

    def hand_off(self, note):
        self.handed_off = True

    def accept(self):
        if self.phase != "decided":
            raise AssertionError(f"accept() while {self.phase}")
        self.phase = "finished"


@pytest.mark.parametrize("seed", range(4))
def test_the_session_writer_probe_answers_the_out_of_scope_ending(seed):
    from benchmarks.reliability.writers import _answer_until_done

    session = _EndsOutOfScope()
    actions = _answer_until_done(session, np.random.default_rng(seed))
    assert session.phase == "finished" or session.handed_off
    assert actions in (2, 3)
