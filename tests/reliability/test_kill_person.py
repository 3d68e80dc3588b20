"""The simulated person of the kill probe answers every event `clarify ask --json-lines` waits on."""

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
