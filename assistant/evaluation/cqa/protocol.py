"""`clarify rank evaluate`: every model x acquisition on the same questions and the same oracle draws.

For each question of the chosen split (test by default; hyperparameters were chosen on dev), the noisy
simulated user's uniforms are drawn once from (seed, question) and shared by all strategies. After k = 0..N
interactions we record the top-1 accuracy (is the top-ranked candidate the best one?) and NDCG@5 with the
gold utilities as gains. Rows: {model, strategy, interactions, accuracy, ndcg5, seconds_per_interaction,
questions}, plus the prior alone (model "prior", strategy "none"). A Wilcoxon signed-rank test compares the
best row after N interactions with every other one, question by question.

Models: gppl, mcd and swag are Bayesian (imp, tp, eig, unpa, random); bt and deep (the non-Bayesian deep
ranker) are point estimates and use unc or random. The peer ``pairwisegp`` (BoTorch's PairwiseGP, optional)
takes BoTorch's own ``eubo`` and ``botorch_ei`` (see ``assistant.evaluation.peers.pairwise_gp``). One "interaction" = choose a pair + the user's answer +
refit + posterior over all candidates; its wall time is ``seconds_per_interaction``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from assistant.errors import ConfigError, ModelMissingError, from_model_errors
from assistant.evaluation.cqa.data import canonical_name, load_dataset
from assistant.evaluation.cqa.problems import RankingProblem, build_problems, cache_dir, split_indices
from assistant.progress import Job, Progress, metrics_of
from assistant.ranking.acquisition import ACQUISITIONS, ALIASES, acquisition_fits, first_pair, make_acquisition
from assistant.ranking.base import OUTCOME_OF, Comparisons, PreferenceModel
from assistant.ranking.bt import BradleyTerry
from assistant.ranking.gppl import GPPL
from assistant.ranking.oracle import NoisyOracle, ndcg_at_k, top1_accuracy

MODELS = ("gppl", "bt", "mcd", "deep", "swag", "pairwisegp")
PEER_STRATEGIES = ("eubo", "botorch_ei")
STRATEGIES = (*ACQUISITIONS, *PEER_STRATEGIES)


@dataclass
class RankerSettings:
    """Hyperparameters of the evaluated models.

    GPPL's three scales were chosen on the dev split of beer (t = 0.3, three oracle seeds) by
    ``python -m benchmarks.bench_ranking_quality --tune --datasets beer``; the rest are BDL's or plain defaults.
    """

    gppl_output_scale: float = 4.0
    gppl_prior_scale: float = 0.5
    gppl_lengthscale_factor: float = 2.0
    bt_l2: float = 1.0
    bt_prior_scale: float = 1.0
    deep_steps: int = 30
    deep_finetune: str = "all"
    deep_anchor: float = 0.0
    deep_lr: float = 1e-3
    deep_weight_decay: float = 1e-4
    deep_dropout: float = 0.2
    deep_hidden: int = 256
    deep_epochs: int = 8
    deep_prior_weight: float = 5.0
    mcd_samples: int = 20
    swag_epochs: int = 2
    swag_scale: float = 1.0


def model_class(name: str) -> type[PreferenceModel]:
    """The class of the model called ``name`` (the deep ones import torch, so only when asked for)."""
    if name == "gppl":
        return GPPL
    if name == "bt":
        return BradleyTerry
    if name == "pairwisegp":
        from assistant.evaluation.peers.pairwise_gp import PairwiseGPRanker

        return PairwiseGPRanker
    from assistant.ranking.deep import DeepRanker, MCDropoutRanker, SWAGRanker

    deep: dict[str, type[PreferenceModel]] = {"mcd": MCDropoutRanker, "deep": DeepRanker, "swag": SWAGRanker}
    return deep[name]


def compatible(model: str, strategy: str) -> bool:
    """Bayesian models take every strategy but UNC; point estimates take UNC and random; BoTorch's
    acquisitions go with the PairwiseGP peer only, which takes those and random."""
    if model == "pairwisegp" or strategy in PEER_STRATEGIES:
        return model == "pairwisegp" and strategy in (*PEER_STRATEGIES, "random")
    return acquisition_fits(ACQUISITIONS[strategy], model_class(model))


def make_acquisition_for(strategy: str, noise: float):
    """Our acquisition ``strategy``, or BoTorch's for the PairwiseGP peer."""
    if strategy in PEER_STRATEGIES:
        from assistant.evaluation.peers.pairwise_gp import PEER_ACQUISITIONS

        return PEER_ACQUISITIONS[strategy]()
    return make_acquisition(strategy, noise=noise)


