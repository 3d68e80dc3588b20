"""RL summaries (BO Table 6) and the RLQA protocol on DUC.

``evaluate_rl`` follows BO's ``stage2_reinf_learning.py``: every (topic, model summary) is one simulated
user (t = 1, gold = BO eq. 8 against that model summary); GPPL + IMP ranks the topic's 10,000 candidates
for ``interactions`` comparisons with the same oracle draws as the rating protocol; the RL summarizer
trains on the learned ranking function; its summary is scored with ROUGE recall against *that user's*
model summary (BO scores each user's summary against its own reference), averaged over users. Beside it,
against the same references: the lead baseline (the first sentences of the topic's first document up to
100 words), the best candidate under the learned ranking, the best candidate under the gold (the best of
the 10,000 random candidates), and the RL summarizer trained on the user's gold utility (the upper bound).

``evaluate_rlqa``: see its docstring.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np

from assistant.errors import ConfigError
from assistant.evaluation.summaries.rating import dialogue, user_draws
from assistant.progress import Job, Progress, metrics_of, run_job
from assistant.ranking.oracle import NoisyOracle
from assistant.summarization.candidates import fill
from assistant.summarization.documents import load_duc
from assistant.summarization.prepare import cached_topic
from assistant.summarization.ranker import SummaryRankerSettings, make_model
from assistant.summarization.rewards import GoldReward, LearnedReward
from assistant.summarization.rl import RLSettings, RLSummarizer
from assistant.summarization.rouge import RougeScorer

METRICS = ("rouge1", "rouge2", "rougeL", "rougesu4")


def _rouge(scorer: RougeScorer, table, summary, references) -> dict[str, float]:
    scores = scorer.score([table.texts[i] for i in summary], references)
    return {m: scores[m]["r"] for m in METRICS}


def lead_summary(table, max_words: int = 100) -> tuple[int, ...]:
    return fill(np.flatnonzero(table.doc_index == 0), table.words, max_words)


def evaluate_rl(
    dataset: str,
    interactions: int = 20,
    prior: str = "reaper",
    seed: int = 0,
    t: float = 1.0,
    n_candidates: int = 10_000,
    max_topics: int | None = None,
    topics: Sequence[int] | None = None,
    data_dir: str | Path | None = None,
    settings: SummaryRankerSettings | None = None,
    rl_settings: RLSettings | None = None,
    upper_bound: bool = True,
    encoder=None,
) -> Job[dict]:
    """Run the protocol (see the module docstring); returns {"rows": [{"system", "users", "rouge1", ...}]}."""
    settings = settings or SummaryRankerSettings()
    rl_settings = rl_settings or RLSettings()
    key = dataset.lower()
    all_topics = load_duc(key, data_dir)
    chosen = list(range(len(all_topics))) if topics is None else [int(i) for i in topics]
    chosen = chosen[: max_topics or None]
    if encoder is None and prior == "minilm":
        from models.pretrained import SentenceEncoder

        encoder = SentenceEncoder()
    names = ["lead", "best candidate (GPPL+IMP)", "RL (learned reward)", "best candidate (gold)"]
    if upper_bound:
        names.append("RL (gold reward, upper bound)")
    systems: dict[str, list[dict]] = {name: [] for name in names}
    scorer = RougeScorer()
    seconds: list[float] = []
    for done, ti in enumerate(chosen):
        topic = all_topics[ti]
        prepared = yield from cached_topic(key, topic, n_candidates, seed, encoder, minilm=prior == "minilm")
        x, p, table = prepared.features["bigram"], prepared.priors[prior], prepared.table
        model = make_model("imp", settings)
        assert prepared.gold is not None  # the DUC topics come with their gold ratings
        for ri, gold in enumerate(prepared.gold):
            reference = [topic.references[ri]]
            oracle = NoisyOracle(gold, t=t, draws=user_draws(seed, ti, ri, interactions))
            rng = np.random.default_rng([seed, ti, ri, 1])
            *_, (_k, posterior, _s) = dialogue(model, "imp", x, p, oracle, interactions, rng, settings.pool_size)
            systems["lead"].append(_rouge(scorer, table, lead_summary(table), reference))
            best = prepared.candidates.summaries[int(np.argmax(posterior.mean))]
            systems["best candidate (GPPL+IMP)"].append(_rouge(scorer, table, best, reference))
            oracle_best = prepared.candidates.summaries[int(np.argmax(gold))]
            systems["best candidate (gold)"].append(_rouge(scorer, table, oracle_best, reference))
            start = time.perf_counter()
            agent = RLSummarizer(prepared, LearnedReward(prepared, model, prior), rl_settings, seed)
            systems["RL (learned reward)"].append(_rouge(scorer, table, (yield from agent.train()), reference))
            seconds.append(time.perf_counter() - start)
            if upper_bound:
                agent = RLSummarizer(prepared, GoldReward(table, reference), rl_settings, seed)
                summary = yield from agent.train()
                systems["RL (gold reward, upper bound)"].append(_rouge(scorer, table, summary, reference))
        rl_r2 = float(np.mean([s["rouge2"] for s in systems["RL (learned reward)"]]))
        yield Progress(done + 1, len(chosen), f"{key} RL summaries", metrics_of(rl_rouge2=rl_r2))
    rows = [
        {"system": name, "users": len(v), **{m: float(np.mean([s[m] for s in v])) for m in METRICS}}
        for name, v in systems.items()
        if v
    ]
    per_user = {name: [s["rouge2"] for s in v] for name, v in systems.items()}
    return {
        "dataset": key,
        "interactions": interactions,
        "prior": prior,
        "features": "bigram",
        "seed": seed,
        "topics": len(chosen),
        "rl_settings": {k: getattr(rl_settings, k) for k in rl_settings.__dataclass_fields__},
        "rl_seconds_mean": float(np.mean(seconds)) if seconds else 0.0,
        "rouge": "recall against the simulated user's own model summary; rouge-score (R1, R2, RL) + rouge-metric "
        "(SU4), not Perl ROUGE-1.5.5",
        "rows": rows,
        "per_user_rouge2": per_user,
    }


def evaluate_rlqa(
    train_sets: Sequence[str] = ("duc2001", "duc2002"),
    test_set: str = "duc2004",
    train_sizes: Sequence[int] = (10, 20, 30),
    epochs: int = 30,
    seed: int = 0,
    max_test: int | None = None,
    data_dir: str | Path | None = None,
    encoder=None,
    settings=None,
) -> Job[dict]:
    """The RLQA protocol (Chali et al. 2015 on DUC): train the learner on the first K topics of the training
    sets (in order: DUC 2001's 28, then DUC 2002's), K in ``train_sizes``, without interaction and with the
    simulated top-5 user (it picks, among the learner's top 5 next sentences, the one with the highest
    ROUGE gain against the model summaries); then summarise every test topic greedily, without references
    or interaction. ROUGE recall against all the test topic's model summaries (mean), beside the lead
    baseline and the untrained learner (its starting weights)."""
    from assistant.summarization.rlqa import RLQALearner, RLQASettings

    if isinstance(train_sets, str):
        train_sets = [train_sets]
    if test_set in train_sets:
        raise ConfigError("the RLQA training and test data sets must differ")
    if not train_sizes or min(train_sizes) < 1:
        raise ConfigError("give at least one number of training topics (>= 1)")
    base = settings or RLQASettings()

    train: list = []
    for name in train_sets:
        if len(train) < max(train_sizes):
            train += yield from rlqa_topics(name, load_duc(name, data_dir)[: max(train_sizes) - len(train)], encoder)
    if len(train) < max(train_sizes):
        raise ConfigError(f"{' + '.join(train_sets)} hold only {len(train)} topics, fewer than {max(train_sizes)}")
    test = yield from rlqa_topics(test_set, load_duc(test_set, data_dir)[: max_test or None], encoder)
    scorer = RougeScorer()

    def score(summaries) -> dict[str, float]:
        return rlqa_rouge(scorer, test, summaries)

    def learner() -> RLQALearner:
        return RLQALearner(replace(base, epochs=epochs), seed)

    rows: list[dict[str, Any]] = [
        {"system": "lead", "train_topics": 0, **score([lead_summary(tp.table) for tp in test])}
    ]
    rows.append(
        {
            "system": "RLQA untrained (initial weights)",
            "train_topics": 0,
            **score([learner().summarize(tp) for tp in test]),
        }
    )
    for k in train_sizes:
        for user in (False, True):
            trained = learner()
            yield from trained.train(train[:k], simulated_user=user)
            name = "RLQA + simulated top-5 user" if user else "RLQA (no interaction)"
            summaries = [trained.summarize(tp) for tp in test]
            rows.append({"system": name, "train_topics": k, **score(summaries), "weights": trained.weights.tolist()})
            yield Progress(len(rows), 2 + 2 * len(train_sizes), "RLQA systems", metrics_of(rouge2=rows[-1]["rouge2"]))
    lead_r2 = rows[0]["rouge2"]
    for r in rows:
        r["rouge2_vs_lead_percent"] = 100.0 * (r["rouge2"] - lead_r2) / lead_r2 if lead_r2 > 0 else 0.0
    return {
        "train_sets": list(train_sets),
        "test_set": test_set,
        "test_topics": len(test),
        "epochs": epochs,
        "seed": seed,
        "settings": asdict(replace(base, epochs=epochs)),
        "rouge": "recall against all model summaries of a test topic (mean); rouge-score + rouge-metric, "
        "not Perl ROUGE-1.5.5",
        "rows": rows,
    }


def rlqa_topics(dataset: str, topics, encoder=None) -> Job[list]:
    """The DUC ``topics`` of ``dataset`` ready for the RLQA learner (sentences, features, cached embeddings)."""
    from assistant.summarization.prepare import cached_embeddings
    from assistant.summarization.rlqa import RLQATopic
    from assistant.summarization.text import SentenceTable

    out = []
    for i, topic in enumerate(topics):
        table = SentenceTable.from_documents(topic.documents)
        vectors = cached_embeddings(dataset, topic, table.texts, encoder)
        out.append(RLQATopic.build(table, topic.question, topic.references, vectors))
        yield Progress(i + 1, len(topics), f"preparing {dataset} topics")
    return out


def rlqa_rouge(scorer: RougeScorer, topics, summaries) -> dict[str, float]:
    """Mean ROUGE-1 / 2 / SU4 recall of ``summaries`` (sentence indices) against each topic's model summaries."""
    each = [scorer.score([tp.table.texts[i] for i in s], tp.references) for tp, s in zip(topics, summaries)]
    return {m: float(np.mean([e[m]["r"] for e in each])) for m in ("rouge1", "rouge2", "rougesu4")}


