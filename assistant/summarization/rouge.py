"""ROUGE: rouge-score for ROUGE-1/2/L, rouge-metric for ROUGE-SU4, and BO's gold utility (eq. 8).

These are *not* Perl ROUGE-1.5.5 figures: both libraries re-implement it (rouge-score tokenises, lowercases
and Porter-stems; ROUGE-SU4 is rouge-metric's ``PyRouge(rouge_su=True, skip_gap=4)`` fed rouge-score's
tokens), so numbers differ slightly from the papers' Perl ones.

``RougeScorer`` scores one summary with the libraries (a few ms). The evaluation needs ROUGE of 10,000
candidate summaries per topic and reference; ``CandidateRouge`` computes the same counts vectorised (one
numpy pass over all candidates' token streams, n-grams crossing sentence boundaries as the libraries count
them) and the tests check that its figures equal the libraries' on sampled candidates.

Gold utility for the simulated user (BO eq. 8, after Gao et al. 2018): R1/0.47 + R2/0.22 + RSU4/0.18 with
recall scores against one reference summary, min-max normalised to [0, 10] over the candidates.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from assistant.summarization.text import tokenize

GOLD_WEIGHTS = {"rouge1": 0.47, "rouge2": 0.22, "rougesu4": 0.18}
SKIP_GAP = 4


@lru_cache(maxsize=1)
def _rouge_score():
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeLsum"], use_stemmer=True)


@lru_cache(maxsize=1)
def _rouge_su4():
    from rouge_metric import PyRouge

    return PyRouge(rouge_n=(), rouge_l=False, rouge_su=True, skip_gap=SKIP_GAP)


def _prf(match: float, hyp: float, ref: float) -> dict[str, float]:
    p = match / hyp if hyp > 0 else 0.0
    r = match / ref if ref > 0 else 0.0
    return {"p": p, "r": r, "f": 2 * p * r / (p + r) if p + r > 0 else 0.0}


class RougeScorer:
    """ROUGE-1/2/L (rouge-score) and ROUGE-SU4 (rouge-metric) of one summary, averaged over references.

    ``score(summary, references)`` takes the summary as a list of sentences and each reference as a list of
    sentences; returns {"rouge1" | "rouge2" | "rougeL" | "rougesu4": {"p", "r", "f"}}.
    """

    def score_one(self, summary: Sequence[str], reference: Sequence[str]) -> dict[str, dict[str, float]]:
        scores = _rouge_score().score("\n".join(reference), "\n".join(summary))
        out = {
            "rouge1": _triple(scores["rouge1"]),
            "rouge2": _triple(scores["rouge2"]),
            "rougeL": _triple(scores["rougeLsum"]),
        }
        su = _rouge_su4().evaluate_tokenized([[tokenize(s) for s in summary]], [[[tokenize(s) for s in reference]]])[
            "rouge-su4"
        ]
        out["rougesu4"] = {"p": float(su["p"]), "r": float(su["r"]), "f": float(su["f"])}
        return out

    def score(self, summary: Sequence[str], references: Sequence[Sequence[str]]) -> dict[str, dict[str, float]]:
        if not references:
            return {}
        each = [self.score_one(summary, ref) for ref in references]
        return {m: {k: float(np.mean([e[m][k] for e in each])) for k in ("p", "r", "f")} for m in each[0]}


def _triple(s) -> dict[str, float]:
    return {"p": float(s.precision), "r": float(s.recall), "f": float(s.fmeasure)}


def gold_utility(r1: np.ndarray, r2: np.ndarray, su4: np.ndarray) -> np.ndarray:
    """BO eq. 8 before normalisation: R1/0.47 + R2/0.22 + RSU4/0.18 (recall scores)."""
    return r1 / GOLD_WEIGHTS["rouge1"] + r2 / GOLD_WEIGHTS["rouge2"] + su4 / GOLD_WEIGHTS["rougesu4"]


def normalise(values: np.ndarray, top: float = 10.0) -> np.ndarray:
    """Min-max to [0, top] (constant values give zeros)."""
    v = np.asarray(values, dtype=np.float64)
    gap = v.max() - v.min() if len(v) else 0.0
    return (v - v.min()) * top / gap if gap > 0 else np.zeros_like(v)


class CandidateRouge:
    """Vectorised ROUGE-1, ROUGE-2 and ROUGE-SU4 of many summaries made of the sentences of one table.

    ``sentence_tokens``: the ROUGE tokens of every sentence (``SentenceTable.tokens``). A summary is a
    sequence of sentence indices; its token stream is their tokens in that order, as the libraries see
    the joined text. ``scores(summaries, reference)`` returns {"rouge1" | "rouge2" | "rougesu4": {"p", "r",
    "f"}} with [N] arrays.
    """

    def __init__(self, sentence_tokens: Sequence[Sequence[str]]) -> None:
        self.vocab: dict[str, int] = {}
        self.sentence_ids = [self._ids(ts) for ts in sentence_tokens]
        self._references: dict[tuple[str, ...], tuple[int, dict]] = {}
        self._reference_ids: dict[tuple[str, ...], np.ndarray] = {}

    def _ids(self, tokens: Sequence[str]) -> np.ndarray:
        return np.array([self.vocab.setdefault(t, len(self.vocab)) for t in tokens], dtype=np.int64)

    def _streams(self, summaries: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
        """Flat token ids [T] and the summary each belongs to [T]."""
        parts, owners = [], []
        for c, summary in enumerate(summaries):
            for s in summary:
                ids = self.sentence_ids[int(s)]
                parts.append(ids)
                owners.append(np.full(len(ids), c, dtype=np.int64))
        if not parts:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        return np.concatenate(parts), np.concatenate(owners)

    def _grams(self, tok: np.ndarray, own: np.ndarray, kind: str) -> tuple[np.ndarray, np.ndarray]:
        """(owner [M], key [M]) of every n-gram occurrence of the ``kind`` rouge1 | rouge2 | rougesu4."""
        v = max(len(self.vocab), 1)
        if kind == "rouge1":
            return own, tok
        if kind == "rouge2":
            same = own[:-1] == own[1:]
            return own[:-1][same], tok[:-1][same] * v + tok[1:][same]
        # rouge-metric's SU: skip-bigrams at distance 1..gap+1, plus the unigrams of all but the last token
        owners, keys = [], []
        for d in range(1, SKIP_GAP + 2):
            if len(tok) <= d:
                break
            same = own[:-d] == own[d:]
            owners.append(own[:-d][same])
            keys.append(tok[:-d][same] * v + tok[d:][same])
        last = np.ones(len(own), dtype=bool)
        last[:-1] = own[:-1] != own[1:]
        owners.append(own[~last])
        keys.append(v * v + tok[~last])
        return np.concatenate(owners), np.concatenate(keys)

    def reference_counts(self, reference: Sequence[str]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Sorted unique n-gram keys and their counts in the reference (a list of sentences), per kind.

        Token ids are kept per reference; keys depend on the vocabulary size, so they are recomputed when
        another reference has added words since."""
        key = tuple(reference)
        if key not in self._reference_ids:
            self._reference_ids[key] = self._ids([t for s in reference for t in tokenize(s)])
        cached = self._references.get(key)
        if cached is not None and cached[0] == len(self.vocab):
            return cached[1]
        tok = self._reference_ids[key]
        own = np.zeros(len(tok), dtype=np.int64)
        out = {}
        for kind in GOLD_WEIGHTS:
            _, keys = self._grams(tok, own, kind)
            out[kind] = np.unique(keys, return_counts=True)
        self._references[key] = (len(self.vocab), out)
        return out

    def scores(self, summaries: Sequence[Sequence[int]], reference: Sequence[str]) -> dict[str, dict[str, np.ndarray]]:
        ref = self.reference_counts(reference)  # extends the vocabulary first: keys below use the final size
        tok, own = self._streams(summaries)
        n = len(summaries)
        out = {}
        for kind in GOLD_WEIGHTS:
            owners, keys = self._grams(tok, own, kind)
            ref_keys, ref_counts = ref[kind]
            hyp_total = np.bincount(owners, minlength=n).astype(np.float64)
            span = int(keys.max()) + 1 if len(keys) else 1
            pairs, counts = np.unique(owners * span + keys, return_counts=True)
            p_owner, p_key = pairs // span, pairs % span
            at = np.searchsorted(ref_keys, p_key)
            at = np.clip(at, 0, max(len(ref_keys) - 1, 0))
            found = (ref_keys[at] == p_key) if len(ref_keys) else np.zeros(len(p_key), dtype=bool)
            match = np.where(found, np.minimum(counts, ref_counts[at] if len(ref_keys) else 0), 0)
            matched = np.bincount(p_owner, weights=match, minlength=n)
            ref_total = float(ref_counts.sum())
            p = np.divide(matched, hyp_total, out=np.zeros(n), where=hyp_total > 0)
            r = matched / ref_total if ref_total > 0 else np.zeros(n)
            f = np.divide(2 * p * r, p + r, out=np.zeros(n), where=(p + r) > 0)
            out[kind] = {"p": p, "r": r, "f": f}
        return out

    def gold(self, summaries: Sequence[Sequence[int]], reference: Sequence[str]) -> np.ndarray:
        """[N] BO's gold utility against one reference, normalised to [0, 10] over the summaries."""
        s = self.scores(summaries, reference)
        return normalise(gold_utility(s["rouge1"]["r"], s["rouge2"]["r"], s["rougesu4"]["r"]))
