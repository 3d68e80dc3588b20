"""The tests' stand-ins are held to the Protocols at the seams they stand in for.

mypy checks the code's side (``ModelRegistry`` wherever a Session starts with one; every encoder handed to
the comparison phase). The stand-ins live in the tests, which mypy does not check: here each member of the
Protocol is looked up on the stand-in, with the parameters and the type the Protocol names.
"""

from __future__ import annotations

import inspect
import typing

import numpy as np

from assistant.app.session.domain_models import DomainModels
from assistant.clarification.clarifier import Clarifier
from assistant.store import Domain
from assistant.text.encoder import TextEncoder
from tests.support import HashingEncoder, WordHashEncoder
from tests.support.tiny import TinyAgents


def _members(protocol: type) -> dict[str, object]:
    """The Protocol's own members: properties and methods (Python 3.11 has no typing.get_protocol_members)."""
    return {name: value for name, value in vars(protocol).items() if not name.startswith("_")}


def test_tiny_agents_has_every_member_of_domain_models_with_its_type():
    fake = TinyAgents()
    assert isinstance(fake, DomainModels)
    members = _members(DomainModels)
    assert set(members) == {"name", "domain", "text_prior", "default_pace", "text_encoder", "clarifier"}
    for name, member in members.items():
        if isinstance(member, property):
            wanted = typing.get_type_hints(member.fget)["return"]
            value = getattr(fake, name)
            assert isinstance(value, wanted), f"TinyAgents.{name} is a {type(value).__name__}, not a {wanted}"
    assert isinstance(fake.domain, Domain)


def test_tiny_agents_clarifier_takes_the_protocols_parameters():
    fake = TinyAgents()
    wanted = inspect.signature(DomainModels.clarifier)
    got = inspect.signature(fake.clarifier)
    for name, parameter in wanted.parameters.items():
        if name == "self":
            continue
        assert name in got.parameters, f"TinyAgents.clarifier has no parameter {name!r}"
        assert got.parameters[name].default == parameter.default, f"{name!r} defaults differ"
    clarifier = fake.clarifier(candidates="all", pace=None, shortlist_size=3)
    assert isinstance(clarifier, Clarifier)
    assert clarifier.config.shortlist_size == 3


def test_the_tests_text_encoders_give_one_row_per_text():
    for encoder in (WordHashEncoder(), HashingEncoder(dim=8)):
        assert isinstance(encoder, TextEncoder)
        vectors = encoder.encode(["red bird", "a black crow", "gull"])
        assert isinstance(vectors, np.ndarray)
        assert vectors.shape[0] == 3 and vectors.ndim == 2
        assert not np.allclose(vectors[0], vectors[1])


def test_the_registry_has_every_member_of_model_context_with_its_parameters():
    """The lifecycle's seam (issue 38: it was ``Any``): mypy checks the calls; here the members themselves."""
    from assistant.app.lifecycle.model_context import ModelContext
    from assistant.app.lifecycle.registry import ModelRegistry

    members = _members(ModelContext)
    assert {"encoder", "load_policy", "stop_settings", "combined_prior"} <= set(members)
    for name, member in members.items():
        # the registry's own attributes (name, text_prior, domain) are set in __init__
        if name in ("name", "text_prior", "domain"):
            assert f"self.{name} = " in inspect.getsource(ModelRegistry.__init__), f"ModelRegistry.{name}"
            continue
        got = inspect.getattr_static(ModelRegistry, name)
        assert isinstance(got, property) == isinstance(member, property), f"ModelRegistry.{name}"
        if not isinstance(member, property):
            wanted = inspect.signature(member).parameters
            assert list(inspect.signature(got).parameters) == list(wanted), f"ModelRegistry.{name}'s parameters"
