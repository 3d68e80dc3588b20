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
    the joined text (n-grams cross sentence boundaries, as in ROUGE-1.5.5 and rouge-score).
    ``scores(summaries, reference)`` returns {"rouge1" | "rouge2" | "rougesu4": {"p", "r", "f"}} with [N]
    arrays; ``scores_many(summaries, references)`` one such dict per reference, sharing the summaries'
    n-grams (the expensive part).

    The vocabulary is the sentences' words; a reference word outside it gets one sentinel id that no
    summary holds, so n-gram keys live in one fixed space and a reference never changes them. Matching
    looks each summary n-gram up among the reference's (sorted keys, ``searchsorted``) and counts the
    matches per (summary, reference n-gram) in a dense [N, G_ref] table: G_ref is small.
    """

    def __init__(self, sentence_tokens: Sequence[Sequence[str]]) -> None:
        self.vocab: dict[str, int] = {}
        ids = [
            np.array([self.vocab.setdefault(t, len(self.vocab)) for t in ts], dtype=np.int64) for ts in sentence_tokens
        ]
        self.unknown = len(self.vocab)  # the sentinel id of reference words no sentence holds
        self.base = self.unknown + 1
        self.lengths = np.array([len(x) for x in ids], dtype=np.int64)
        self.starts = np.concatenate([[0], np.cumsum(self.lengths)[:-1]]).astype(np.int64)
        self.tokens = np.concatenate(ids) if ids else np.zeros(0, dtype=np.int64)
        self._references: dict[tuple[str, ...], dict[str, tuple[np.ndarray, np.ndarray]]] = {}

    def _streams(self, summaries: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
        """Flat token ids [T] and the summary each belongs to [T] (no Python loop over tokens)."""
        sizes = np.fromiter((len(s) for s in summaries), dtype=np.int64, count=len(summaries))
        flat = np.fromiter((int(i) for s in summaries for i in s), dtype=np.int64, count=int(sizes.sum()))
        if len(flat) == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        owner_of_sentence = np.repeat(np.arange(len(summaries)), sizes)
        lengths = self.lengths[flat]
        total = int(lengths.sum())
        # position of each output token inside its sentence, then its index in the flat token array
        offsets = np.repeat(np.cumsum(lengths) - lengths, lengths)
        index = np.repeat(self.starts[flat], lengths) + (np.arange(total) - offsets)
        return self.tokens[index], np.repeat(owner_of_sentence, lengths)

    def _grams(
        self, tok: np.ndarray, own: np.ndarray, kind: str, keep: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(owner [M], key [M]) of every n-gram occurrence of the ``kind`` rouge1 | rouge2 | rougesu4 whose
        words are all ``keep`` [T] (all when None): rouge-metric's SU counts skip-bigrams at distance
        1..gap+1 plus the unigrams of all but the last token (keyed after a marker id, ``base``)."""
        v = self.base
        keep = np.ones(len(tok), dtype=bool) if keep is None else keep
        if kind == "rouge1":
            return own[keep], tok[keep]
        owners, keys = [], []
        for d in range(1, 2 if kind == "rouge2" else SKIP_GAP + 2):
            if len(tok) <= d:
                break
            sel = (own[:-d] == own[d:]) & keep[:-d] & keep[d:]
            owners.append(own[:-d][sel])
            keys.append(tok[:-d][sel] * v + tok[d:][sel])
        if kind == "rougesu4":
            not_last = np.zeros(len(own), dtype=bool)
            not_last[:-1] = own[:-1] == own[1:]
            sel = not_last & keep
            owners.append(own[sel])
            keys.append(v * v + tok[sel])
        if not owners:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        return np.concatenate(owners), np.concatenate(keys)

    @staticmethod
    def _totals(lengths: np.ndarray) -> dict[str, np.ndarray]:
        """[N] number of n-grams of each kind in summaries of ``lengths`` tokens."""
        t = lengths.astype(np.float64)
        skips = sum(np.clip(t - d, 0, None) for d in range(1, SKIP_GAP + 2))
        return {"rouge1": t, "rouge2": np.clip(t - 1, 0, None), "rougesu4": skips + np.clip(t - 1, 0, None)}

    def reference_counts(self, reference: Sequence[str]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Sorted unique n-gram keys and their counts in the reference (a list of sentences), per kind."""
        key = tuple(reference)
        if key not in self._references:
            tok = np.array([self.vocab.get(t, self.unknown) for s in reference for t in tokenize(s)], dtype=np.int64)
            own = np.zeros(len(tok), dtype=np.int64)
            self._references[key] = {
                kind: np.unique(self._grams(tok, own, kind)[1], return_counts=True) for kind in GOLD_WEIGHTS
            }
            self._references[key]["words"] = (np.unique(tok[tok < self.unknown]), np.zeros(0))
        return self._references[key]

    def scores_many(
        self, summaries: Sequence[Sequence[int]], references: Sequence[Sequence[str]]
    ) -> list[dict[str, dict[str, np.ndarray]]]:
        """``scores`` against each of ``references``, sharing the summaries' token streams.

        Only n-grams made of reference words can match, so each reference first keeps those tokens and builds
        the few n-grams left; the summaries' n-gram totals follow from their lengths."""
        tok, own = self._streams(summaries)
        n = len(summaries)
        totals = self._totals(np.bincount(own, minlength=n))
        out = []
        for reference in references:
            ref = self.reference_counts(reference)
            in_ref = np.zeros(self.base, dtype=bool)
            in_ref[ref["words"][0]] = True
            keep = in_ref[tok]
            result = {}
            for kind in GOLD_WEIGHTS:
                ref_keys, ref_counts = ref[kind]
                owners, keys = self._grams(tok, own, kind, keep)
                matched: np.ndarray = np.zeros(n)
                if len(ref_keys) and len(keys):
                    at = np.clip(np.searchsorted(ref_keys, keys), 0, len(ref_keys) - 1)
                    hit = ref_keys[at] == keys
                    pairs, counts = np.unique(owners[hit] * len(ref_keys) + at[hit], return_counts=True)
                    clipped = np.minimum(counts, ref_counts[pairs % len(ref_keys)])
                    matched = np.bincount(pairs // len(ref_keys), weights=clipped, minlength=n)
                hyp_total, ref_total = totals[kind], float(ref_counts.sum())
                p = np.divide(matched, hyp_total, out=np.zeros(n), where=hyp_total > 0)
                r = matched / ref_total if ref_total > 0 else np.zeros(n)
                f = np.divide(2 * p * r, p + r, out=np.zeros(n), where=(p + r) > 0)
                result[kind] = {"p": p, "r": r, "f": f}
            out.append(result)
        return out

    def scores(self, summaries: Sequence[Sequence[int]], reference: Sequence[str]) -> dict[str, dict[str, np.ndarray]]:
        return self.scores_many(summaries, [reference])[0]

    def utility(self, summaries: Sequence[Sequence[int]], references: Sequence[Sequence[str]]) -> np.ndarray:
        """[R, N] BO eq. 8 before normalisation (recall scores), one row per reference."""
        each = self.scores_many(summaries, references)
        return np.stack([gold_utility(s["rouge1"]["r"], s["rouge2"]["r"], s["rougesu4"]["r"]) for s in each])

    def gold(self, summaries: Sequence[Sequence[int]], reference: Sequence[str]) -> np.ndarray:
        """[N] BO's gold utility against one reference, normalised to [0, 10] over the summaries."""
        return normalise(self.utility(summaries, [reference])[0])
