"""A first question without the training stack (issue 33): on a prepared home, `clarify ask faq "..."` up to its
first question, and `clarify ask faq --resume N`, import no torch, scikit-learn, spaCy, transformers or sru.
Each runs in a fresh interpreter (this test process has them loaded already)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.imports import heavy_imports

pytestmark = pytest.mark.slow  # the prepared faq home (tests/conftest.py) takes about 25 s of CPU

HEAVY = ("torch", "sklearn", "spacy", "thinc", "transformers", "sru", "sentence_transformers")


def _run(home: Path, args: list[str], lines: str) -> tuple[dict, str]:
    return heavy_imports(args, HEAVY, home, lines)


def test_the_first_question_and_a_resumed_session_need_no_training_stack(prepared_faq_home):
    seen, printed = _run(prepared_faq_home, ["ask", "faq", "my email does not sync"], "q\n")
    assert seen["code"] == 0, printed
    assert "Q1:" in printed  # it did ask
    assert seen["heavy"] == []
    session = re.search(r"--resume (\d+)", printed)
    assert session, printed
    seen, printed = _run(prepared_faq_home, ["ask", "faq", "--resume", session.group(1)], "s\nq\n")  # one answer
    assert seen["code"] == 0, printed
    assert "Q2:" in printed
    assert seen["heavy"] == []


def test_the_shortlist_and_a_comparison_need_no_training_stack(prepared_faq_home):
    """Answering the first question ends the questions here: the shortlist embeds the new query with MiniLM
    (in numpy: ``ServingSentenceEncoder``), then the person rejects the first answer shown."""
    seen, printed = _run(prepared_faq_home, ["ask", "faq", "my email sync is broken"], "1\nn\nq\n")
    assert seen["code"] == 0, printed
    assert "Shortlist after 1 question" in printed
    assert seen["heavy"] == []


def test_the_probe_sees_the_training_stack(prepared_faq_home):
    """The check can fail: a command that trains imports torch (a refused `train` still loads its jobs)."""
    seen, _ = _run(prepared_faq_home, ["train", "encoder", "no-such-domain"], "")
    assert seen["code"] == 2 and "torch" in seen["heavy"]


def test_after_an_import_ask_answers_with_the_models_it_has_and_leaves_training_to_prepare(prepared_faq_home, tmp_path):
    """Issue 41: after an import of two queries `ask` retuned the coverage and out-of-scope rules, fine-tuned
    the encoder and three policies in the foreground, and asked its first question after 72 s."""
    import shutil

    from assistant.progress import run_job
    from crowdsourcing.importing import import_file
    from tests.support import clarify_home

    home = tmp_path / "home"
    shutil.copytree(prepared_faq_home, home)
    queries = tmp_path / "queries.csv"
    queries.write_text("label,query\nfaq-001,my archived mail is gone\nfaq-002,how to back up my gmail\n")
    with clarify_home(home):
        run_job(import_file(queries, "faq", "csv", "queries"))
    models = sorted((p.name, p.stat().st_mtime_ns) for p in (home / "models" / "faq").iterdir())
    seen, printed = _run(home, ["ask", "faq", "my archived mail is gone"], "q\n")
    assert seen["code"] == 0, printed
    assert "Q1:" in printed and seen["heavy"] == []  # nothing trained: no torch
    notes = [line for line in seen["stderr"].splitlines() if line.startswith("note: faq changed since")]
    assert len(notes) == 1 and notes[0].endswith("`clarify prepare faq` brings them up to date")
    after = sorted((p.name, p.stat().st_mtime_ns) for p in (home / "models" / "faq").iterdir())
    assert after == models  # not a model rewritten
