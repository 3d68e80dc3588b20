"""Loaders of the community-QA data sets used to evaluate the ranker, one per data set.

* ``stackexchange-beer`` and ``stackexchange-coffee`` are bundled (assistant/ranking/bundled/, CC BY-SA 3.0,
  see their PROVENANCE.md): Posts.xml dumps; the best answer of a question is its accepted answer.
* ``semeval`` (SemEval-2016 Task 3, Qatar Living) and ``wikiqa`` are evaluation-only: they are read from
  the shared data folder and never copied into the product. The folder is, in order: an explicit path,
  $CLARIFY_SHARED_DATA, or ../shared/data next to the repository. When it lacks the files,
  ``DataMissingError`` names the missing file and how to point Clarify at it.

Each loader returns a ``CQADataset``: threads (a question with its answers) and, for threads that can be
evaluated, the index of the best answer.
"""

from __future__ import annotations

import csv
import html
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from assistant.errors import ConfigError, DataMissingError
from assistant.paths import shared_data_dir

BUNDLED_DIR = Path(__file__).resolve().parent / "bundled"

DATASETS: dict[str, str] = {
    "beer": "beer.stackexchange.com questions with accepted answers (bundled)",
    "coffee": "coffee.stackexchange.com questions with accepted answers (bundled, small)",
    "semeval": "SemEval-2016 Task 3 Qatar Living threads, Good comments as best (shared data, evaluation only)",
    "wikiqa": "WikiQA answer sentence selection, correct sentence as best (shared data, evaluation only)",
}
ALIASES = {
    "stackexchange-beer": "beer",
    "stackexchange-coffee": "coffee",
    "semeval2016-task3-cqa": "semeval",
    "semeval2016": "semeval",
}


@dataclass(frozen=True)
class CQAThread:
    """A question with its own answers; ``best`` indexes the accepted / best-labelled answer (None = unknown)."""

    id: str
    question: str
    answers: tuple[str, ...]
    best: int | None = None

    @property
    def evaluable(self) -> bool:
        """Has a best answer and at least one other answer of its own."""
        return self.best is not None and len(self.answers) >= 2


@dataclass(frozen=True)
class CQADataset:
    name: str
    threads: tuple[CQAThread, ...]
    source: str

    @property
    def evaluable(self) -> list[CQAThread]:
        return [t for t in self.threads if t.evaluable]


def canonical_name(name: str) -> str:
    key = ALIASES.get(name.lower(), name.lower())
    if key not in DATASETS:
        raise ConfigError(f"unknown ranking data set {name!r}: use one of {', '.join(DATASETS)}")
    return key


def _require(path: Path, dataset: str) -> Path:
    if not path.is_file():
        raise DataMissingError(
            f"{dataset}: {path} not found; give the folder that holds it with --data-dir "
            "(or set CLARIFY_SHARED_DATA) - this data set is evaluation-only and not bundled"
        )
    return path


# ---- text clean-up ---------------------------------------------------------------------------------------
_TAG = re.compile(r"<[^>]+>")
_BLOCK = re.compile(r"</?(p|br|li|ul|ol|pre|blockquote|h\d)[^>]*>", re.IGNORECASE)
_SPACE = re.compile(r"[ \t\r\f\v]+")


def strip_html(text: str) -> str:
    """Plain text of a Stack Exchange body: block tags become line breaks, other tags vanish, entities decode."""
    text = _BLOCK.sub("\n", text or "")
    text = html.unescape(_TAG.sub(" ", text))
    lines = [_SPACE.sub(" ", line).strip() for line in text.splitlines()]
    return "\n".join(line for line in lines if line)


# ---- loaders ---------------------------------------------------------------------------------------------
def load_stackexchange(path: str | Path, name: str = "stackexchange") -> CQADataset:
    """Threads of a Stack Exchange Posts.xml: question = title + body, answers in post order."""
    path = Path(path)
    if not path.is_file():
        raise DataMissingError(f"{name}: {path} not found (a Stack Exchange Posts.xml dump)")
    questions: dict[str, dict] = {}
    answers: dict[str, list[tuple[str, str]]] = {}
    try:
        for _, elem in ET.iterparse(path, events=("end",)):
            if elem.tag != "row":
                continue
            a = elem.attrib
            if a.get("PostTypeId") == "1":
                questions[a["Id"]] = {
                    "text": (a.get("Title", "").strip() + "\n" + strip_html(a.get("Body", ""))).strip(),
                    "accepted": a.get("AcceptedAnswerId"),
                }
            elif a.get("PostTypeId") == "2" and a.get("ParentId"):
                answers.setdefault(a["ParentId"], []).append((a["Id"], strip_html(a.get("Body", ""))))
            elem.clear()
    except ET.ParseError as exc:
        raise ConfigError(f"{path}: not a valid Posts.xml ({exc})") from exc
    threads = []
    for qid, q in questions.items():
        own = [(aid, text) for aid, text in answers.get(qid, []) if text]
        ids = [aid for aid, _ in own]
        best = ids.index(q["accepted"]) if q["accepted"] in ids else None
        threads.append(CQAThread(qid, q["text"], tuple(text for _, text in own), best))
    return CQADataset(name, tuple(threads), str(path))


