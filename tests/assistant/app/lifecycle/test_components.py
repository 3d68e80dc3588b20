"""The model kinds as components (assistant.app.lifecycle.components): every name maps to one kind, and
``missing`` loops over the table in prepare's order, a model missing when the one it is fitted on is."""

from __future__ import annotations

import pytest

from assistant.app.lifecycle.components import COMPONENTS, component_of, missing_models, split_name
from assistant.app.lifecycle.model_jobs import TRAIN_JOBS
from assistant.errors import ModelMissingError


class Shelf:
    """A registry's face as the components read it, over a set of models present on a shelf."""

    text_prior = "sru"
    has_out_of_scope_queries = True

    def __init__(self, present: set[str]) -> None:
        self.present = present

    @property
    def encoder(self):
        if "encoder" not in self.present:
            raise ModelMissingError("no encoder")
        return object()

    def encoder_hash(self) -> str:
        return "enc"

    def mention_weight(self) -> float:
        if "prior" not in self.present:
            raise ModelMissingError("no prior")
        return 1.0

    def required_policies(self, settings):
        return [(c, v, p) for c in settings for v in ("learned", "lambda_1") for p in ("quick", "thorough")]

    def load_policy(self, c, v, p):
        if f"policy-{c}-{v}-{p}" not in self.present:
            raise ModelMissingError("no policy")

    def policy_checkpoint(self, c, v, p):
        return None, f"{c}{v}{p}"

    def stop_key(self, c, p) -> str:
        return f"{c}/{p}"

    def stop_settings(self) -> dict:
        return {k.split("-", 1)[1].replace("-", "/") + ("/out_of_scope" if k.startswith("oos") else ""): {}
                for k in self.present if k.startswith(("coverage-", "oos-"))}  # fmt: skip


EVERYTHING = [
    "encoder",
    "prior",
    *[f"policy-all-{v}-{p}" for v in ("learned", "lambda_1") for p in ("quick", "thorough")],
    "coverage-all-quick",
    "coverage-all-thorough",
    "oos-all-quick",
    "oos-all-thorough",
]


def test_every_kind_has_a_train_job_and_every_name_one_kind():
    assert [c.kind for c in COMPONENTS] == ["encoder", "prior", "policy", "coverage", "oos"]
    assert set(TRAIN_JOBS) == {c.kind for c in COMPONENTS}
    assert split_name("policy-all-lambda_1-quick") == ("policy", ["all", "lambda_1", "quick"])
    assert component_of("oos-captioned-thorough").kind == "oos" and split_name("prior") == ("prior", [])
    with pytest.raises(KeyError, match="encoder, prior, policy, coverage, oos"):
        component_of("ranker-all")


def test_missing_lists_the_kinds_in_prepares_order_and_follows_what_is_upstream():
    assert missing_models(Shelf(set()), ("all",)) == EVERYTHING
    assert missing_models(Shelf(set(EVERYTHING)), ("all",)) == []
    # no encoder: everything fitted on it is missing, even where its file is on the shelf
    assert missing_models(Shelf(set(EVERYTHING) - {"encoder"}), ("all",)) == EVERYTHING
    # a policy retrained: the rules tuned for it go too, the other pace's stay
    assert missing_models(Shelf(set(EVERYTHING) - {"policy-all-learned-quick"}), ("all",)) == [
        "policy-all-learned-quick",
        "coverage-all-quick",
        "oos-all-quick",
    ]
    shelf = Shelf(set(EVERYTHING) - {"coverage-all-thorough"})
    assert missing_models(shelf, ("all",)) == ["coverage-all-thorough", "oos-all-thorough"]
    shelf.text_prior, shelf.has_out_of_scope_queries = "minilm", False  # no encoder to train, no oos queries
    assert missing_models(shelf, ("all",)) == ["coverage-all-thorough"]
