"""RL summaries (BO Table 6) and the RLQA protocol on DUC.

``evaluate_rl``: per topic, the first model summary is the simulated user (t = 1); GPPL + IMP ranks the
10,000 candidates for ``interactions`` comparisons; the RL summarizer trains on the learned reward; its
summary is scored with the libraries' ROUGE (recall, mean over all the topic's model summaries). Beside it:
the lead baseline (first sentences of the first document up to 100 words), the best candidate under the
learned ranking, and the RL summarizer trained on the gold utility (upper bound).

``evaluate_rlqa``: train the RLQA learner on the first K topics of a training set (DUC 2002 by default;
K = 10, 20, 30), without and with the simulated top-5 user, then summarise every topic of the test set
(DUC 2004) greedily; ROUGE-1/2 recall against its model summaries, and the lead baseline.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from assistant.progress import Job, Progress, metrics_of
from assistant.ranking.acquisition import first_pair, make_acquisition
from assistant.ranking.base import OUTCOME_OF, Comparisons
from assistant.ranking.oracle import NoisyOracle
from assistant.summarization.candidates import fill
from assistant.summarization.documents import load_duc
from assistant.summarization.prepare import cached_topic
from assistant.summarization.ranker import SummaryRankerSettings, make_model
from assistant.summarization.rl import GoldReward, LearnedReward, RLSettings, RLSummarizer
from assistant.summarization.rouge import RougeScorer


def _rouge(prepared, summary) -> dict[str, float]:
    scores = RougeScorer().score([prepared.table.texts[i] for i in summary], prepared.topic.references)
    return {
        "rouge1": scores["rouge1"]["r"],
        "rouge2": scores["rouge2"]["r"],
        "rougeL": scores["rougeL"]["r"],
        "rougesu4": scores["rougesu4"]["r"],
    }


def lead_summary(table, max_words: int = 100) -> tuple[int, ...]:
    return fill(np.flatnonzero(table.doc_index == 0), table.words, max_words)


def evaluate_rl(
    dataset: str,
    interactions: int = 20,
    episodes: int = 2000,
    prior: str = "reaper",
    seed: int = 0,
    t: float = 1.0,
    n_candidates: int = 10_000,
    max_topics: int | None = None,
    data_dir: str | Path | None = None,
    settings: SummaryRankerSettings | None = None,
    upper_bound: bool = True,
) -> Job[dict]:
    settings = settings or SummaryRankerSettings()
    topics = load_duc(dataset, data_dir)[: max_topics or None]
    systems: dict[str, list[dict]] = {"lead": [], "best candidate (GPPL+IMP)": [], "RL (learned reward)": []}
    if upper_bound:
        systems["RL (gold reward, upper bound)"] = []
    for ti, topic in enumerate(topics):
        prepared = yield from cached_topic(dataset.lower(), topic, n_candidates, seed, minilm=prior == "minilm")
        x, p, gold = prepared.features["bigram"], prepared.priors[prior], prepared.gold[0]
        model = make_model("imp", settings)
        acquisition = make_acquisition("imp", noise=model.noise)
        oracle = NoisyOracle(gold, t=t, draws=np.random.default_rng([seed, ti, 0]).random(max(interactions, 1)))
        comparisons = Comparisons.empty()
        posterior = model.fit(x, p, comparisons).posterior()
        for k in range(interactions):
            pair = (
                first_pair(posterior.mean, x)
                if k == 0
                else acquisition.select(posterior, comparisons.seen(), np.random.default_rng([seed, ti, k]))
            )
            comparisons = comparisons.add(pair[0], pair[1], OUTCOME_OF[oracle.answer(*pair)])
            posterior = model.fit(x, p, comparisons).posterior()
        systems["lead"].append(_rouge(prepared, lead_summary(prepared.table)))
        systems["best candidate (GPPL+IMP)"].append(
            _rouge(prepared, prepared.candidates.summaries[int(np.argmax(posterior.mean))])
        )
        agent = RLSummarizer(prepared, LearnedReward(prepared, model, prior), RLSettings(episodes=episodes), seed)
        systems["RL (learned reward)"].append(_rouge(prepared, (yield from agent.train())))
        if upper_bound:
            agent = RLSummarizer(
                prepared, GoldReward(prepared.table, topic.references[:1]), RLSettings(episodes=episodes), seed
            )
            systems["RL (gold reward, upper bound)"].append(_rouge(prepared, (yield from agent.train())))
        yield Progress(
            ti + 1,
            len(topics),
            f"{dataset} RL summaries",
            metrics_of(rl_r2=float(np.mean([s["rouge2"] for s in systems["RL (learned reward)"]]))),
        )
    rows = [
        {"system": name, "topics": len(v), **{m: float(np.mean([s[m] for s in v])) for m in v[0]}}
        for name, v in systems.items()
        if v
    ]
    return {
        "dataset": dataset.lower(),
        "interactions": interactions,
        "episodes": episodes,
        "prior": prior,
        "seed": seed,
        "rouge": "recall; rouge-score (R1, R2, RL) + rouge-metric (SU4), not Perl ROUGE-1.5.5",
        "rows": rows,
    }


def evaluate_rlqa(
    train_set: str = "duc2002",
    test_set: str = "duc2004",
    train_sizes: Sequence[int] = (10, 20, 30),
    epochs: int = 30,
    seed: int = 0,
    max_test: int | None = None,
    data_dir: str | Path | None = None,
    encoder=None,
) -> Job[dict]:
    from assistant.summarization.prepare import sentence_encoder
    from assistant.summarization.rlqa import RLQALearner, RLQASettings, RLQATopic
    from assistant.summarization.text import SentenceTable

    enc = sentence_encoder(encoder)

    def build(topics) -> Job[list]:
        out = []
        for i, topic in enumerate(topics):
            table = SentenceTable.from_documents(topic.documents)
            out.append(RLQATopic.build(table, topic.question, topic.references, enc.encode(table.texts)))
            yield Progress(i + 1, len(topics), "preparing topics")
        return out

    train = yield from build(load_duc(train_set, data_dir)[: max(train_sizes)])
    test = yield from build(load_duc(test_set, data_dir)[: max_test or None])
    scorer = RougeScorer()

    def score(topics, summaries) -> dict[str, float]:
        each = [scorer.score([tp.table.texts[i] for i in s], tp.references) for tp, s in zip(topics, summaries)]
        return {m: float(np.mean([e[m]["r"] for e in each])) for m in ("rouge1", "rouge2", "rougesu4")}

    rows = [{"system": "lead", "train_topics": 0, **score(test, [lead_summary(tp.table) for tp in test])}]
    untrained = RLQALearner(RLQASettings(epochs=epochs), seed)
    rows.append(
        {
            "system": "RLQA untrained (initial weights)",
            "train_topics": 0,
            **score(test, [untrained.summarize(tp) for tp in test]),
        }
    )
    for k in train_sizes:
        for user in (False, True):
            learner = RLQALearner(RLQASettings(epochs=epochs), seed)
            yield from learner.train(train[:k], simulated_user=user)
            name = "RLQA + simulated top-5 user" if user else "RLQA (no interaction)"
            rows.append(
                {
                    "system": name,
                    "train_topics": k,
                    **score(test, [learner.summarize(tp) for tp in test]),
                    "weights": learner.weights.tolist(),
                }
            )
    lead_r2 = rows[0]["rouge2"]
    for r in rows:
        r["rouge2_vs_lead_percent"] = 100.0 * (r["rouge2"] - lead_r2) / lead_r2 if lead_r2 > 0 else 0.0
    return {
        "train_set": train_set,
        "test_set": test_set,
        "test_topics": len(test),
        "epochs": epochs,
        "seed": seed,
        "rouge": "recall; rouge-score + rouge-metric, not Perl ROUGE-1.5.5",
        "rows": rows,
    }
