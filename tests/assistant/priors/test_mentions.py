"""Tag mentions in queries and the combined prior (labels without training queries still rank)."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.priors.base import log_softmax
from assistant.priors.combined import CombinedPrior, fit_mention_weight
from assistant.priors.mentions import MentionDetector
from assistant.store import BINARY_OPTIONS, Domain, Label, Question


def bird_domain() -> Domain:
    questions = [
        Question("has_crown_color::red", "Is its crown red?", "binary", "has_crown_color", BINARY_OPTIONS),
        Question("has_wing_color::black", "Are its wings black?", "binary", "has_wing_color", BINARY_OPTIONS),
        Question("has_wing_color::white", "Are its wings white?", "binary", "has_wing_color", BINARY_OPTIONS),
        Question("has_bill_shape::cone", "Is its bill cone-shaped?", "binary", "has_bill_shape", BINARY_OPTIONS),
        Question("has_head_pattern::crested", "Is it crested?", "binary", "has_head_pattern", BINARY_OPTIONS),
        Question(
            "has_size",
            "How big?",
            "choice",
            "has_size",
            ("very small (3 - 5 in)", "small (5 - 9 in)", "large (16 - 32 in)"),
        ),
        Question("has_breast_pattern", "Breast?", "choice", "has_breast_pattern", ("solid", "spotted", "striped")),
    ]
    counts = np.ones((len(questions), 3, 3), dtype=np.float32)
    counts[:, 2, :] = 0  # binary questions have two options
    counts[5:, 2, :] = 1
    # label 0 (cardinal): red crested crown, cone bill, small; label 1: black and white, large; label 2: unknown
    counts[0, 0] = [9, 0, 1]
    counts[0, 1] = [1, 10, 9]
    counts[3, 0] = [9, 1, 1]
    counts[3, 1] = [1, 9, 9]
    counts[4, 0] = [9, 1, 1]
    counts[4, 1] = [1, 9, 9]
    counts[5] = [[1, 0, 1], [9, 1, 1], [0, 9, 1]]
    labels = [Label("c", "Cardinal"), Label("m", "Magpie"), Label("u", "Unseen")]
    return Domain(
        "b",
        "b",
        labels,
        questions,
        counts,
        query_texts=["red crest", "black and white"],
        query_labels=np.array([0, 1]),
        query_splits=np.array(["train", "train"]),
    )


def detected(detector, domain, text):
    return {
        (domain.questions[m.question].tag, domain.questions[m.question].options[m.option])
        for m in detector.detect(text)
    }


def test_detects_value_part_phrases_and_choices():
    domain = bird_domain()
    detector = MentionDetector.from_domain(domain)
    assert detected(detector, domain, "small bird, red crest") == {
        ("has_crown_color::red", "yes"),
        ("has_head_pattern::crested", "yes"),
        ("has_size", "small (5 - 9 in)"),
    }
    assert detected(detector, domain, "a very small bird with black and white wings and a cone shaped beak") == {
        ("has_size", "very small (3 - 5 in)"),
        ("has_wing_color::black", "yes"),
        ("has_wing_color::white", "yes"),
        ("has_bill_shape::cone", "yes"),
    }
    assert detected(detector, domain, "the crown is red and the breast is striped") >= {("has_crown_color::red", "yes")}
    assert ("has_breast_pattern", "striped") in detected(detector, domain, "it has a striped breast")


def test_does_not_attach_values_to_the_wrong_part():
    domain = bird_domain()
    detector = MentionDetector.from_domain(domain)
    # "red" describes the bill here, not the crown; "white" is far from "wings"
    assert ("has_crown_color::red", "yes") not in detected(detector, domain, "red bill and a brown crown")
    assert ("has_wing_color::white", "yes") not in detected(detector, domain, "white belly, brown body and gray wings")
    assert detector.detect("nothing to see here") == []


def test_phrase_tags_match_in_a_row():
    questions = [Question("international roaming", "Roaming?", "binary", "international roaming", BINARY_OPTIONS)]
    domain = Domain("f", "f", [Label("a", "A")], questions, np.ones((1, 2, 1), dtype=np.float32))
    detector = MentionDetector.from_domain(domain)
    assert len(detector.detect("Is International Roaming expensive?")) == 1
    assert detector.detect("roaming internationally") == []


class ZeroText:
    name = "zero"

    def scores(self, texts):
        return np.zeros((len(texts), 3), dtype=np.float32)


def test_combined_prior_ranks_labels_without_queries_by_mentions():
    domain = bird_domain()
    detector = MentionDetector.from_domain(domain)
    log_answers = np.log(np.maximum(domain.p_hat(1.0), 1e-12))
    seen = np.array([True, True, False])
    prior = CombinedPrior(ZeroText(), detector, log_answers, seen, beta=1.0)
    p = np.exp(prior.scores(["a small bird with a red crest and a cone bill"])[0])
    assert p.sum() == pytest.approx(1.0, abs=1e-5)
    assert np.argmax(p) == 0
    # nothing mentioned: every label equally likely, whether or not it had training queries
    np.testing.assert_allclose(np.exp(prior.scores(["hello"])[0]), [1 / 3] * 3, rtol=1e-5)
    # when every label is seen, the text scores and the evidence simply add up
    everyone = CombinedPrior(ZeroText(), detector, log_answers, np.ones(3, bool), beta=0.5)
    expected = 0.5 * detector.evidence(["red crest"], log_answers)[0]
    np.testing.assert_allclose(log_softmax(everyone.scores(["red crest"])[0]), log_softmax(expected), rtol=1e-5)


def test_mention_weight_is_fitted_on_held_out_likelihood():
    domain = bird_domain()
    detector = MentionDetector.from_domain(domain)
    log_answers = np.log(np.maximum(domain.p_hat(1.0), 1e-12))

    class CountingText(ZeroText):
        calls = 0

        def scores(self, texts):
            CountingText.calls += 1
            return super().scores(texts)

    prior = CombinedPrior(CountingText(), detector, log_answers, np.ones(3, bool), 0.0)
    beta, nll = fit_mention_weight(prior, ["red crest", "cone bill small"], np.array([0, 0]))
    assert beta > 0 and nll[beta] < nll[0.0]
    assert CountingText.calls == 1  # the text prior scores the queries once, not once per beta
    # recombining gives what a prior built with that beta scores
    texts = ["red crest", "cone bill small"]
    np.testing.assert_allclose(
        prior.with_beta(beta).combine(prior.text_prior.scores(texts), detector.evidence(texts, log_answers)),
        CombinedPrior(ZeroText(), detector, log_answers, np.ones(3, bool), beta).scores(texts),
        rtol=1e-6,
    )


def test_questions_the_query_answered_are_not_asked_again():
    from assistant.clarification.answer_model import AnswerModel
    from assistant.clarification.clarifier import Clarifier
    from assistant.clarification.stopping import FixedTurns

    domain = bird_domain()
    detector = MentionDetector.from_domain(domain)
    log_answers = np.log(np.maximum(domain.p_hat(1.0), 1e-12))
    prior = CombinedPrior(ZeroText(), detector, log_answers, np.array([True, True, False]), beta=1.0)
    model = AnswerModel(domain.p_hat(1.0), domain.option_mask)
    conversation = Clarifier(domain, prior, model, FixedTurns(10)).start("small bird with a red crest")
    crown, crested, size = (
        domain.question_index(t) for t in ("has_crown_color::red", "has_head_pattern::crested", "has_size")
    )
    assert {q for q, _ in conversation.understood} == {crown, crested, size}
    assert not conversation.available[[crown, crested, size]].any()
    assert conversation.turn == 0
    asked = []
    while (q := conversation.next_question()) is not None:
        conversation.answer(q, 0)
        asked.append(q)
    assert not {crown, crested, size} & set(asked)
