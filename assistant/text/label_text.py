"""The texts that stand for labels, tags and answers when a text encoder compares them with queries.

Three kinds of text:

- ``tag_answer_text(question, r)``: "tag # answer", e.g. "bill shape hooked seabird # yes" or
  "wing pattern # striped"; the encoder scores it against labels for the learned answer model
  S(tag#r, y) and trains on (tag#answer, label) pairs.
- ``option_phrase(question, r)``: the tag as a positive statement ("bill shape hooked seabird",
  "wing pattern striped"), used in label documents and pseudo-queries.
- ``label_documents(domain, p_hat)``: one document per label: its name, its description where that is
  fair to use, and its most characteristic tags according to the *agent's* answer distribution p_hat.

Why the tags matter: bird species have no description a user would write, and in the "all 200
candidates" setting 150 species have no training queries at all; their only representation is what the
crowd said about them, written as text the encoder can map into the same space as captions.

Why bird label texts are skipped: the birds domain stores a summary of the *full* CUB attribute table as
each species' text, and that table is exactly what the simulated user answers from. The agent only knows
p_hat re-sampled from training images (see ``assistant.simulation.protocol``), so its label documents are rebuilt
from that p_hat instead (``use_label_text`` decides; by default it is off for domains whose meta has
``images_per_label``, i.e. CUB-style class-level annotations).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from assistant.store import SOMETHING_ELSE, Domain, Question

TAG_ANSWER_SEPARATOR = " # "


def _words(raw: str) -> str:
    """'has_bill_shape::hooked_seabird' -> 'bill shape hooked seabird' (readable, lowercase)."""
    text = re.sub(r"^has_", "", raw.strip())
    text = text.replace("::", " ").replace("_", " ")
    return re.sub(r"\s+", " ", text).strip().lower()


def option_phrase(question: Question, option: int) -> str:
    """The statement "the label has this tag value": binary -> the tag, choice -> "group value"."""
    if question.kind == "binary":
        return _words(question.tag)
    return f"{_words(question.group)} {_words(question.options[option])}"


def tag_answer_text(question: Question, option: int) -> str:
    """The text "tag # answer" that S(tag#r, y) scores (IC 4.3)."""
    return f"{_words(question.tag)}{TAG_ANSWER_SEPARATOR}{_words(question.options[option])}"


def tag_answer_texts(domain: Domain) -> tuple[list[str], np.ndarray]:
    """All "tag # answer" texts of a domain and their [K, 2] (question, option) indices, in (q, r) order."""
    texts: list[str] = []
    slots: list[tuple[int, int]] = []
    for q, question in enumerate(domain.questions):
        for r in range(len(question.options)):
            texts.append(tag_answer_text(question, r))
            slots.append((q, r))
    return texts, np.asarray(slots, dtype=np.int64).reshape(-1, 2)


def positive_options(domain: Domain) -> np.ndarray:
    """[Q, R] bool: options that state that a label *has* something (binary "yes", every choice value but
    "something else")."""
    mask = domain.option_mask.copy()
    for q, question in enumerate(domain.questions):
        if question.kind == "binary":
            mask[q, 1:] = False
        elif question.options[-1] == SOMETHING_ELSE:  # says what the label is not
            mask[q, len(question.options) - 1] = False
    return mask


@dataclass(frozen=True)
class LabelTextConfig:
    """How label documents are written.

    ``max_tags``: most characteristic tags per label; ``min_prob``: a tag value must have p_hat at least
    this and at least ``group_ratio`` times the best value of its group (as CUB's own summaries do);
    ``answer_words``: words of the label's first answer to append (FAQ); ``use_label_text``: include the
    stored description (None = automatic, see the module docstring).
    """

    max_tags: int = 40
    min_prob: float = 0.2
    group_ratio: float = 0.6
    answer_words: int = 0
    use_label_text: bool | None = None


def uses_label_text(domain: Domain, config: LabelTextConfig) -> bool:
    """Whether the stored label descriptions may be used (False where they summarise the simulator's data)."""
    if config.use_label_text is not None:
        return config.use_label_text
    return "images_per_label" not in domain.meta


def characteristic_tags(domain: Domain, p_hat: np.ndarray, config: LabelTextConfig) -> list[list[tuple[int, int]]]:
    """Per label, the (question, option) pairs that describe it best, most distinctive first.

    ``p_hat`` [Q, R, Y] is the agent's answer distribution. A value qualifies if it is likely for the label
    (``min_prob``, ``group_ratio``) and more likely than for the average label; qualifying values are ranked
    by that lift p_hat[q, r, y] - mean_y' p_hat[q, r, y'], so tags true of nearly every label (most birds
    have black eyes) come last.
    """
    positive = positive_options(domain)
    p = np.where(positive[:, :, None], p_hat, 0.0)  # [Q, R, Y]
    lift = p - p.mean(axis=2, keepdims=True)
    group = domain.group_index
    n_groups = int(group.max()) + 1 if len(group) else 0
    # best positive value per (group, label), to keep only values close to it
    best = np.zeros((n_groups, p.shape[2]), dtype=np.float64)
    np.maximum.at(best, group, p.max(axis=1))
    keep = (
        (p >= config.min_prob) & (p >= config.group_ratio * best[group][:, None, :]) & (lift > 0) & positive[:, :, None]
    )
    result: list[list[tuple[int, int]]] = []
    for y in range(p.shape[2]):
        qs, rs = np.nonzero(keep[:, :, y])
        order = np.argsort(-lift[qs, rs, y], kind="stable")[: config.max_tags]
        result.append([(int(qs[i]), int(rs[i])) for i in order])
    return result


def label_parts(
    domain: Domain, p_hat: np.ndarray, config: LabelTextConfig | None = None
) -> list[tuple[list[str], list[str]]]:
    """Per label, (head texts, tag phrases): head = name, description (where fair), answer words."""
    config = config or LabelTextConfig()
    tags = characteristic_tags(domain, p_hat, config)
    with_text = uses_label_text(domain, config)
    result = []
    for y, label in enumerate(domain.labels):
        head = [label.name]
        if with_text and label.text and label.text.strip().lower() != label.name.strip().lower():
            head.append(label.text)
        if config.answer_words > 0 and label.answers:
            head.append(" ".join(label.answers[0].split()[: config.answer_words]))
        head = [" ".join(h.split()) for h in head if h.strip()]
        result.append((head, [option_phrase(domain.questions[q], r) for q, r in tags[y]]))
    return result


def label_segments(domain: Domain, p_hat: np.ndarray, config: LabelTextConfig | None = None) -> list[list[str]]:
    """Per label, the short texts that describe it (head texts, then tag phrases)."""
    return [head + tags for head, tags in label_parts(domain, p_hat, config)]


def label_documents(domain: Domain, p_hat: np.ndarray, config: LabelTextConfig | None = None) -> list[str]:
    """One text per label: "name . description . tag, tag, ..." (see the module docstring)."""
    return [" . ".join([*head, ", ".join(tags)] if tags else head) for head, tags in label_parts(domain, p_hat, config)]
