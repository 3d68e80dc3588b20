"""Commands load what they use (issue 33): `clarify --help`, `domain list`, `sessions`, `inbox`, `domain
questions` and a refused argument import no torch, transformers, spaCy or model registry. Each runs in a fresh
interpreter (this test process has them loaded already), on a home where the faq domain is built."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.progress import run_job
from crowdsourcing.adapters import build_domain

ROOT = Path(__file__).resolve().parents[3]
HEAVY = ("torch", "transformers", "spacy", "lemminflect", "sentence_transformers", "assistant.app.models.registry")

# Runs the command as `clarify` would, then reports the heavy modules it imported (a refusal exits with code 2).
PROBE = """
import json, sys
from assistant.cli.root import main
try:
    main(args=sys.argv[1:], prog_name="clarify")
except SystemExit as exit:
    code = exit.code
else:
    code = 0
heavy = [m for m in {heavy!r} if m in sys.modules]
print(json.dumps({{"code": code, "heavy": heavy}}), file=sys.stderr)
"""


def _imported(args: list[str]) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return json.loads(done.stderr.strip().splitlines()[-1])


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
    assert "assistant.app.models.registry" in seen["heavy"]
