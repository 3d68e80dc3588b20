"""The question over answers: "Which of these is it? A / B / C / none of these".

Near the end of a conversation a person understands this question best: it lists 2-4 of the likeliest
labels by name (FAQ questions, intents) and "none of these". Its answer model is exact rather than learned:
a person whose label is listed picks it, one whose label is not picks "none of these", each with a small
chance ``LIST_ERROR`` of picking another option instead:

    P(option of label i | y = i) = 1 - error,      P(any other option | y) = error / (n - 1)
    P(none of these | y unlisted) = 1 - error

for a list of n - 1 labels. Its information gain under the belief p is computed exactly,
``H(P(r)) - H(r | y)``, where H(r | y) is the same for every label, so it competes with the tag questions
as any other question does (``best_answer_list``). It only makes sense where people know the labels' names
(an FAQ's questions, a bank's intents), not for bird species seen on a walk.

Shapes: Y candidate labels (positions in a conversation's belief).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from assistant.store import Domain, Question
from assistant.store.agent_view import has_image_split

# The pending question is an answer list when ``Conversation.next_question`` returns this index.
ANSWER_LIST = -1
ANSWER_LIST_TAG = "answer list"
NONE_OF_THESE = "none of these"
# How often a person picks the wrong option of an answer list (misreads a title, clicks the neighbour): rare,
# since the titles are the person's own kind of question.
LIST_ERROR = 0.02
LIST_SIZES = (2, 3, 4)
# At most this many answer lists in one conversation: a person whose entry was in neither of two lists seldom
# finds it in a third, and one whose question nothing answers only reads more titles.
MAX_LISTS = 2


def answer_lists_suit(domain: Domain) -> bool:
    """Whether people know ``domain``'s labels by name: not where they describe what they saw in a picture and
    the labels are species (CUB's image-annotated domains)."""
    return not has_image_split(domain)


@dataclass(frozen=True)
class AnswerList:
    """The labels an answer-list question lists, by position in the belief (most likely first)."""

    positions: tuple[int, ...]

    @property
    def num_options(self) -> int:
        return len(self.positions) + 1

    @property
    def none_option(self) -> int:
        """The index of "none of these" (the last option)."""
        return len(self.positions)

    def question(self, names: list[str]) -> Question:
        """The question a person sees: the listed labels' names (``names``, in list order) and "none of these"."""
        return Question(
            ANSWER_LIST_TAG, "Which of these is it?", "choice", ANSWER_LIST_TAG, (*names, NONE_OF_THESE), induced=False
        )

    def likelihood(self, option: int, num_labels: int, error: float = LIST_ERROR) -> np.ndarray:
        """P(option | y) [Y] float64 for every label (module docstring)."""
        miss = error / (self.num_options - 1)
        out = np.full(num_labels, miss)
        if option == self.none_option:
            out[:] = 1.0 - error
            out[list(self.positions)] = miss
        else:
            out[self.positions[option]] = 1.0 - error
        return out


def answer_list_gain(probs: np.ndarray, listed: AnswerList, error: float = LIST_ERROR) -> float:
    """The expected information gain (nats) of asking ``listed`` under the belief ``probs`` [Y]."""
    n = listed.num_options
    miss = error / (n - 1)
    mass = np.asarray(probs, dtype=np.float64)[list(listed.positions)]
    answer = np.append(mass, 1.0 - mass.sum())  # P(the person's label is each listed one, or none)
    answer = (1.0 - error) * answer + miss * (1.0 - answer)
    answer = answer[answer > 0]
    answer_entropy = float(-(answer * np.log(answer)).sum())
    conditional = -(1.0 - error) * math.log(1.0 - error) - error * math.log(miss)
    return max(0.0, answer_entropy - conditional)


def best_answer_list(
    probs: np.ndarray, eligible: np.ndarray, asked: set[tuple[int, ...]], error: float = LIST_ERROR
) -> tuple[AnswerList | None, float]:
    """The answer list with the highest information gain: the 2, 3 or 4 likeliest ``eligible`` labels ([Y]
    bool: not excluded, not ruled out) that were not listed together before (``asked``); (None, 0) when
    fewer than two are eligible."""
    probs = np.asarray(probs, dtype=np.float64)
    order = [int(i) for i in np.lexsort((np.arange(probs.size), -probs)) if eligible[i]]
    best, best_gain = None, 0.0
    for size in LIST_SIZES:
        if len(order) < size:
            break
        listed = AnswerList(tuple(order[:size]))
        if tuple(sorted(listed.positions)) in asked:
            continue
        gain = answer_list_gain(probs, listed, error)
        if gain > best_gain:
            best, best_gain = listed, gain
    return best, best_gain
