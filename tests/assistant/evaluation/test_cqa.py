"""Loaders (bundled coffee, SemEval / WikiQA fixtures, missing data) and the cQA protocol on tiny data."""

from __future__ import annotations

import json

import numpy as np
import pytest

from assistant.errors import ConfigError, DataMissingError
from assistant.evaluation.cqa.data import (
    BUNDLED_DIR,
    CQADataset,
    CQAThread,
    load_dataset,
    load_semeval,
    load_wikiqa,
    strip_html,
)
from assistant.evaluation.cqa.problems import RougeL, build_problems, cache_dir, split_indices, split_sentences
from assistant.paths import REPO_ROOT, shared_data_dir
from assistant.progress import run_job
from tests.support import HashingEncoder

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_bundled_coffee_loads_with_the_documented_counts():
    data = load_dataset("stackexchange-coffee")
    assert len(data.threads) == 225
    evaluable = data.evaluable
    assert len(evaluable) == 42
    first = next(t for t in data.threads if t.id == "1")
    assert first.question.startswith("How should I store whole bean coffee?")
    assert first.answers[first.best].startswith("In a cool, dark, dry, place")
    assert (BUNDLED_DIR / "stackexchange-coffee" / "PROVENANCE.md").is_file()
    assert (BUNDLED_DIR / "stackexchange-beer" / "PROVENANCE.md").is_file()


def test_strip_html_keeps_paragraphs_and_decodes_entities():
    assert strip_html("<p>Hot &amp; fresh</p>\n<p>Use <b>good</b> beans.</p>") == "Hot & fresh\nUse good beans."


def test_unknown_dataset_is_a_clear_error():
    with pytest.raises(ConfigError, match="unknown ranking data set"):
        load_dataset("tea")


def test_missing_evaluation_data_names_the_file(tmp_path):
    with pytest.raises(DataMissingError, match=r"SemEval2016-Task3-CQA-QL-dev\.xml.*--data-dir"):
        load_semeval(tmp_path)
    with pytest.raises(DataMissingError, match=r"WikiQA-dev\.tsv"):
        load_wikiqa(tmp_path)


def test_shared_data_dir_resolution(tmp_path, monkeypatch):
    monkeypatch.setenv("CLARIFY_SHARED_DATA", str(tmp_path / "env"))
    assert shared_data_dir(tmp_path / "explicit") == tmp_path / "explicit"
    assert shared_data_dir() == tmp_path / "env"
    monkeypatch.delenv("CLARIFY_SHARED_DATA")
    assert shared_data_dir().parts[-2:] == ("shared", "data")
    # next to the repository (the folder with pyproject.toml), wherever the module that asks lives
    assert (REPO_ROOT / "pyproject.toml").is_file() and shared_data_dir() == REPO_ROOT.parent / "shared" / "data"


SEMEVAL_XML = """<?xml version="1.0" encoding="utf-8"?>
<xml version="1.0">
<OrgQuestion ORGQ_ID="Q1"><OrgQSubject>s</OrgQSubject><OrgQBody>b</OrgQBody>
<Thread THREAD_SEQUENCE="Q1_R1">
 <RelQuestion RELQ_ID="Q1_R1" RELQ_RANKING_ORDER="1" RELQ_CATEGORY="c" RELQ_DATE="d" RELQ_USERID="u" RELQ_USERNAME="n" RELQ_RELEVANCE2ORGQ="Relevant">
  <RelQSubject>Best bank</RelQSubject><RelQBody>Which bank is good?</RelQBody></RelQuestion>
 <RelComment RELC_ID="c1" RELC_DATE="d" RELC_USERID="u" RELC_USERNAME="n" RELC_RELEVANCE2ORGQ="Bad" RELC_RELEVANCE2RELQ="Bad"><RelCText>lol</RelCText></RelComment>
 <RelComment RELC_ID="c2" RELC_DATE="d" RELC_USERID="u" RELC_USERNAME="n" RELC_RELEVANCE2ORGQ="Good" RELC_RELEVANCE2RELQ="Good"><RelCText>QNB is good.</RelCText></RelComment>
</Thread>
<Thread THREAD_SEQUENCE="Q1_R2" SubtaskA_Skip_Because_Same_As_RelQuestion_ID="Q0_R9">
 <RelQuestion RELQ_ID="Q1_R2" RELQ_RANKING_ORDER="2" RELQ_CATEGORY="c" RELQ_DATE="d" RELQ_USERID="u" RELQ_USERNAME="n" RELQ_RELEVANCE2ORGQ="Relevant">
  <RelQSubject>dup</RelQSubject><RelQBody>dup</RelQBody></RelQuestion>
</Thread>
</OrgQuestion>
</xml>
"""


def test_semeval_loader_on_a_fixture(tmp_path):
    folder = tmp_path / "semeval2016-task3-cqa"
    folder.mkdir()
    for name in ("SemEval2016-Task3-CQA-QL-dev.xml", "SemEval2016-Task3-CQA-QL-train-part2.xml"):
        (folder / name).write_text(SEMEVAL_XML.replace("Q1_R", "Q1_R" if "dev" in name else "Q2_R"))
    data = load_semeval(tmp_path)
    assert [t.id for t in data.threads] == ["Q1_R1", "Q2_R1"]
    thread = data.threads[0]
    assert thread.question == "Best bank\nWhich bank is good?" and thread.answers == ("lol", "QNB is good.")
    assert thread.best == 1 and thread.evaluable