def load_bundled_stackexchange(site: str) -> CQADataset:
    """The bundled stackexchange-``site`` dump ('beer' or 'coffee')."""
    if site not in ("beer", "coffee"):
        raise ConfigError(f"no bundled Stack Exchange site {site!r}: use 'beer' or 'coffee'")
    return load_stackexchange(BUNDLED_DIR / f"stackexchange-{site}" / "Posts.xml", site)


SEMEVAL_FILES = ("SemEval2016-Task3-CQA-QL-dev.xml", "SemEval2016-Task3-CQA-QL-train-part2.xml")


def load_semeval(data_dir: str | Path | None = None) -> CQADataset:
    """SemEval-2016 Task 3 (subtask A): one thread per related question with its 10 comments.

    The best answer is the first comment labelled Good; threads marked as repeating another related
    question (SubtaskA_Skip_Because_Same_As_RelQuestion_ID) are skipped, as the task prescribes.
    """
    folder = shared_data_dir(data_dir) / "semeval2016-task3-cqa"
    threads: list[CQAThread] = []
    seen: set[str] = set()
    for filename in SEMEVAL_FILES:
        path = _require(folder / filename, "semeval")
        root = ET.parse(path).getroot()
        for thread in root.iter("Thread"):
            if thread.get("SubtaskA_Skip_Because_Same_As_RelQuestion_ID"):
                continue
            rel = thread.find("RelQuestion")
            if rel is None or rel.get("RELQ_ID") in seen:
                continue
            seen.add(rel.get("RELQ_ID", ""))
            subject = (rel.findtext("RelQSubject") or "").strip()
            body = (rel.findtext("RelQBody") or "").strip()
            texts, labels = [], []
            for comment in thread.findall("RelComment"):
                text = (comment.findtext("RelCText") or "").strip()
                if text:
                    texts.append(text)
                    labels.append(comment.get("RELC_RELEVANCE2RELQ"))
            best = labels.index("Good") if "Good" in labels else None
            threads.append(CQAThread(rel.get("RELQ_ID", ""), f"{subject}\n{body}".strip(), tuple(texts), best))
    return CQADataset("semeval", tuple(threads), str(folder))


WIKIQA_FILES = ("WikiQA-dev.tsv", "WikiQA-test-gold.tsv")


def load_wikiqa(data_dir: str | Path | None = None) -> CQADataset:
    """WikiQA dev + test: one thread per question, its candidate sentences as answers, the first correct one best."""
    folder = shared_data_dir(data_dir) / "wikiqa"
    threads: list[CQAThread] = []
    for filename in WIKIQA_FILES:
        path = _require(folder / filename, "wikiqa")
        grouped: dict[str, dict] = {}
        with path.open(encoding="utf-8", newline="") as f:
            for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
                entry = grouped.setdefault(row["QuestionID"], {"q": row["Question"], "s": [], "y": []})
                entry["s"].append(row["Sentence"])
                entry["y"].append(row["Label"] == "1")
        for qid, e in grouped.items():
            best = e["y"].index(True) if any(e["y"]) else None
            threads.append(CQAThread(qid, e["q"], tuple(e["s"]), best))
    return CQADataset("wikiqa", tuple(threads), str(folder))


def check_dataset(name: str, data_dir: str | Path | None = None) -> None:
    """Raise DataMissingError when a file of data set ``name`` is absent (without reading it)."""
    key = canonical_name(name)
    if key == "semeval":
        for filename in SEMEVAL_FILES:
            _require(shared_data_dir(data_dir) / "semeval2016-task3-cqa" / filename, "semeval")
    elif key == "wikiqa":
        for filename in WIKIQA_FILES:
            _require(shared_data_dir(data_dir) / "wikiqa" / filename, "wikiqa")


def load_dataset(name: str, data_dir: str | Path | None = None) -> CQADataset:
    """Load ``name`` (beer, coffee, semeval, wikiqa); ``data_dir`` is the shared data folder for the last two."""
    key = canonical_name(name)
    if key in ("beer", "coffee"):
        return load_bundled_stackexchange(key)
    if key == "semeval":
        return load_semeval(data_dir)
    return load_wikiqa(data_dir)
