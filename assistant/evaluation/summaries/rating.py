"""`clarify summarize evaluate duc2001|duc2002|duc2004`: BO's summary-rating protocol (BO 5.3, Table 5).

Per topic: 10,000 random candidate summaries (< 100 words), their features and prior, and for each of the
topic's 100-word model summaries the gold utility of every candidate (BO eq. 8, normalised to [0, 10]).
Each (topic, model summary) is one simulated user, as in BO's code: P(a > b) = sigmoid((g_a - g_b) / t),
t = 1, its uniforms drawn once from (seed, topic, reference) and shared by every strategy. After k
interactions we record NDCG@1% of the ranking of all candidates (gains = gold; BO's formula, see
``ndcg_at_percent``) and Pearson r with the gold. UNC belongs to Bradley-Terry, the other strategies to
GPPL; the prior alone is the row at 0 interactions. As in BO's code the GPPL strategies (random included)
open with the best candidate under the prior against the one least similar to it; UNC chooses from the
start. A Wilcoxon signed-rank test (over simulated users) compares the best row with every other at the
last checkpoint.

Topics are independent, so ``workers`` > 1 runs them in a process pool (after preparing every topic's cache
in this process); the figures do not depend on it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path

import numpy as np
from scipy.stats import pearsonr

from assistant.errors import ConfigError
from assistant.progress import Job, Progress, metrics_of, run_job
from assistant.ranking.acquisition import first_pair, make_acquisition
from assistant.ranking.base import OUTCOME_OF, Comparisons, Posterior, PreferenceModel
from assistant.ranking.oracle import NoisyOracle
from assistant.summarization.documents import DUC_YEARS, Topic, load_duc
from assistant.summarization.features import FEATURES
from assistant.summarization.prepare import cached_topic
from assistant.summarization.priors import PRIORS
from assistant.summarization.ranker import SummaryRankerSettings, learner_of, make_model

STRATEGIES = ("imp", "tp", "eig", "unpa", "unc", "random")
CHECKPOINTS = (0, 10, 20, 50, 100)


def ndcg_at_percent(scores: np.ndarray, gold: np.ndarray, percent: float = 1.0) -> float:
    """NDCG of the top ``percent`` % of the candidates ranked by ``scores`` (gains = gold), as BO computes it
    (their ``rank_metrics.ndcg_at_k``, method 0: discounts 1, 1, 1/log2(3), 1/log2(4), ...; k = int(N * percent
    / 100)). Hand-written: scikit-learn's ``ndcg_score`` has only the discounts 1, 1/log2(3), ... (their method 1),
    which would change BO Table 5's figures."""
    gold = np.asarray(gold, dtype=np.float64)
    scores = np.asarray(scores, dtype=np.float64)
    k = max(1, int(len(gold) * percent / 100))
    top = np.argpartition(-scores, min(k, len(gold) - 1))[:k]
    top = top[np.argsort(-scores[top], kind="stable")]
    discounts = np.concatenate([[1.0], 1.0 / np.log2(np.arange(2, k + 1))])
    dcg = float(gold[top] @ discounts[: len(top)])
    ideal = float(np.sort(gold)[::-1][:k] @ discounts[: min(k, len(gold))])
    return dcg / ideal if ideal > 0 else 0.0


def pearson(scores: np.ndarray, gold: np.ndarray) -> float:
    """Pearson r of ``scores`` and ``gold`` [N] (scipy); 0.0 where r is undefined: fewer than two candidates, or
    either side constant."""
    scores, gold = np.asarray(scores, dtype=np.float64), np.asarray(gold, dtype=np.float64)
    if len(scores) < 2 or np.all(scores == scores[0]) or np.all(gold == gold[0]):
        return 0.0
    return float(pearsonr(scores, gold).statistic)


