"""Document sets to summarise, one loader per source; each fails with a message naming the missing file.

* ``load_folder``: every .txt file of a folder (sentences split by pysbd);
* ``from_texts``: pasted texts (the GUI, the FAQ answers);
* ``load_opinosis`` / ``load_multiling``: the bundled Opinosis topics and MultiLing 2011 sample
  (assistant/summarization/bundled/, Apache-2.0, see their PROVENANCE.md);
* ``load_duc``: DUC 2001/2002/2004 from the shared data folder (evaluation only, never bundled; pre-split one
  sentence per line; the references are the ~100-word model summaries).

A ``Topic`` is documents + optional question + reference summaries (empty for a person's own documents).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from assistant.errors import ConfigError, DataMissingError
from assistant.paths import shared_data_dir
from assistant.summarization.text import Document
from assistant.text.sentences import split_sentences

BUNDLED_DIR = Path(__file__).resolve().parent / "bundled"
OPINOSIS_DIR = BUNDLED_DIR / "opinosis"
MULTILING_DIR = BUNDLED_DIR / "multiling2011-sample"
DUC_YEARS = {"duc2001": "DUC2001", "duc2002": "DUC2002", "duc2004": "DUC2004"}
MAX_FILE_BYTES = 5_000_000


@dataclass
class Topic:
    """Documents to summarise, an optional question, and reference summaries (each a list of sentences)."""

    id: str
    documents: list[Document]
    question: str = ""
    references: list[list[str]] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "question": self.question,
            "documents": [{"name": d.name, "sentences": list(d.sentences)} for d in self.documents],
            "references": self.references,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Topic:
        try:
            docs = [Document(d["name"], tuple(d["sentences"])) for d in data["documents"]]
            return cls(str(data["id"]), docs, str(data.get("question") or ""), list(data.get("references") or []))
        except (KeyError, TypeError) as exc:
            raise ConfigError(f"saved topic is incomplete or malformed ({exc!r})") from exc


def from_texts(
    texts: Sequence[str], names: Sequence[str] | None = None, question: str = "", id: str = "pasted"
) -> Topic:
    """A topic from plain texts (pasted, or a FAQ's answers); empty texts are skipped."""
    names = list(names) if names is not None else [f"text {i + 1}" for i in range(len(texts))]
    if len(names) != len(texts):
        raise ConfigError(f"{len(texts)} texts but {len(names)} names")
    docs = [Document(n, tuple(split_sentences(t))) for n, t in zip(names, texts)]
    docs = [d for d in docs if d.sentences]
    if not docs:
        raise ConfigError("nothing to summarise: every text is empty")
    return Topic(id, docs, question.strip())


def _read_text(path: Path) -> str:
    if path.stat().st_size > MAX_FILE_BYTES:
        raise ConfigError(f"{path} is larger than {MAX_FILE_BYTES // 1_000_000} MB: split it into several files")
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def load_files(paths: Sequence[str | Path], question: str = "") -> Topic:
    """A topic from text files (a folder stands for its .txt files)."""
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(p.glob("*.txt"))
            if not found:
                raise DataMissingError(f"{p} contains no .txt file: put the documents there as plain-text .txt files")
            files.extend(found)
        elif p.is_file():
            files.append(p)
        else:
            raise DataMissingError(f"{p} not found: give text files or a folder of .txt files")
    if not files:
        raise ConfigError("no documents given: name text files or a folder of .txt files")
    topic = from_texts([_read_text(f) for f in files], [f.name for f in files], question, id=files[0].parent.name)
    return topic


def load_folder(path: str | Path, question: str = "") -> Topic:
    return load_files([path], question)


# ---- bundled -------------------------------------------------------------------------------------------
def opinosis_topics() -> list[str]:
    folder = OPINOSIS_DIR / "topics"
    if not folder.is_dir():
        raise DataMissingError(f"{folder} not found: the bundled Opinosis data is missing (reinstall Clarify)")
    return sorted(p.name.removesuffix(".txt.data") for p in folder.glob("*.txt.data"))


def load_opinosis(name: str) -> Topic:
    """One Opinosis topic: its review sentences as one document, its human summaries as references."""
    path = OPINOSIS_DIR / "topics" / f"{name}.txt.data"
    if not path.is_file():
        raise DataMissingError(
            f"{path} not found: choose one of the Opinosis topics ({', '.join(opinosis_topics()[:3])}, ...)"
        )
    lines = [line.strip() for line in path.read_text(encoding="latin-1").splitlines()]
    refs = []
    for gold in sorted((OPINOSIS_DIR / "summaries-gold" / name).glob("*.gold")):
        refs.append(split_sentences(gold.read_text(encoding="latin-1")))
    return Topic(f"opinosis/{name}", [Document(name, tuple(x for x in lines if x))], "", refs)


def _jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        raise DataMissingError(f"{path} not found: the bundled MultiLing sample is missing (reinstall Clarify)")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def multiling_clusters() -> list[str]:
    return [row["instance_id"] for row in _jsonl(MULTILING_DIR / "documents.jsonl")]


def load_multiling(cluster: str) -> Topic:
    """One MultiLing 2011 cluster (10 WikiNews articles); its human reference summaries as references."""
    rows = {r["instance_id"]: r for r in _jsonl(MULTILING_DIR / "documents.jsonl")}
    if cluster not in rows:
        raise ConfigError(f"no MultiLing cluster {cluster!r}: use one of {', '.join(rows)}")
    docs = []
    for d in rows[cluster]["documents"]:
        sentences = [s for paragraph in d["text"] for s in split_sentences(paragraph)]
        docs.append(Document(d["filename"], tuple(sentences)))
    refs = [
        [s for text in r["summary"]["text"] for s in split_sentences(text)]
        for r in _jsonl(MULTILING_DIR / "summaries.jsonl")
        if r["instance_id"] == cluster and r["summarizer_type"] == "reference"
    ]
    return Topic(f"multiling/{cluster}", docs, "", refs)


def bundled_clusters() -> list[str]:
    """Every bundled cluster as 'opinosis/NAME' or 'multiling/ID'."""
    return [f"multiling/{c}" for c in multiling_clusters()] + [f"opinosis/{t}" for t in opinosis_topics()]


def load_bundled(name: str) -> Topic:
    source, _, item = name.partition("/")
    if source == "opinosis":
        return load_opinosis(item)
    if source == "multiling":
        return load_multiling(item)
    raise ConfigError(f"unknown bundled cluster {name!r}: use opinosis/TOPIC or multiling/M000..M002")


# ---- DUC (evaluation only) ------------------------------------------------------------------------------
def duc_dir(dataset: str, data_dir: str | Path | None = None) -> Path:
    key = dataset.lower()
    if key not in DUC_YEARS:
        raise ConfigError(f"unknown DUC data set {dataset!r}: use one of {', '.join(DUC_YEARS)}")
    root = shared_data_dir(data_dir) / "duc" / DUC_YEARS[key]
    if not root.is_dir():
        raise DataMissingError(
            f"{dataset}: {root} not found; give the shared data folder with --data-dir (or set CLARIFY_SHARED_DATA) - "
            "DUC is evaluation-only and not bundled"
        )
    return root


def _lines(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]


def load_duc(dataset: str, data_dir: str | Path | None = None) -> list[Topic]:
    """Every topic of DUC 2001, 2002 or 2004: documents one sentence per line, the 100-word model summaries."""
    root = duc_dir(dataset, data_dir)
    topics = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        docs_dir, sums_dir = folder / "docs", folder / "summaries"
        if not docs_dir.is_dir() or not sums_dir.is_dir():
            raise DataMissingError(f"{folder}: expected the folders docs/ and summaries/")
        docs = [Document(p.name, tuple(_lines(p))) for p in sorted(docs_dir.iterdir()) if p.is_file()]
        refs = [_lines(p) for p in sorted(sums_dir.iterdir()) if ".M.100." in p.name]
        if not refs:
            raise DataMissingError(f"{sums_dir}: no 100-word model summary (*.M.100.*)")
        topics.append(Topic(folder.name, docs, "", refs))
    if not topics:
        raise DataMissingError(f"{root} holds no topic folder")
    return topics