def parse_list(text: str | Sequence[str], allowed: Sequence[str], what: str) -> list[str]:
    items = [s.strip().lower() for s in (text.split(",") if isinstance(text, str) else text) if s.strip()]
    items = [ALIASES.get(s, s) for s in items]
    bad = [s for s in items if s not in allowed]
    if bad or not items:
        raise ConfigError(f"unknown {what} {', '.join(bad) or '(none given)'}: choose from {', '.join(allowed)}")
    return list(dict.fromkeys(items))


def make_model(name: str, settings: RankerSettings, pretrained, seed: int, moments=None) -> PreferenceModel:
    """A fresh model ``name`` with ``settings`` (the deep ones start from ``pretrained``)."""
    if name == "pairwisegp":
        from assistant.evaluation.peers.pairwise_gp import PairwiseGPRanker

        return PairwiseGPRanker(prior_scale=settings.gppl_prior_scale, seed=seed)
    if name == "gppl":
        return GPPL(
            output_scale=settings.gppl_output_scale,
            prior_scale=settings.gppl_prior_scale,
            lengthscale_factor=settings.gppl_lengthscale_factor,
        )
    if name == "bt":
        return BradleyTerry(l2=settings.bt_l2, prior_scale=settings.bt_prior_scale)
    from assistant.ranking.deep import DeepRanker, MCDropoutRanker

    kwargs: dict[str, Any] = {
        "steps": settings.deep_steps,
        "lr": settings.deep_lr,
        "weight_decay": settings.deep_weight_decay,
        "finetune": settings.deep_finetune,
        "anchor": settings.deep_anchor,
    }
    if name == "mcd":
        return MCDropoutRanker(pretrained, samples=settings.mcd_samples, seed=seed, **kwargs)
    if name == "swag":
        from assistant.ranking.deep import SWAGRanker

        return SWAGRanker(
            pretrained, moments, samples=settings.mcd_samples, scale=settings.swag_scale, seed=seed, **kwargs
        )
    return DeepRanker(pretrained, seed=seed, **kwargs)


def run_interactions(
    model: PreferenceModel,
    strategy: str,
    features: np.ndarray,
    prior: np.ndarray,
    similarity_features: np.ndarray,
    utilities: np.ndarray,
    draws: np.ndarray,
    t: float,
    rng: np.random.Generator,
    use_first_pair: bool = True,
) -> tuple[np.ndarray, np.ndarray, float]:
    """One simulated ranking dialogue of len(draws) interactions.

    Returns (accuracy [N + 1], ndcg5 [N + 1], mean seconds per interaction); index k is after k answers.
    BO's first pair (best under the model's initial mean vs the least similar candidate by
    ``similarity_features``) opens every strategy except random.
    """
    n_steps = len(draws)
    acquisition = make_acquisition_for(strategy, model.noise)
    oracle = NoisyOracle(utilities, t=t, draws=draws)
    comparisons = Comparisons.empty()
    posterior = model.fit(features, prior, comparisons).posterior()
    acc = np.zeros(n_steps + 1)
    ndcg = np.zeros(n_steps + 1)
    acc[0], ndcg[0] = top1_accuracy(posterior.mean, utilities), ndcg_at_k(posterior.mean, utilities)
    elapsed = 0.0
    for k in range(1, n_steps + 1):
        start = time.perf_counter()
        if k == 1 and use_first_pair and strategy != "random":
            pair = first_pair(posterior.mean, similarity_features)
        else:
            pair = acquisition.select(posterior, comparisons.seen(), rng)
        if pair is not None:
            answer = oracle.answer(*pair)
            comparisons = comparisons.add(pair[0], pair[1], OUTCOME_OF[answer])
            posterior = model.fit(features, prior, comparisons).posterior()
        elapsed += time.perf_counter() - start
        acc[k], ndcg[k] = top1_accuracy(posterior.mean, utilities), ndcg_at_k(posterior.mean, utilities)
    return acc, ndcg, elapsed / max(n_steps, 1)


def _wilcoxon(per_question: dict[tuple[str, str], dict[str, np.ndarray]], keys: list[tuple[str, str]]) -> dict:
    from scipy.stats import wilcoxon

    def score(key):
        v = per_question[key]
        return (float(v["accuracy"].mean()), float(v["ndcg5"].mean()))

    best = max(keys, key=score)
    tests = []
    for key in keys:
        if key == best:
            continue
        entry: dict[str, Any] = {"model": key[0], "strategy": key[1]}
        for metric in ("accuracy", "ndcg5"):
            a, b = per_question[best][metric], per_question[key][metric]
            if np.allclose(a, b):
                stat, p = 0.0, 1.0
            else:
                res = wilcoxon(a, b, zero_method="wilcox")
                stat, p = float(res.statistic), float(res.pvalue)
            entry[f"{metric}_statistic"] = stat
            entry[f"{metric}_p_value"] = p
        tests.append(entry)
    return {"best": {"model": best[0], "strategy": best[1]}, "tests": tests}