def dialogue(
    model: PreferenceModel,
    strategy: str,
    features: np.ndarray,
    prior: np.ndarray,
    oracle: NoisyOracle,
    interactions: int,
    rng: np.random.Generator,
    pool_size: int = 150,
) -> Iterator[tuple[int, Posterior, float]]:
    """A simulated user answering ``interactions`` comparisons chosen by ``strategy``: yields (k, posterior
    after k answers, seconds the k-th step took) for k = 0 .. interactions."""
    acquisition = make_acquisition(strategy, noise=model.noise)
    acquisition.pool_size = pool_size
    comparisons = Comparisons.empty()
    posterior = model.fit(features, prior, comparisons).posterior()
    yield 0, posterior, 0.0
    for k in range(1, interactions + 1):
        start = time.perf_counter()
        pair: tuple[int, int] | None
        if k == 1 and learner_of(strategy) == "gppl":
            pair = first_pair(posterior.mean, features)
        else:
            pair = acquisition.select(posterior, comparisons.seen(), rng)
        if pair is not None:
            comparisons = comparisons.add(pair[0], pair[1], OUTCOME_OF[oracle.answer(*pair)])
            posterior = model.fit(features, prior, comparisons).posterior()
        yield k, posterior, time.perf_counter() - start


def simulate(
    model: PreferenceModel,
    strategy: str,
    features: np.ndarray,
    prior: np.ndarray,
    gold: np.ndarray,
    draws: np.ndarray,
    checkpoints: Sequence[int],
    t: float,
    rng: np.random.Generator,
    pool_size: int = 150,
) -> tuple[dict[int, tuple[float, float]], float]:
    """One simulated dialogue; {k: (ndcg@1%, r)} at each checkpoint k <= len(draws), and seconds per step."""
    oracle = NoisyOracle(gold, t=t, draws=draws)
    out, elapsed = {}, 0.0
    for k, posterior, seconds in dialogue(model, strategy, features, prior, oracle, len(draws), rng, pool_size):
        elapsed += seconds
        if k in checkpoints:
            out[k] = (ndcg_at_percent(posterior.mean, gold), pearson(posterior.mean, gold))
    return out, elapsed / max(len(draws), 1)


def user_draws(seed: int, topic: int, reference: int, interactions: int) -> np.ndarray:
    """The simulated user's uniforms: one per interaction, the same for every strategy."""
    return np.random.default_rng([seed, topic, reference]).random(max(interactions, 1))[:interactions]


def topic_scores(
    dataset: str,
    topic_index: int,
    topic: Topic,
    strategies: Sequence[str],
    prior: str,
    features: str,
    seed: int,
    t: float,
    n_candidates: int,
    checkpoints: Sequence[int],
    settings: SummaryRankerSettings,
    encoder=None,
) -> tuple[dict[tuple[str, int], list[tuple[float, float]]], dict[str, list[float]]]:
    """Every simulated user of one topic: {(strategy, k): [(ndcg, r) per user]} and seconds per step per
    strategy. One model per learner serves all of the topic's users (its kernel rows are cached)."""
    need_minilm = prior == "minilm" or features == "minilm"
    prepared = run_job(cached_topic(dataset, topic, n_candidates, seed, encoder, minilm=need_minilm))
    x, p = prepared.features[features], prepared.priors[prior]
    models = {learner: make_model("unc" if learner == "bt" else "imp", settings) for learner in ("gppl", "bt")}
    scores: dict[tuple[str, int], list[tuple[float, float]]] = {}
    seconds: dict[str, list[float]] = {s: [] for s in strategies}
    interactions = max(checkpoints)
    assert prepared.gold is not None  # the DUC topics come with their gold ratings
    for ri, gold in enumerate(prepared.gold):
        draws = user_draws(seed, topic_index, ri, interactions)
        scores.setdefault(("none", 0), []).append((ndcg_at_percent(p, gold), pearson(p, gold)))
        for strategy in strategies:
            rng = np.random.default_rng([seed, topic_index, ri, 1])
            model = models[learner_of(strategy)]
            out, secs = simulate(model, strategy, x, p, gold, draws, checkpoints, t, rng, settings.pool_size)
            seconds[strategy].append(secs)
            for k, v in out.items():
                scores.setdefault((strategy, k), []).append(v)
    return scores, seconds


