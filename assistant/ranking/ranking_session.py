"""The integration API: candidates from the clarifier's shortlist and a comparison session with undo.

>>> import numpy as np
>>> cands = [Candidate(f"c{i}", f"answer {i}", "", np.eye(3)[i], prior=float(i)) for i in range(3)]
>>> session = RankingSession(cands, seed=0, budget=2)
>>> session.next_pair()
(2, 0)
>>> session.answer("right")
>>> session.best().id in {"c0", "c1", "c2"}
True

``RankingSession`` is a small state machine: ``next_pair()`` gives the pair (i, j) to show (i on the left)
or None once it has stopped (budget reached, P(best is best) above the threshold, every candidate ruled
out, or no pair left); ``answer('left' | 'right' | 'tie' | 'neither')`` records the user's choice for that
pair; ``undo()`` takes the last answer back. The posterior is always refitted from the whole history and
every random choice is seeded by (seed, number of answers), so after an undo the session is exactly what
it was, and a session rebuilt with ``from_dict(to_dict())`` continues identically.

What the person said holds (``assistant.ranking.constraints``): after "a is better than b" the ranking
shows a above b unless a later answer contradicts it, whatever the prior and the kernel make of it. The
chance of each candidate being the best allows for a person's slips (``PERSON_ERROR``): no answer makes a
candidate certain, and a candidate that keeps winning never loses chance. Candidates with almost no chance
left (``MIN_CHANCE``) are not shown again.
"neither" (neither is relevant) rules both candidates out: they go to the bottom, are never shown again
and cannot be the best while another candidate is in play. No pair is ever shown twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from assistant.errors import ConfigError, SessionStateError
from assistant.ranking.acquisition import (
    ACQUISITIONS,
    AcquisitionFunction,
    acquisition_fits,
    candidate_pool,
    first_pair,
    make_acquisition,
)
from assistant.ranking.base import OUTCOME_OF, PREFERENCES, Comparisons, Posterior, PreferenceModel
from assistant.ranking.bt import BradleyTerry
from assistant.ranking.constraints import chance_best_weighted, project_order, standing_preferences
from assistant.ranking.gppl import GPPL
from assistant.ranking.oracle import RankingStopReason, RankingStopRule
from assistant.store import Label
from assistant.text.encoder import TextEncoder

SESSION_FORMAT = 1
SESSION_MODELS: dict[str, type[PreferenceModel]] = {"gppl": GPPL, "bt": BradleyTerry}
# What a person may answer to a pair: a preference (the model's), or "neither is relevant".
ANSWERS: tuple[str, ...] = (*PREFERENCES, "neither")
# Candidates whose chance of being the best is sampled (the rest are very unlikely to be it), and how many
# draws of their utilities before any answer (``assistant.ranking.constraints.chance_best_weighted``).
CHANCE_POOL = 60
CHANCE_SAMPLES = 2000
# A candidate whose chance of being the best is below this is never shown in a pair again: the person's
# time goes to the candidates still in question.
MIN_CHANCE = 0.01


@dataclass(frozen=True)
class Candidate:
    """One thing the user may pick: ``features`` [D] feed the preference model, ``prior`` is its prior score;
    ``label_key``: the label it answers, when it comes from one (``candidates_from_labels``)."""

    id: str
    title: str
    text: str
    features: np.ndarray = field(compare=False, repr=False)
    prior: float = 0.0
    label_key: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "features", np.asarray(self.features, dtype=np.float64).reshape(-1))
        object.__setattr__(self, "prior", float(self.prior))


@dataclass(frozen=True)
class ComparisonRecord:
    """One answered comparison: candidate indices shown left and right, and the answer."""

    left: int
    right: int
    preferred: str


def candidate_texts(label: Label) -> list[str]:
    """What the comparisons show of ``label``: its answer texts (FAQ), or its text, else its name."""
    return [a for a in label.answers if a.strip()] or [label.text or label.name]


def candidates_from_labels(
    labels: Sequence[Label], probabilities: Sequence[float], query: str, encoder: TextEncoder | None = None
) -> list[Candidate]:
    """The clarifier's shortlist as ranking candidates.

    One candidate per answer text of each label (``Label.answers``, FAQ), or one per label (its text, else
    its name) when it has none. Features are MiniLM embeddings of the candidate text (``encoder`` defaults to
    ``models.pretrained.SentenceEncoder``; any ``assistant.text.encoder.TextEncoder`` works). Prior score
    = log p(label) + cos(query, text): the clarifier's posterior orders labels, the cosine orders the answers
    within a label. Ids are the label key, with ``#k`` appended when a label has several answers.
    """
    labels = list(labels)
    probs = np.asarray(probabilities, dtype=np.float64).reshape(-1)
    if len(labels) != len(probs):
        raise ConfigError(f"{len(labels)} labels but {len(probs)} probabilities")
    if not labels:
        raise ConfigError("the shortlist is empty: there is nothing to rank")
    if np.any(~np.isfinite(probs)) or np.any(probs < 0):
        raise ConfigError("label probabilities must be finite and non-negative")
    rows: list[tuple[str, str, str, str, float]] = []
    for label, p in zip(labels, probs):
        texts = candidate_texts(label)
        for k, text in enumerate(texts):
            cid = label.key if len(texts) == 1 else f"{label.key}#{k + 1}"
            rows.append((cid, label.key, label.name, text, float(np.log(max(p, 1e-12)))))
    if encoder is None:
        from models.pretrained import SentenceEncoder

        encoder = SentenceEncoder()
    vectors = np.asarray(encoder.encode([query] + [r[3] for r in rows]), dtype=np.float64)
    q, x = vectors[0], vectors[1:]
    cos = (x @ q) / np.maximum(np.linalg.norm(x, axis=1) * np.linalg.norm(q), 1e-12)
    return [
        Candidate(cid, title, text, x[i], log_p + cos[i], label_key=key)
        for i, (cid, key, title, text, log_p) in enumerate(rows)
    ]


class OrderedPosterior(Posterior):
    """A model's posterior with its mean replaced by one that respects the stated preferences (the
    acquisitions then pit the best the person would recognise against its strongest challenger)."""

    def __init__(self, base: Posterior, mean: np.ndarray) -> None:
        self.base = base
        self.mean = mean
        self.variance = base.variance

    def cov_rows(self, index) -> np.ndarray:
        return self.base.cov_rows(index)


class RankingSession:
    """Pairwise comparisons over ``candidates`` until the best is found (see the module docstring).

    Parameters
    ----------
    model : 'gppl' (default) or 'bt'; ``model_options`` go to its constructor.
    acquisition : imp (default), tp, eig, unpa, unc or random.
    threshold, budget : stop when P(current best is best) > threshold or after ``budget`` answers.
    first_pair_heuristic : start with BO's pair (best prior vs least similar) instead of the acquisition.
    seed : makes every random choice (Thompson draws, random pairs, confidence samples) reproducible.
    """

    def __init__(
        self,
        candidates: Sequence[Candidate],
        model: str = "gppl",
        acquisition: str = "imp",
        seed: int = 0,
        threshold: float = 0.9,
        budget: int = 10,
        first_pair_heuristic: bool = True,
        model_options: dict[str, Any] | None = None,
    ) -> None:
        self.candidates = list(candidates)
        if not self.candidates:
            raise ConfigError("a ranking session needs at least one candidate")
        dims = {len(c.features) for c in self.candidates}
        if len(dims) != 1:
            raise ConfigError(f"all candidates need feature vectors of one length, got lengths {sorted(dims)}")
        if model not in SESSION_MODELS:
            raise ConfigError(f"unknown ranking model {model!r}: use one of {', '.join(SESSION_MODELS)}")
        self.model_name = model
        self.model_options = dict(model_options or {})
        self.model: PreferenceModel = SESSION_MODELS[model](**self.model_options)
        self.acquisition_name = acquisition
        self.acquisition: AcquisitionFunction = make_acquisition(acquisition, noise=self.model.noise)
        if not acquisition_fits(self.acquisition, self.model):
            fitting = [name for name, cls in ACQUISITIONS.items() if acquisition_fits(cls, self.model)]
            raise ConfigError(
                f"acquisition {acquisition!r} does not suit the {model!r} ranker: use one of {', '.join(fitting)}"
            )
        self.seed = int(seed)
        self.stop_rule = RankingStopRule(threshold=threshold, budget=budget)
        self.first_pair_heuristic = bool(first_pair_heuristic)
        self.features = np.stack([c.features for c in self.candidates])
        self.priors = np.array([c.prior for c in self.candidates])
        # the utilities before any answer: what the chances weigh the person's answers against
        prior_model = SESSION_MODELS[model](**self.model_options)
        self._prior_posterior = prior_model.fit(self.features, self.priors, Comparisons.empty()).posterior()
        self._prior_draws: dict[tuple[int, ...], np.ndarray] = {}
        self._history: list[ComparisonRecord] = []
        self._refresh()

    # ---- state -------------------------------------------------------------------------------------------
    def _comparisons(self) -> Comparisons:
        """The answered preferences (the model learns from these; "neither" is not a preference)."""
        judged = [r for r in self._history if r.preferred in OUTCOME_OF]
        if not judged:
            return Comparisons.empty()
        return Comparisons(
            np.array([[r.left, r.right] for r in judged]),
            np.array([OUTCOME_OF[r.preferred] for r in judged]),
        )

    def _seen(self) -> set[tuple[int, int]]:
        """Pairs never to show (again): every pair shown so far, and every pair with a ruled-out candidate or
        one whose chance of being the best fell below ``MIN_CHANCE`` (while two others are still in question)."""
        seen = {(min(r.left, r.right), max(r.left, r.right)) for r in self._history}
        n = len(self.candidates)
        unlikely = ~self._ruled_out & (self._chances < MIN_CHANCE)
        if (~self._ruled_out & ~unlikely).sum() < 2:
            unlikely[:] = False
        for i in np.flatnonzero(self._ruled_out | unlikely):
            seen.update((min(int(i), j), max(int(i), j)) for j in range(n) if j != i)
        return seen

    def _stated(self) -> list[tuple[int, int]]:
        """(winner, loser) of every "left" / "right" answer, oldest first."""
        return [
            (r.left, r.right) if r.preferred == "left" else (r.right, r.left)
            for r in self._history
            if r.preferred in ("left", "right")
        ]

    def _rng(self, purpose: int) -> np.random.Generator:
        return np.random.default_rng([self.seed, len(self._history), purpose])

    def _refresh(self) -> None:
        """Refit on the whole history; recompute the order, the chances, the best and the pending pair."""
        n = len(self.candidates)
        model_posterior = self.model.fit(self.features, self.priors, self._comparisons()).posterior()
        self._ruled_out = np.zeros(n, dtype=bool)
        for r in self._history:
            if r.preferred == "neither":
                self._ruled_out[[r.left, r.right]] = True
        self._edges = standing_preferences(self._stated())
        self._utilities = project_order(model_posterior.mean, self._edges)
        self._posterior: Posterior = OrderedPosterior(model_posterior, self._utilities)
        in_play = ~self._ruled_out
        self._chances = self._chance_best(in_play)
        # best first: chance of being the best, moved the least so that every standing preference holds (a
        # slip is allowed for, but what the person said is shown: a winner is never less likely than its
        # loser), then the utility that respects them too; ruled-out candidates last
        self._chances = np.clip(project_order(self._chances, self._edges), 0.0, None)  # keeps the sum
        self._order = np.lexsort((-self._utilities, -np.round(self._chances, 9), self._ruled_out))
        self._best = int(self._order[0])
        self._confidence = float(self._chances[self._best])
        self._pending: tuple[int, int] | None = None
        self.stop_reason: RankingStopReason | None = None
        if n < 2:
            self.stop_reason = RankingStopReason.SINGLE_CANDIDATE
        elif not in_play.any():
            self.stop_reason = RankingStopReason.ALL_RULED_OUT
        elif in_play.sum() == 1:
            self.stop_reason = RankingStopReason.ONE_LEFT
        else:
            self.stop_reason = self.stop_rule.should_stop(len(self._history), self._confidence)
        if self.stop_reason is None:
            self._pending = self._choose_pair()
            if self._pending is None:
                self.stop_reason = RankingStopReason.NO_PAIR_LEFT

    def _chance_best(self, in_play: np.ndarray) -> np.ndarray:
        """[N] P(each candidate in play is the best) given the answers, for a person who may err
        (``chance_best_weighted`` over fixed draws of the utilities before any answer); at many candidates
        only the likeliest ``CHANCE_POOL`` before any answer and those the answers name are drawn."""
        n = len(self.candidates)
        stated = self._stated()
        if n <= CHANCE_POOL:
            pool = np.arange(n)
        else:
            named = [i for edge in stated for i in edge]
            start = candidate_pool(self._prior_posterior, CHANCE_POOL)
            pool = np.union1d(start, np.asarray(named, dtype=np.int64))
        key = tuple(int(i) for i in pool)
        if key not in self._prior_draws:
            rng = np.random.default_rng([self.seed, 1, len(pool)])
            self._prior_draws[key] = self._prior_posterior.sample(pool, CHANCE_SAMPLES, rng)
        local = {int(g): i for i, g in enumerate(pool)}
        edges = [(local[w], local[lo]) for w, lo in stated if w in local and lo in local]
        chances = np.zeros(n)
        chances[pool] = chance_best_weighted(self._prior_draws[key], edges, in_play[pool])
        return chances

    def _choose_pair(self) -> tuple[int, int] | None:
        seen = self._seen()
        if not self._history and self.first_pair_heuristic and self.acquisition_name != "random":
            return first_pair(self.priors, self.features)
        return self.acquisition.select(self._posterior, seen, self._rng(0))

    # ---- the public state machine --------------------------------------------------------------------------
    @property
    def stopped(self) -> bool:
        return self.stop_reason is not None

    def next_pair(self) -> tuple[int, int] | None:
        """(left, right) candidate indices to show next, or None when the session has stopped."""
        return self._pending

    def answer(self, preferred: str) -> None:
        """Record the answer to the pending pair: 'left', 'right', 'tie' or 'neither' (neither is relevant)."""
        if preferred not in ANSWERS:
            raise ConfigError(f"answer must be one of {', '.join(ANSWERS)}, not {preferred!r}")
        if self._pending is None:
            raise SessionStateError(
                f"no comparison is pending: the session stopped ({self.stop_reason}); undo() to change an answer"
            )
        left, right = self._pending
        self._history.append(ComparisonRecord(left, right, preferred))
        self._refresh()

    def answer_pair(self, left_id: str, right_id: str, preferred: str) -> None:
        """Record the answer to the pair of candidates ``left_id`` and ``right_id`` (as shown: left, right),
        pending or not, as long as it was never answered and neither side was ruled out (replaying a log by
        the ids it recorded does not depend on which pair the ranker would choose next)."""
        index = {c.id: i for i, c in enumerate(self.candidates)}
        if left_id not in index or right_id not in index or left_id == right_id:
            raise SessionStateError(f"{left_id!r} and {right_id!r} are not two of the candidates being compared")
        if self._pending is not None and (
            self.candidates[self._pending[0]].id,
            self.candidates[self._pending[1]].id,
        ) == (
            left_id,
            right_id,
        ):
            self.answer(preferred)
            return
        if preferred not in ANSWERS:
            raise ConfigError(f"answer must be one of {', '.join(ANSWERS)}, not {preferred!r}")
        left, right = index[left_id], index[right_id]
        if (min(left, right), max(left, right)) in self._seen():
            raise SessionStateError(f"{left_id!r} and {right_id!r} were compared already, or one was ruled out")
        self._history.append(ComparisonRecord(left, right, preferred))
        self._refresh()

    def undo(self) -> bool:
        """Take back the last answer (False when there is none); the state is exactly as before it."""
        if not self._history:
            return False
        self._history.pop()
        self._refresh()
        return True

    @property
    def history(self) -> list[ComparisonRecord]:
        return list(self._history)

    @property
    def confidence(self) -> float:
        """P(the current best is the best) given every stated preference, for a person who may err
        (``assistant.ranking.constraints.chance_best_weighted``)."""
        return self._confidence

    @property
    def best_index(self) -> int:
        return self._best

    def best(self) -> Candidate:
        """The current best: the likeliest to be the best of the candidates in play (see ``ranking``)."""
        return self.candidates[self._best]

    def ranking(self) -> list[int]:
        """Candidate indices from best to worst: by chance of being the best, then by the utility that
        respects every standing preference (so a winner is always above its loser); ruled-out ones last."""
        return [int(i) for i in self._order]

    def scores(self) -> np.ndarray:
        """[N] utilities: the posterior mean, moved the least so that every standing preference holds."""
        return self._utilities.copy()

    def chances(self) -> np.ndarray:
        """[N] each candidate's probability of being the best (0 for ruled-out ones); sums to 1."""
        return self._chances.copy()

    @property
    def ruled_out(self) -> np.ndarray:
        """[N] bool: candidates the person called not relevant ("neither")."""
        return self._ruled_out.copy()

    @property
    def preferences(self) -> list[tuple[int, int]]:
        """The standing (winner, loser) preferences: every stated one that no later answer contradicts."""
        return list(self._edges)

    # ---- saving and resuming --------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable snapshot: candidates, settings and the answers so far."""
        return {
            "format": SESSION_FORMAT,
            "candidates": [
                {
                    "id": c.id,
                    "title": c.title,
                    "text": c.text,
                    "features": c.features.tolist(),
                    "prior": c.prior,
                    "label_key": c.label_key,
                }
                for c in self.candidates
            ],
            "model": self.model_name,
            "model_options": self.model_options,
            "acquisition": self.acquisition_name,
            "seed": self.seed,
            "threshold": self.stop_rule.threshold,
            "budget": self.stop_rule.budget,
            "first_pair_heuristic": self.first_pair_heuristic,
            "history": [{"left": r.left, "right": r.right, "preferred": r.preferred} for r in self._history],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RankingSession:
        """Rebuild a session from ``to_dict`` output and replay its answers."""
        if not isinstance(data, dict) or data.get("format") != SESSION_FORMAT:
            raise ConfigError(f"not a saved ranking session of format {SESSION_FORMAT}")
        try:
            candidates = [
                Candidate(c["id"], c["title"], c["text"], np.asarray(c["features"]), c["prior"], c.get("label_key", ""))
                for c in data["candidates"]
            ]
            session = cls(
                candidates,
                model=data["model"],
                acquisition=data["acquisition"],
                seed=data["seed"],
                threshold=data["threshold"],
                budget=data["budget"],
                first_pair_heuristic=data["first_pair_heuristic"],
                model_options=data.get("model_options") or {},
            )
            history = [ComparisonRecord(int(h["left"]), int(h["right"]), str(h["preferred"])) for h in data["history"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"saved ranking session is incomplete or malformed ({exc!r})") from exc
        n = len(candidates)
        for record in history:
            if not (0 <= record.left < n and 0 <= record.right < n) or record.preferred not in ANSWERS:
                raise ConfigError(f"saved ranking session has an invalid comparison {record}")
        # Replay without intermediate refits, then refresh once: the result equals answering step by step.
        session._history = history
        session._refresh()
        return session