def evaluate(
    dataset: str,
    interactions: int = 10,
    strategies: Sequence[str] = ("imp", "tp", "eig", "unpa", "unc", "random"),
    models: Sequence[str] = MODELS,
    seed: int = 0,
    t: float = 0.3,
    split: str = "test",
    data_dir: str | Path | None = None,
    n_candidates: int = 100,
    max_questions: int | None = None,
    settings: RankerSettings | None = None,
    encoder=None,
    combos: Sequence[tuple[str, str]] | None = None,
) -> Job[dict]:
    """Evaluate ranking strategies on ``dataset``; yields Progress per question, returns the result dict.

    Every compatible (model, strategy) of ``models`` x ``strategies`` runs, unless ``combos`` lists the
    (model, strategy) pairs to run instead.
    """
    if interactions < 0:
        raise ConfigError(f"--interactions must be >= 0, got {interactions}")
    if not (np.isfinite(t) and t > 0):
        raise ConfigError(f"noise level t must be positive, got {t}")
    if split not in ("train", "dev", "test", "all"):
        raise ConfigError(f"unknown split {split!r}: use dev, test, train or all")
    settings = settings or RankerSettings()
    if combos is None:
        strategies = parse_list(strategies, STRATEGIES, "strategy")
        models = parse_list(models, MODELS, "model")
        combos = [(m, s) for m in models for s in strategies if compatible(m, s)]
    else:
        combos = [(parse_list([m], MODELS, "model")[0], parse_list([s], STRATEGIES, "strategy")[0]) for m, s in combos]
        strategies = list(dict.fromkeys(s for _, s in combos))
        models = list(dict.fromkeys(m for m, _ in combos))
    if not combos:
        raise ConfigError(
            f"no model takes the strategies {', '.join(strategies)}: UNC goes with bt/deep, the rest with gppl/mcd"
        )
    name = canonical_name(dataset)
    data = load_dataset(name, data_dir)
    num_evaluable = len(data.evaluable)
    splits = split_indices(num_evaluable)
    chosen = np.arange(num_evaluable) if split == "all" else splits[split]
    if max_questions is not None:
        chosen = chosen[:max_questions]
    if len(chosen) == 0:
        raise ConfigError(f"the {split} split of {name} has no questions")
    # only the questions evaluated (and the deep rankers' training questions) get candidates and ROUGE-L
    needed = set(chosen.tolist())
    if any(m in ("mcd", "deep", "swag") for m, _ in combos):
        needed |= set(splits["train"].tolist())
    positions = sorted(needed)
    built: list[RankingProblem] = yield from build_problems(
        data,
        n_candidates=n_candidates,
        encoder=encoder,
        positions=positions if len(positions) < num_evaluable else None,
    )
    problems: dict[int, RankingProblem] = dict(zip(positions, built))

    pretrained = moments = None
    if any(m in ("mcd", "deep", "swag") for m, _ in combos):
        from assistant.ranking.deep import RankingExample, collect_swag, pretrain_deep_ranker
        from models.checkpoint import data_hash
        from models.deep_ranker import load_ranker, pair_features, save_ranker

        train = [problems[i] for i in splits["train"]]
        examples = [RankingExample(pair_features(p.question_embedding, p.embeddings), p.utilities) for p in train]
        options: dict[str, Any] = {
            "epochs": settings.deep_epochs,
            "hidden": settings.deep_hidden,
            "dropout": settings.deep_dropout,
            "prior_weight": settings.deep_prior_weight,
        }
        # Pretraining takes a while and depends only on the training questions: kept between evaluations.
        path = cache_dir() / f"{name}-deep-ranker"
        trained_on = data_hash([*(e.features for e in examples), *(e.utilities for e in examples), options, seed])
        try:
            with from_model_errors():
                pretrained, _ = load_ranker(path, trained_on)
        except ModelMissingError:
            pretrained = yield from pretrain_deep_ranker(examples, seed=seed, **options)
            save_ranker(pretrained, path, {"dataset": name, "questions": len(examples)}, trained_on)
        if any(m == "swag" for m, _ in combos):
            moments = yield from collect_swag(pretrained, examples, seed=seed, epochs=settings.swag_epochs)

    per_question: dict[tuple[str, str], dict[str, list]] = {
        c: {"accuracy": [], "ndcg5": [], "seconds": []} for c in combos
    }
    prior_scores: dict[str, list] = {"accuracy": [], "ndcg5": []}
    for done, qi in enumerate(chosen):
        problem = problems[qi]
        draws = np.random.default_rng([seed, int(qi)]).random(max(interactions, 1))[:interactions]
        prior_scores["accuracy"].append(top1_accuracy(problem.prior, problem.utilities))
        prior_scores["ndcg5"].append(ndcg_at_k(problem.prior, problem.utilities))
        deep_x = None
        for model_name, strategy in combos:
            if model_name in ("mcd", "deep", "swag"):
                from models.deep_ranker import pair_features

                deep_x = pair_features(problem.question_embedding, problem.embeddings) if deep_x is None else deep_x
                x = deep_x
            else:
                x = problem.embeddings
            model = make_model(model_name, settings, pretrained, seed, moments)
            acc, ndcg, secs = run_interactions(
                model,
                strategy,
                x,
                problem.prior,
                problem.embeddings,
                problem.utilities,
                draws,
                t,
                np.random.default_rng([seed, int(qi), 1]),
            )
            store = per_question[(model_name, strategy)]
            store["accuracy"].append(acc)
            store["ndcg5"].append(ndcg)
            store["seconds"].append(secs)
        last = per_question[combos[0]]
        yield Progress(
            done + 1,
            len(chosen),
            f"{name} questions",
            metrics_of(**{f"{combos[0][0]}+{combos[0][1]}": float(np.mean([a[-1] for a in last["accuracy"]]))}),
        )

    n_q = len(chosen)
    rows = [
        {
            "model": "prior",
            "strategy": "none",
            "interactions": 0,
            "accuracy": float(np.mean(prior_scores["accuracy"])),
            "ndcg5": float(np.mean(prior_scores["ndcg5"])),
            "seconds_per_interaction": 0.0,
            "questions": n_q,
        }
    ]
    final: dict[tuple[str, str], dict[str, np.ndarray]] = {
        ("prior", "none"): {"accuracy": np.array(prior_scores["accuracy"]), "ndcg5": np.array(prior_scores["ndcg5"])}
    }
    for (model_name, strategy), store in per_question.items():
        acc = np.array(store["accuracy"])  # [Q, N + 1]
        ndcg = np.array(store["ndcg5"])
        secs = float(np.mean(store["seconds"]))
        for k in range(interactions + 1):
            rows.append(
                {
                    "model": model_name,
                    "strategy": strategy,
                    "interactions": k,
                    "accuracy": float(acc[:, k].mean()),
                    "ndcg5": float(ndcg[:, k].mean()),
                    "seconds_per_interaction": secs,
                    "questions": n_q,
                }
            )
        final[(model_name, strategy)] = {"accuracy": acc[:, -1], "ndcg5": ndcg[:, -1]}
    result = {
        "dataset": name,
        "split": split,
        "t": t,
        "seed": seed,
        "interactions": interactions,
        "questions": n_q,
        "candidates_per_question": float(np.mean([len(problems[int(i)].texts) for i in chosen])),
        "settings": asdict(settings),
        "blas": f"OPENBLAS_THREAD_TIMEOUT={os.environ.get('OPENBLAS_THREAD_TIMEOUT', 'unset')}",
        "rows": rows,
        "wilcoxon": {"interactions": interactions, **_wilcoxon(final, list(final))},
    }
    return result