def _wilcoxon(per_user: dict[str, np.ndarray]) -> dict:
    from scipy.stats import wilcoxon

    best = max(per_user, key=lambda k: per_user[k].mean())
    tests = []
    for key, values in per_user.items():
        if key == best:
            continue
        a, b = per_user[best], values
        p = 1.0 if np.allclose(a, b) else float(wilcoxon(a, b, zero_method="wilcox").pvalue)
        tests.append({"row": key, "ndcg1pct_p_value": p})
    return {"best": best, "tests": tests}


def _check(dataset: str, interactions: int, strategies: Sequence[str], prior: str, features: str) -> list[str]:
    if dataset not in DUC_YEARS:
        raise ConfigError(f"unknown data set {dataset!r}: use one of {', '.join(DUC_YEARS)}")
    if interactions < 0:
        raise ConfigError(f"--interactions must be >= 0, got {interactions}")
    if prior not in PRIORS:
        raise ConfigError(f"unknown prior {prior!r}: use {' or '.join(PRIORS)}")
    if features not in FEATURES:
        raise ConfigError(f"unknown features {features!r}: use {' or '.join(FEATURES)}")
    chosen = [s.strip().lower() for s in strategies if s.strip()]
    bad = [s for s in chosen if s not in STRATEGIES]
    if bad or not chosen:
        raise ConfigError(f"unknown strategy {', '.join(bad) or '(none)'}: choose from {', '.join(STRATEGIES)}")
    return chosen


def evaluate(
    dataset: str,
    interactions: int = 20,
    strategies: Sequence[str] = STRATEGIES,
    prior: str = "reaper",
    features: str = "bigram",
    seed: int = 0,
    t: float = 1.0,
    n_candidates: int = 10_000,
    max_topics: int | None = None,
    topics: Sequence[int] | None = None,
    data_dir: str | Path | None = None,
    settings: SummaryRankerSettings | None = None,
    encoder=None,
    checkpoints: Sequence[int] | None = None,
    workers: int = 1,
) -> Job[dict]:
    """Run the protocol; yields Progress per topic, returns {"rows": [...], "wilcoxon": ..., settings}.

    ``checkpoints``: the interaction counts to report (default 0, 10, 20, 50, 100 up to ``interactions``)."""
    key = dataset.lower()
    strategies = _check(key, interactions, strategies, prior, features)
    settings = settings or SummaryRankerSettings()
    default = [k for k in CHECKPOINTS if k <= interactions]
    checkpoints = sorted({int(k) for k in (checkpoints or default) if 0 <= int(k) <= interactions} | {interactions})
    all_topics = load_duc(key, data_dir)
    chosen = list(range(len(all_topics))) if topics is None else [int(i) for i in topics]
    if max_topics is not None:
        chosen = chosen[:max_topics]
    if encoder is None and (prior == "minilm" or features == "minilm"):
        from models.pretrained import SentenceEncoder

        encoder = SentenceEncoder()
    args = (strategies, prior, features, seed, t, n_candidates, checkpoints, settings)
    scores: dict[tuple[str, int], list[tuple[float, float]]] = {}
    seconds: dict[str, list[float]] = {s: [] for s in strategies}

    def merge(done: int, result) -> Progress:
        topic_scores_, topic_seconds = result
        for k, v in topic_scores_.items():
            scores.setdefault(k, []).extend(v)
        for s, v in topic_seconds.items():
            seconds[s].extend(v)
        last = scores.get((strategies[0], interactions), [(0.0, 0.0)])
        metric = {f"{strategies[0]}_ndcg": float(np.mean([v[0] for v in last]))}
        return Progress(done, len(chosen), f"{key} topics", metrics_of(**metric))

    if workers > 1:
        for done, ti in enumerate(chosen):  # fill every topic's cache here: workers then only read files
            yield from cached_topic(
                key, all_topics[ti], n_candidates, seed, encoder, prior == "minilm" or features == "minilm"
            )
            yield Progress(done + 1, len(chosen), f"{key}: preparing topics")
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(topic_scores, key, ti, all_topics[ti], *args) for ti in chosen]
            for done, future in enumerate(futures):
                yield merge(done + 1, future.result())
    else:
        for done, ti in enumerate(chosen):
            yield merge(done + 1, topic_scores(key, ti, all_topics[ti], *args, encoder=encoder))
    return _result(
        key, prior, features, t, seed, interactions, chosen, n_candidates, settings, scores, seconds, strategies
    )


