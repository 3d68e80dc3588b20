"""The simulated person whose query is out of scope: no label fits what they want.

Asked about the domain, such a person answers "something else" to a multiple-choice question and "no" to a
yes/no question, except for a share ``error`` of answers spread over the other options (a question about a
near topic, a misread option). ``with_out_of_scope_person`` appends that person as one more "label" to the
in-scope user's answers, so that ``SimulatedUser`` plays both with the same common random numbers.

The error is an assumption, not a measurement: nobody with an out-of-scope query answered Clarify's questions.
The README reports how the results move with it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from assistant.clarification.out_of_scope import out_of_scope_answers
from assistant.errors import ConfigError
from assistant.store import Question

OUT_OF_SCOPE_USER_ERROR = 0.2


def with_out_of_scope_person(answers: np.ndarray, questions: Sequence[Question], error: float) -> np.ndarray:
    """[Q, R, Y + 1]: ``answers`` [Q, R, Y] with the out-of-scope person as label index Y."""
    if not 0.0 <= error < 1.0:
        raise ConfigError(f"the out-of-scope person's error must be in [0, 1), got {error}")
    answers = np.asarray(answers, dtype=np.float64)
    person = out_of_scope_answers(questions, answers.shape[1], min(max(1.0 - error, 1e-9), 1 - 1e-9))
    return np.concatenate([answers, person[:, :, None]], axis=2)
