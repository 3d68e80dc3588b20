"""The product's defaults, each said once: how many answers go to the comparisons, how many comparisons a
person is asked for at most, how sure the ranker must be, how many questions a conversation may ask.

The configs that use them (``assistant.app.session.session_records.SessionConfig``, the registry's clarifiers, the
evaluation setups) take these as their defaults and validate what a caller passes instead. The ranking library
(``assistant.ranking``) keeps its own defaults: it is usable without Clarify.
"""

from __future__ import annotations

SHORTLIST_SIZE = 5  # labels that go on to the comparisons (and whose mass the stop policy sees)
RANKING_BUDGET = 8  # comparisons a person is asked for at most
RANKING_THRESHOLD = 0.9  # the ranker stops when its best answer's chance reaches this
MAX_QUESTIONS = 10  # questions one conversation may ask (IC's limit)
MAX_TITLE_CHARS = 200  # a domain's title: it must fit the window's title bar and the domain picker

# The choices a command line or a page offers, said here so that they cost no import of the models (issue 33):
# the model registry and the evaluation re-export them.
CANDIDATE_SETTINGS = ("all", "captioned")  # choose among all labels, or only those with training queries
TEXT_PRIORS = ("sru", "minilm")  # the text prior inside the combined prior: IC's SRU encoder, or pooled MiniLM
VARIANTS = ("learned", "lambda_1")  # a stop policy's answer model: learned lambda, or crowd answers only
PACES = ("quick", "thorough")  # the cost of a question (see ``assistant.app.lifecycle.registry``)
# The systems an evaluation compares (``assistant.evaluation.clarifier``).
SYSTEMS = (
    "ours",
    "threshold",
    "fixed_turns",
    "lambda_1",
    "static_ig",
    "random",
    "no_interaction_neural",
    "no_interaction_bm25",
)
# The bundled domains the labels-only protocol runs on (``assistant.app.research.labels_only``).
PROTOCOL_DOMAINS = ("faq", "banking", "clinc")
# A desk's models learn from its sessions after this many new ones (``assistant.app.desk.learning``).
LEARN_AFTER_SESSIONS = 20
# A stop policy's training: iterations and policy-gradient estimator (``assistant.training.policy.PolicyConfig``).
POLICY_ITERATIONS = 1000
POLICY_ESTIMATOR = "expected"
