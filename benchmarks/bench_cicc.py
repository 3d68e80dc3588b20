"""CICC's protocol (conformal intent classification and clarification, Findings of NAACL 2024) on BANKING77
and CLINC150: the standard test splits (clear queries) and their vague versions, at 90%, 95% and 99%.

Per data set, kind of query and level: the CICC-style baseline built on Clarify's prior (split conformal on
the first belief, fitted on dev; answer a single intent, "Which of these is it?" over 2-6, rephrase above)
and Clarify's policy with the compare-only-when-covered rule at that level, plus Clarify's policy as it
ships (``assistant.evaluation.cicc``); the figures CICC published beside them, marked as not measured here.
Acc@1 and actions per query carry 95% bootstrap intervals over the queries and the simulator's seeds, and
ours' paired differences against the baseline a verdict ("tie" where the interval holds 0).

    clarify bench run --only cicc                          # the whole test splits, 3 simulator seeds
    clarify bench run --only cicc --set cicc.max_queries=400 --set cicc.max_dev=600 --set cicc.dev_copies=1  # reduced
    python -m benchmarks.bench_cicc [--quick] [--set max_queries=400]                  # this benchmark alone
"""

from __future__ import annotations

import numpy as np

from assistant.app.desk.domains import prepare
from assistant.app.lifecycle.registry import ModelRegistry
from assistant.app.research.research import evaluation_setup
from assistant.clarification.conformal import ConformalShortlist
from assistant.evaluation import cicc
from assistant.evaluation.bench import BenchContext, BenchJob, Benchmark, BenchOutput, Table
from assistant.progress import Progress
from assistant.simulation.queries import VagueQueryMix, training_queries, vague_episodes
from benchmarks.common import run_main

QUERY_KINDS = ("clear", "vague")
# Vague versions of each dev query the vague baseline is calibrated on (the prior's calibration uses 8).
DEV_COPIES = 4
CALIBRATION_SEED_OFFSET = 211