def final_table(result: dict, at: Sequence[int] | None = None) -> str:
    """A plain-text table: accuracy and NDCG@5 after selected numbers of interactions, per model + strategy."""
    n = result["interactions"]
    at = sorted({k for k in (at or (0, 1, 4, n)) if 0 <= k <= n})
    rows = result["rows"]
    keys = list(dict.fromkeys((r["model"], r["strategy"]) for r in rows))
    header = f"{'model':<6} {'strategy':<8} " + " ".join(f"{'acc@' + str(k):>7} {'ndcg@' + str(k):>8}" for k in at)
    header += f" {'ms/step':>8}  p(acc) p(ndcg)"
    tests = {(e["model"], e["strategy"]): e for e in result["wilcoxon"]["tests"]}
    best = (result["wilcoxon"]["best"]["model"], result["wilcoxon"]["best"]["strategy"])
    lines = [header]
    for key in keys:
        by_k = {r["interactions"]: r for r in rows if (r["model"], r["strategy"]) == key}
        cells = []
        for k in at:
            r = by_k.get(k) or by_k[0]
            cells.append(f"{100 * r['accuracy']:7.1f} {100 * r['ndcg5']:8.1f}")
        ms = 1000 * next(iter(by_k.values()))["seconds_per_interaction"]
        test = tests.get(key)
        p = (
            "   best"
            if key == best
            else (f" {test['accuracy_p_value']:6.3f} {test['ndcg5_p_value']:6.3f}" if test else "")
        )
        lines.append(f"{key[0]:<6} {key[1]:<8} " + " ".join(cells) + f" {ms:8.2f} {p}")
    return "\n".join(lines)