def test_wikiqa_loader_on_a_fixture(tmp_path):
    folder = tmp_path / "wikiqa"
    folder.mkdir()
    header = "QuestionID\tQuestion\tDocumentID\tDocumentTitle\tSentenceID\tSentence\tLabel\n"
    rows = "Q1\thow tall\tD1\tT\tD1-0\tIt is old.\t0\nQ1\thow tall\tD1\tT\tD1-1\tIt is 300 m tall.\t1\n"
    (folder / "WikiQA-dev.tsv").write_text(header + rows)
    (folder / "WikiQA-test-gold.tsv").write_text(header + rows.replace("Q1", "Q2"))
    data = load_wikiqa(tmp_path)
    assert [(t.id, t.best, len(t.answers)) for t in data.threads] == [("Q1", 1, 2), ("Q2", 1, 2)]


def test_sentence_split_and_rouge():
    assert split_sentences("First one. Second one!\nThird") == ["First one.", "Second one!", "Third"]
    rouge = RougeL()
    assert rouge("the cat sat on the mat", "the cat sat on the mat") == pytest.approx(1.0)
    assert 0 < rouge("the cat sat on the mat", "a cat on a mat") < 1
    assert rouge("the cat", "") == 0.0


def test_split_indices_are_fixed_and_disjoint():
    a, b = split_indices(50), split_indices(50)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    together = np.concatenate([a["train"], a["dev"], a["test"]])
    assert sorted(together.tolist()) == list(range(50))
    assert (len(a["train"]), len(a["dev"]), len(a["test"])) == (20, 10, 20)


def _tiny_dataset():
    threads = [
        CQAThread("1", "How do I grind coffee beans?", ("Use a burr grinder for coffee.", "Buy ground coffee."), 0),
        CQAThread("2", "Which beans for espresso?", ("Dark roast beans work for espresso.", "Any beans."), 0),
        CQAThread("3", "How to store beans?", ("Keep beans in a dark jar.",), None),
    ]
    return CQADataset("tiny", tuple(threads), "memory")


def test_build_problems_follows_the_protocol_and_caches(hashing_encoder):
    problems = run_job(build_problems(_tiny_dataset(), n_candidates=4, encoder=hashing_encoder))
    assert len(problems) == 2
    first = problems[0]
    assert first.texts[:2] == ["Use a burr grinder for coffee.", "Buy ground coffee."]
    assert len(first.texts) == 4 and "Dark roast beans work for espresso." not in first.texts[:2]
    assert first.utilities[0] == 1.0 and first.best == 0 and np.all(first.utilities[1:] < 1.0)
    np.testing.assert_allclose(first.prior, first.embeddings @ first.question_embedding, rtol=1e-5)
    cached = sorted(p.name for p in cache_dir().iterdir())
    assert any("candidates-4" in name for name in cached) and any("embeddings" in name for name in cached)
    lists = json.loads(next(p for p in cache_dir().iterdir() if "candidates" in p.name).read_text())
    assert lists[0]["candidates"][:2] == [0, 1]
    again = run_job(build_problems(_tiny_dataset(), n_candidates=4, encoder=hashing_encoder))
    np.testing.assert_array_equal(again[1].utilities, problems[1].utilities)

    class CountingEncoder(HashingEncoder):
        def __init__(self) -> None:
            super().__init__()
            self.texts = 0

        def encode(self, texts):
            self.texts += len(texts)
            return super().encode(texts)

    first, second = CountingEncoder(), CountingEncoder()
    run_job(build_problems(_tiny_dataset(), n_candidates=4, encoder=first))
    cached_run = run_job(build_problems(_tiny_dataset(), n_candidates=4, encoder=second))
    assert first.texts > 0 and second.texts == 0  # the second run reads every embedding from the cache
    np.testing.assert_array_equal(cached_run[0].embeddings, problems[0].embeddings)


def test_build_problems_for_some_positions_builds_only_those(hashing_encoder):
    part = run_job(build_problems(_tiny_dataset(), n_candidates=4, encoder=hashing_encoder, positions=[1]))
    names = sorted(p.name for p in cache_dir().iterdir() if "candidates" in p.name)
    assert len(part) == 1 and len(names) == 1 and "-part-" in names[0]  # no list of all threads was made
    whole = run_job(build_problems(_tiny_dataset(), n_candidates=4, encoder=hashing_encoder))
    assert part[0].question == whole[1].question and part[0].texts == whole[1].texts
    np.testing.assert_array_equal(part[0].utilities, whole[1].utilities)
    # with the whole list cached, any positions are served from it
    again = run_job(build_problems(_tiny_dataset(), n_candidates=4, encoder=hashing_encoder, positions=[1, 0]))
    assert [p.question for p in again] == [whole[1].question, whole[0].question]
    with pytest.raises(ConfigError, match="evaluable threads"):
        run_job(build_problems(_tiny_dataset(), n_candidates=4, encoder=hashing_encoder, positions=[5]))
