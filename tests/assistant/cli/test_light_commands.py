"""Commands load what they use (issue 33): `clarify --help`, `domain list`, `sessions`, `inbox`, `domain
questions` and a refused argument import no torch, transformers, spaCy or model registry. Each runs in a fresh
interpreter (this test process has them loaded already), on a home where the faq domain is built."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from assistant.progress import run_job
from assistant.sources.adapters import build_domain
from tests.support.imports import heavy_imports

HEAVY = ("torch", "transformers", "spacy", "lemminflect", "sentence_transformers", "assistant.app.lifecycle.registry")


def _imported(args: list[str]) -> dict:
    return heavy_imports(args, HEAVY)[0]


@pytest.fixture(scope="module")
def built_home(tmp_path_factory) -> Path:
    """A home with the bundled faq domain built (no models: these commands need none)."""
    home = tmp_path_factory.mktemp("light-home")
    old = os.environ.get("CLARIFY_HOME")
    os.environ["CLARIFY_HOME"] = str(home)
    try:
        run_job(build_domain("faq"))
    finally:
        if old is None:
            os.environ.pop("CLARIFY_HOME")
        else:
            os.environ["CLARIFY_HOME"] = old
    return home


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["--help"], 0),
        (["domain", "list"], 0),
        (["sessions", "faq"], 0),
        (["inbox", "faq"], 0),
        (["domain", "questions", "faq"], 0),
        (["ask", "faq", "--resume", "abc"], 2),
        (["evaluate", "faq", "--episodes", "0"], 2),
        (["sessions", "no-such-domain"], 2),
    ],
)
def test_a_light_command_imports_no_model_stack(built_home, monkeypatch, args, code):
    monkeypatch.setenv("CLARIFY_HOME", str(built_home))
    seen = _imported(args)
    assert seen["code"] == code
    assert seen["heavy"] == []


def test_the_probe_sees_a_heavy_import(built_home, monkeypatch):
    """The check can fail: a command that loads models shows them (`prepare` of an unknown domain still
    imports the jobs before it refuses)."""
    monkeypatch.setenv("CLARIFY_HOME", str(built_home))
    seen = _imported(["prepare", "no-such-domain"])
    assert "assistant.app.lifecycle.registry" in seen["heavy"]