RLQA_GRID = {"learning_rate": (0.001, 0.002, 0.005, 0.01, 0.05), "trace_decay": (0.0, 0.8), "epochs": (10, 30)}


def cross_validate_rlqa(
    dataset: str = "duc2001",
    folds: int = 4,
    grid: dict | None = None,
    seed: int = 0,
    data_dir: str | Path | None = None,
    encoder=None,
) -> Job[dict]:
    """How ``RLQASettings``' learning rate, trace decay and epochs were chosen: ``folds``-fold cross-validation
    over ``dataset``'s topics (topic i is in fold i mod ``folds``), ROUGE-2 recall of the greedy summaries of
    each held-out fold, trained without and with the simulated top-5 user; rows beside lead and the untrained
    weights, best (by the mean of both) first."""
    import itertools

    from assistant.summarization.rlqa import RLQALearner, RLQASettings

    grid = grid or RLQA_GRID
    topics = yield from rlqa_topics(dataset, load_duc(dataset, data_dir), encoder)
    if len(topics) < folds or folds < 2:
        raise ConfigError(f"cross-validation needs 2 <= folds <= topics; {dataset} has {len(topics)} topics")
    scorer = RougeScorer()

    def cv(make) -> float:
        scores = []
        for f in range(folds):  # the training topics in their data set's order, as evaluate_rlqa takes them
            held = [t for i, t in enumerate(topics) if i % folds == f]
            train = [t for i, t in enumerate(topics) if i % folds != f]
            scores.append(rlqa_rouge(scorer, held, make(train, held))["rouge2"])
        return float(np.mean(scores))

    rows: list[dict[str, Any]] = [
        {"system": "lead", "rouge2": cv(lambda _tr, held: [lead_summary(t.table) for t in held])},
        {"system": "untrained", "rouge2": cv(lambda _tr, held: [RLQALearner().summarize(t) for t in held])},
    ]
    settings = [dict(zip(grid, values)) for values in itertools.product(*grid.values())]
    for n, values in enumerate(settings, start=1):

        def trained(user: bool, values=values):
            def make(train, held):
                learner = RLQALearner(RLQASettings(**values), seed)
                run_job(learner.train(train, simulated_user=user))
                return [learner.summarize(t) for t in held]

            return make

        rows.append({**values, "rouge2": cv(trained(False)), "rouge2_user": cv(trained(True))})
        yield Progress(n, len(settings), "cross-validating RLQA", metrics_of(rouge2=rows[-1]["rouge2"]))
    tuned = sorted(rows[2:], key=lambda r: -(r["rouge2"] + r["rouge2_user"]))
    return {"dataset": dataset, "folds": folds, "seed": seed, "rows": rows[:2] + tuned}