def calibration_set(agent, kind: str, seed: int, copies: int, limit: int = 0) -> tuple[list[str], np.ndarray, int]:
    """(texts, labels, independent draws) of the dev queries the baseline's conformal sets are fitted on:
    the dev split as written for clear queries, ``copies`` vague versions of each for vague ones; ``limit``
    > 0: a seeded subset of that many (reduced runs)."""
    if kind == "clear":
        texts, labels = agent.queries("dev")
        texts, labels, copies = list(texts), np.asarray(labels, dtype=np.int64), 1
    else:
        texts, labels, _ = training_queries(agent, seed=seed + CALIBRATION_SEED_OFFSET, copies=copies)
    if 0 < limit < len(texts):
        keep = np.sort(np.random.default_rng(seed + CALIBRATION_SEED_OFFSET).choice(len(texts), limit, replace=False))
        texts, labels = [texts[i] for i in keep], labels[keep]
    return texts, labels, max(1, len(texts) // copies)


def _row(level: float | None, system: str, figures: dict, versus: dict | None = None) -> dict:
    row = {"level": level, "system": system, **figures}
    for figure, paired in (versus or {}).items():
        row[f"{figure}_vs_cicc"] = f"{paired['difference']:+.3f} {paired['interval']} {paired['verdict']}"
    return row


def published_rows(name: str, levels) -> list[dict]:
    """CICC's own figures for ``name`` at ``levels`` (BERT): published, not measured here."""
    return [
        {"level": level, "system": "CICC with BERT (published, not measured here)", **cicc.PUBLISHED[(name, level)]}
        for level in levels
        if (name, level) in cicc.PUBLISHED
    ]


def evaluate_kind(setup, agent, kind: str, context: BenchContext) -> tuple[list[dict], dict]:
    """The rows of one data set and kind of query, and per level (ours, baseline) summaries for the targets."""
    specs = cicc.test_split_episodes(agent, setup.candidates, context.seed, context["max_queries"])
    if kind == "vague":
        specs = vague_episodes(agent, specs, VagueQueryMix(), context.seed)
    scores = setup.prior.scores([s.query for s in specs])
    probs = cicc.first_beliefs(scores, setup.candidates)
    dev_texts, dev_labels, independent = calibration_set(
        agent, kind, context.seed, context["dev_copies"], context["max_dev"]
    )
    dev_probs = cicc.first_beliefs(setup.prior.scores(dev_texts), setup.candidates)
    dev_positions = cicc.positions_of(dev_labels, setup.candidates)
    seeds = [context.seed + s for s in context["seeds"]]
    runs = {s: cicc.with_answer_seeds(specs, s) for s in seeds}
    shipped = [cicc.ours_outcomes(setup, runs[s], scores, setup.coverage) for s in seeds]
    shipped_row = cicc.summary(shipped, context.seed)
    rows, at_level = [], {}
    for level in context["levels"]:
        shortlist = ConformalShortlist.fit(dev_probs, dev_positions, level, independent=independent)
        peer = [cicc.cicc_outcomes(probs, runs[s], shortlist, setup.user, setup.candidates) for s in seeds]
        ours = [cicc.ours_outcomes(setup, runs[s], scores, level) for s in seeds]
        peer_row, ours_row = cicc.summary(peer, context.seed), cicc.summary(ours, context.seed)
        rows.append(_row(level, "CICC-style baseline on Clarify's prior", peer_row))
        rows.append(_row(level, "ours, covered at the level", ours_row, cicc.compared(ours, peer, context.seed)))
        at_level[level] = (ours_row, peer_row, shipped_row)
    rows.append(_row(None, f"ours as shipped (coverage rule {setup.coverage:g})", shipped_row))
    return rows, at_level


def target_rows(name: str, kind: str, at_level: dict) -> list[dict]:
    """The issue's target at 99% (``cicc.target_met``), for ours covered at the level and ours as shipped."""
    if 0.99 not in at_level:
        return []
    ours, peer, shipped = at_level[0.99]
    published = cicc.PUBLISHED.get((name, 0.99), {}).get("coverage") if kind == "clear" else None
    out = []
    for system, row in (("ours, covered at 99%", ours), ("ours as shipped", shipped)):
        out.append(
            {
                "data set": name,
                "queries": kind,
                "system": system,
                "coverage": row["coverage"],
                "cicc_coverage_measured": peer["coverage"],
                "cicc_coverage_published": published,
                "actions": row["actions"],
                "cicc_actions": peer["actions"],
                "met": "yes" if cicc.target_met(row, peer, published) else "no",
            }
        )
    return out


def run(context: BenchContext) -> BenchJob:
    tables, targets, parts = [], [], []
    domains = list(context["domains"])
    for d, name in enumerate(domains):
        yield Progress(d, len(domains), f"preparing {name} (installs or trains what is missing)")
        yield from prepare(name)
        registry = ModelRegistry(name)
        setup = evaluation_setup(registry, "all")
        agent = registry.agent_domain
        for kind in context["queries"]:
            yield Progress(d, len(domains), f"{name}: {kind} queries")
            rows, at_level = evaluate_kind(setup, agent, kind, context)
            if kind == "clear":
                rows += published_rows(name, context["levels"])
            tables.append(
                Table(
                    f"{name}_{kind}",
                    f"{name}, {kind} test queries: CICC's protocol (seed {context.seed})",
                    rows,
                    note=f"{rows[0]['queries']} test queries x {rows[0]['seeds']} simulator seeds; intervals: 95% "
                    "bootstrap over queries and seeds; vs_cicc: ours - baseline, paired (for actions, 'ours higher' "
                    "means ours asked more)",
                )
            )
            targets += target_rows(name, kind, at_level)
            if 0.99 in at_level:
                ours, peer, _ = at_level[0.99]
                parts.append(
                    f"{name}/{kind} at 99%: baseline coverage {peer['coverage']:.3f} / {peer['actions']:.2f} actions, "
                    f"ours {ours['coverage']:.3f} / {ours['actions']:.2f}"
                )
    tables.append(Table("targets", "The target at 99%: CICC's coverage with fewer actions per query", targets))
    return BenchOutput(tables, summary="; ".join(parts))


BENCHMARK = Benchmark(
    name="cicc",
    title="CICC's protocol (conformal clarification) on BANKING77 and CLINC150: the baseline on Clarify's prior and ours",
    run=run,
    quick={
        "domains": ["banking"],
        "queries": ["clear"],
        "max_queries": 150,
        "seeds": [0],
        "dev_copies": 1,
        "max_dev": 400,
    },
    full={
        "domains": ["banking", "clinc"],
        "queries": list(QUERY_KINDS),
        "levels": list(cicc.LEVELS),
        "max_queries": 0,  # 0: the whole test split
        "max_dev": 0,  # 0: every dev query (or vague version) calibrates the baseline
        "seeds": [0, 1, 2],
        "dev_copies": DEV_COPIES,
    },
)


def main(argv: list[str] | None = None) -> dict:
    return run_main(BENCHMARK, argv)


if __name__ == "__main__":
    main()