def _result(key, prior, features, t, seed, interactions, chosen, n_candidates, settings, scores, seconds, strategies):
    users = len(scores.get(("none", 0), []))
    rows = []
    for (strategy, k), values in scores.items():
        arr = np.array(values)
        rows.append(
            {
                "dataset": key,
                "prior": prior,
                "features": features,
                "learner": "prior" if strategy == "none" else learner_of(strategy),
                "strategy": strategy,
                "interactions": k,
                "ndcg1pct": float(arr[:, 0].mean()),
                "r": float(arr[:, 1].mean()),
                "seconds_per_interaction": float(np.mean(seconds[strategy])) if seconds.get(strategy) else 0.0,
                "topics": len(chosen),
                "users": users,
            }
        )
    rows.sort(
        key=lambda r: (
            r["strategy"] != "none",
            STRATEGIES.index(r["strategy"]) if r["strategy"] in STRATEGIES else -1,
            r["interactions"],
        )
    )
    final = {"prior": np.array([v[0] for v in scores[("none", 0)]])}
    final.update(
        {s: np.array([v[0] for v in scores[(s, interactions)]]) for s in strategies if (s, interactions) in scores}
    )
    per_user = {f"{s}@{k}": [v[0] for v in values] for (s, k), values in scores.items()}
    return {
        "dataset": key,
        "prior": prior,
        "features": features,
        "t": t,
        "seed": seed,
        "interactions": interactions,
        "topics": len(chosen),
        "users": users,
        "candidates": n_candidates,
        "settings": asdict(settings),
        "blas": f"OPENBLAS_THREAD_TIMEOUT={os.environ.get('OPENBLAS_THREAD_TIMEOUT', 'unset')}",
        "rouge": "rouge-score (R1, R2) + rouge-metric (SU4), recall, not Perl ROUGE-1.5.5",
        "rows": rows,
        "wilcoxon": {"interactions": interactions, **_wilcoxon(final)},
        "per_user_ndcg1pct": per_user,
    }


def table(result: dict) -> str:
    """A plain-text table: NDCG@1% and r at each checkpoint, per strategy."""
    rows = result["rows"]
    ks = sorted({r["interactions"] for r in rows})
    lines = [
        f"{'learner':<6} {'strategy':<8} "
        + " ".join(f"{'ndcg@' + str(k):>8} {'r@' + str(k):>6}" for k in ks)
        + "  ms/step"
    ]
    for strategy in dict.fromkeys(r["strategy"] for r in rows):
        by_k = {r["interactions"]: r for r in rows if r["strategy"] == strategy}
        first = next(iter(by_k.values()))
        cells = [f"{by_k[k]['ndcg1pct']:8.3f} {by_k[k]['r']:6.3f}" if k in by_k else " " * 15 for k in ks]
        lines.append(
            f"{first['learner']:<6} {strategy:<8} "
            + " ".join(cells)
            + f" {1000 * first['seconds_per_interaction']:8.1f}"
        )
    return "\n".join(lines)
