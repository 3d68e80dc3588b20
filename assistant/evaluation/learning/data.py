"""DASL's answer-selection problems: one question, its candidate answers, graded relevance, embeddings.

Built from the community-QA loaders and the problem builder of the ranking package (candidates, MiniLM
embeddings, both cached under $CLARIFY_HOME/cache/ranking/):

- semeval: the thread's own comments; grades Good = 2, PotentiallyUseful = 1, Bad = 0 (subtask A labels);
- wikiqa: the question's candidate sentences; grade 1 for a correct sentence;
- beer, coffee: the question's own answers plus answers of other questions retrieved by BM25, up to
  ``candidates`` in all; grade 1 for the accepted answer.

The shared loaders keep only the first best answer of a thread; MRR here counts *every* best-graded
answer as correct (SemEval's official scorer does the same for Good comments), so the grades of SemEval
and WikiQA are read back from the same files here.

Splits (DASL): 80 / 10 / 10 of the questions into the pool to label (train), dev and test, drawn per
evaluation seed.
"""

from __future__ import annotations

import csv
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from assistant.errors import ConfigError
from assistant.evaluation.cqa.data import SEMEVAL_FILES, WIKIQA_FILES, canonical_name, load_dataset, shared_data_dir
from assistant.evaluation.cqa.problems import build_problems
from assistant.learning.problems import LearningProblem
from assistant.progress import Job

SEMEVAL_GRADES = {"Good": 2, "PotentiallyUseful": 1, "Bad": 0}


def _semeval_grades(data_dir: str | Path | None) -> dict[str, list[int]]:
    """RELQ_ID -> grade of each non-empty comment, in the order (and with the skips) of ``load_semeval``."""
    folder = shared_data_dir(data_dir) / "semeval2016-task3-cqa"
    grades: dict[str, list[int]] = {}
    for filename in SEMEVAL_FILES:
        root = ET.parse(folder / filename).getroot()
        for thread in root.iter("Thread"):
            rel = thread.find("RelQuestion")
            if thread.get("SubtaskA_Skip_Because_Same_As_RelQuestion_ID") or rel is None:
                continue
            key = rel.get("RELQ_ID", "")
            if key in grades:
                continue
            grades[key] = [
                SEMEVAL_GRADES.get(c.get("RELC_RELEVANCE2RELQ", ""), 0)
                for c in thread.findall("RelComment")
                if (c.findtext("RelCText") or "").strip()
            ]
    return grades


def _wikiqa_grades(data_dir: str | Path | None) -> dict[str, list[int]]:
    folder = shared_data_dir(data_dir) / "wikiqa"
    grades: dict[str, list[int]] = {}
    for filename in WIKIQA_FILES:
        file_grades: dict[str, list[int]] = {}
        with (folder / filename).open(encoding="utf-8", newline="") as f:
            for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
                file_grades.setdefault(row["QuestionID"], []).append(int(row["Label"] == "1"))
        grades.update(file_grades)
    return grades


def load_problems(
    dataset: str,
    data_dir: str | Path | None = None,
    candidates: int = 20,
    encoder=None,
    max_questions: int | None = None,
) -> Job[list[LearningProblem]]:
    """The answer-selection problems of ``dataset`` (semeval, wikiqa, beer, coffee); yields Progress.

    ``candidates`` applies to beer and coffee (own answers + BM25 negatives); semeval and wikiqa keep each
    question's own candidates. ``encoder``: sentence encoder (default MiniLM). ``max_questions``: only the
    first that many evaluable questions (a quick benchmark)."""
    name = canonical_name(dataset)
    data = load_dataset(name, data_dir)
    own_only = name in ("semeval", "wikiqa")
    positions = None if max_questions is None else list(range(min(max_questions, len(data.evaluable))))
    # build_problems pads a question's own answers with retrieved ones up to n_candidates; every evaluable
    # question has at least 2 answers of its own, so n_candidates=2 keeps exactly its own.
    problems = yield from build_problems(
        data, n_candidates=2 if own_only else candidates, encoder=encoder, positions=positions
    )
    graded = _semeval_grades(data_dir) if name == "semeval" else _wikiqa_grades(data_dir) if own_only else {}
    out = []
    for p in problems:
        if own_only:
            grades = np.asarray(graded.get(p.question_id, []), dtype=np.int64)
            if len(grades) != len(p.texts):
                raise ConfigError(f"{name}: the grades of question {p.question_id} do not match its answers")
        else:
            grades = np.zeros(len(p.texts), dtype=np.int64)
            grades[p.best] = 1
        out.append(
            LearningProblem(
                p.question_id,
                p.question,
                tuple(p.texts),
                grades,
                np.asarray(p.question_embedding, dtype=np.float32),
                np.asarray(p.embeddings, dtype=np.float32),
            )
        )
    return out
