"""Preparing a desk's own FAQ from its texts alone (the cold-start path of `clarify prepare`).

A bundled domain tunes its models on crowd and dev queries. A desk's FAQ has none: its domain holds
queries synthesized from the texts (assistant.sources.own_faq.synthesis; train and dev) and keeps a third
part, ``held``, that is never stored. The path:

1. the text prior: semantic search over the FAQ's own texts (``assistant.priors.desk``: the shipped MiniLM's
   cosine with each entry's title, description and answers, its best answer sentence and its synthesized
   queries, fused with BM25), with the weights, the temperature and the out-of-scope prior fitted on other
   desks' people (issue 39: chosen leave-one-desk-out on nine development desks, never on the desk's own
   synthesized queries, which are not like its people's);
2. the SRU encoder, trained within ``SRU_PROBE`` on the synthesized training queries, only when asked for
   (``try_sru``): chosen on the held-out synthesized queries, it lost 0.23-0.40 Acc@1 on people's queries
   against plain semantic search; if it is tried, it must beat the desk prior there beyond chance
   (``clearly_better``); the choice and both figures are saved (``ModelRegistry`` serves the chosen prior);
3. the calibration (``assistant.app.lifecycle.calibration_jobs``): for the desk prior, the development
   desks' (its temperature is its own, the conformal shortlist's threshold theirs); the policies and rules
   below learn on the belief a person is shown;
4. the STOP/ASK policies (both paces, and the lambda = 1 baseline) on episodes whose first queries are the
   vague mix of the synthesized dev queries, with ``POLICY_ITERATIONS`` (their learning curves flatten
   well before the bundled domains' 1,000), on the calibrated prior;
5. the coverage rule and the out-of-scope hypothesis, tuned on the same dev episodes and on the
   out-of-scope examples taken from the other bundled domains.

Each stage yields progress; the whole is about 2-4 minutes for 25-150 entries on two cores. A large FAQ (issue
33) keeps the same stages with their costs bounded: fewer policy iterations (``policy_iterations_for``), no SRU
probe, the answer model's lambda, w and b as fitted (``LEARNED_ANSWER_MODEL_MAX_ENTRIES``), the out-of-scope
tuning on at most ``OWN_FAQ_MAX_IN_SCOPE`` in-scope dev episodes and the tuning rollouts' compact gains
(``assistant.app.lifecycle``); ``prepare`` runs it all on one torch thread.
"""

from __future__ import annotations

import time
from collections.abc import Generator
from dataclasses import replace
from typing import Any

import numpy as np

from assistant.app.desk.own_faq import stored_entries
from assistant.app.lifecycle.calibration_jobs import fit_calibration_job
from assistant.app.lifecycle.out_of_scope_jobs import max_in_scope_of, tune_out_of_scope_job
from assistant.app.lifecycle.prior_choice import save_text_prior_choice
from assistant.app.lifecycle.registry import ModelRegistry
from assistant.app.lifecycle.training_jobs import fit_prior_job, pace_config, train_policy_job, tune_coverage_job
from assistant.priors.calibration import ranking_metrics
from assistant.progress import Progress
from assistant.simulation.episodes import EpisodeSpec
from assistant.simulation.queries import VagueQueryMix, vague_episodes
from assistant.sources.own_faq.synthesis import synthesize
from assistant.training.encoder import EncoderTrainConfig

POLICY_ITERATIONS = 300
# Above this many entries the policies get fewer iterations, in proportion (issue 33): an iteration's episodes
# cost about in proportion to the entries, so the policy stage keeps about the time of a 150-entry FAQ (a
# 1,000-entry FAQ: 46 iterations of about 3-6 s on two cores instead of 300, which took hours).
POLICY_FULL_ENTRIES = 150
POLICY_MIN_ITERATIONS = 20
# Limited by steps alone (issue 28: never by time, so that the same seed gives the same encoder). The probe is
# the encoder alone (no blend with MiniLM and BM25): it is weighed against MiniLM, so it must not contain it.
SRU_PROBE = EncoderTrainConfig(max_steps=600, eval_every=100, patience=3, blend=False)
# Above this many entries the probe is skipped and the MiniLM prior serves alone (issue 33): a step costs about
# in proportion to the entries (its softmax over every label), so 600 steps of a 1,000-entry FAQ take one to two
# hours on two cores, and the synthesized queries per entry (about 5-7) are too few for an encoder trained from
# scratch to beat MiniLM over that many labels.
SRU_PROBE_MAX_ENTRIES = 300
# Above this many entries the policies keep the answer model's fitted w, b and initial lambda (issue 33): their
# gradient runs through the whole [questions, slots, entries] answer model, 90% of each iteration of a 981-entry
# FAQ (about a minute per iteration on a loaded two-core machine), and it moved lambda by less than 0.01 there.
LEARNED_ANSWER_MODEL_MAX_ENTRIES = 300
# how the held-out synthesized queries are made vague (as people type: mostly short)
HELD_OUT_MIX = VagueQueryMix({"crowd": 0.3, "window": 0.35, "keywords": 0.35})
HELD_OUT_COPIES = 3


def held_out_queries(registry: ModelRegistry, seed: int = 0) -> tuple[list[str], np.ndarray]:
    """The ``held`` synthesized queries of the registry's domain (never stored), each in ``HELD_OUT_COPIES``
    vague versions: what chooses between the text priors."""
    entries = stored_entries(registry.name)
    position = {label.key: y for y, label in enumerate(registry.domain.labels)}
    held = [q for q in synthesize(entries) if q.split == "held" and q.key in position]
    specs = [EpisodeSpec(position[q.key], q.text, 0) for _ in range(HELD_OUT_COPIES) for q in held]
    made = vague_episodes(registry.agent_domain, specs, HELD_OUT_MIX, seed)
    return [e.query for e in made], np.array([e.target for e in made], dtype=np.int64)


def _held_out_accuracy(registry: ModelRegistry, texts: list[str], labels: np.ndarray) -> dict:
    scores = registry.combined_prior().scores(texts)
    metrics = ranking_metrics(scores, labels)
    right = (np.argmax(scores, axis=1) == labels).tolist()
    return {"acc1": round(metrics["acc1"], 4), "acc3": round(metrics["acc3"], 4), "n": len(labels), "right": right}


def clearly_better(challenger: list[bool], incumbent: list[bool]) -> bool:
    """Whether ``challenger`` is right more often than ``incumbent`` on the same queries beyond chance: of the
    queries exactly one gets right, it must win more than one standard deviation above half (a one-sigma
    sign test; a few hundred held-out synthesized queries differ by a handful of queries by chance alone)."""
    wins = sum(a and not b for a, b in zip(challenger, incumbent))
    losses = sum(b and not a for a, b in zip(challenger, incumbent))
    return wins - losses > np.sqrt(wins + losses)


class OverallProgress:
    """Turns the progress of a job's stages into one scale (0-1000): each stage has a weight (its expected
    share of the time), and the inner job's own fraction moves within it. The ETA is the front end's
    (``assistant.progress.Eta``), from this one scale: never one in the message too."""

    def __init__(self, weights: dict[str, float]) -> None:
        self.weights = weights
        self.total = sum(weights.values())
        self.done = 0.0
        self.last = 0.0

    def record(self, inner: Progress, stage: str, label: str) -> Progress:
        # never backwards: a stage that runs several jobs restarts their own counts
        self.last = fraction = max(self.last, (self.done + self.weights[stage] * (inner.fraction or 0.0)) / self.total)
        message = f"{label}: {inner.message}" if inner.message else label
        return Progress(round(1000 * fraction), 1000, message, inner.metrics)

    def run(self, job: Generator[Progress, None, Any], stage: str, label: str) -> Generator[Progress, None, Any]:
        """Run ``job`` as ``stage``, yielding its records on the overall scale; returns its result."""
        try:
            yield self.record(Progress(0, 1), stage, label)
            while True:
                try:
                    inner = next(job)
                except StopIteration as stop:
                    self.done += self.weights[stage]
                    return stop.value
                yield self.record(inner, stage, label)
        finally:
            job.close()  # cancelled from outside: close the inner job too (its clean-up runs)


def cold_start_policy_config(pace: str, iterations: int = POLICY_ITERATIONS, entries: int = 0):
    """The policy training settings of a domain made from a FAQ of ``entries`` entries (its cold start and its
    later updates): above ``LEARNED_ANSWER_MODEL_MAX_ENTRIES`` the answer model's lambda, w and b stay as fitted."""
    config = replace(pace_config(pace), iterations=iterations)
    if entries > LEARNED_ANSWER_MODEL_MAX_ENTRIES:
        config = replace(config, learn_answer_model=False)
    return config


def policy_iterations_for(entries: int, iterations: int = POLICY_ITERATIONS) -> int:
    """The policy iterations of a FAQ of ``entries`` entries: ``iterations`` up to ``POLICY_FULL_ENTRIES``,
    then fewer in proportion (never below ``POLICY_MIN_ITERATIONS``, never more than ``iterations``)."""
    if entries <= POLICY_FULL_ENTRIES:
        return iterations
    return min(iterations, max(POLICY_MIN_ITERATIONS, round(iterations * POLICY_FULL_ENTRIES / entries)))


def sru_probe_skipped(entries: int) -> str | None:
    """Why the SRU probe is not run for a FAQ of ``entries`` entries (``SRU_PROBE_MAX_ENTRIES``), or None."""
    if entries <= SRU_PROBE_MAX_ENTRIES:
        return None
    return f"SRU encoder probe skipped: {entries} entries (above {SRU_PROBE_MAX_ENTRIES}: the MiniLM prior alone)"


def _stage_weights(registry: ModelRegistry, try_sru: bool, iterations: int = POLICY_ITERATIONS) -> dict[str, float]:
    """Expected seconds of each stage on two cores (for the ETA), from the domain's size."""
    policies = registry.required_policies(("all",))
    learned = [p for p in policies if p[1] == "learned"]
    weights = {"minilm": 15.0, "sru": 120.0 if try_sru else 0.0, "calibration": 3.0}
    per_iteration = 0.15 * max(1.0, len(registry.domain.labels) / POLICY_FULL_ENTRIES)
    weights.update({f"policy-{c}-{v}-{p}": per_iteration * iterations for c, v, p in policies})
    weights.update({f"tune-{c}-{p}": 8.0 for c, _v, p in learned})
    return weights


def cold_start_prepare(
    name: str,
    seed: int = 0,
    try_sru: bool = False,
    policy_iterations: int | None = None,
    sru_probe: EncoderTrainConfig = SRU_PROBE,
) -> Generator[Progress, None, list[str]]:
    """The cold-start path (module docstring); returns what was done, the chosen prior first. Its progress is
    one scale over all stages (the front end shows its ETA). ``policy_iterations`` None: sized to the FAQ
    (``policy_iterations_for``). (Tests pass tiny budgets.)"""
    start = time.monotonic()
    minilm = ModelRegistry(name, text_prior="minilm")
    sized = policy_iterations_for(len(minilm.domain.labels))  # the ETA's weights (as before for small desks)
    policy_iterations = sized if policy_iterations is None else policy_iterations
    skipped = sru_probe_skipped(len(minilm.domain.labels)) if try_sru else None
    try_sru = try_sru and skipped is None
    overall = OverallProgress(_stage_weights(minilm, try_sru, sized))
    label = "cold start: semantic search over the FAQ (numbers fitted on other desks)"
    yield from overall.run(fit_prior_job(minilm, seed), "minilm", label)
    overall.done -= overall.weights["minilm"]  # the held-out scoring below is part of the stage
    texts, labels = held_out_queries(minilm, seed)
    figures = {"minilm": _held_out_accuracy(minilm, texts, labels)}
    overall.done += overall.weights["minilm"]
    done = [skipped] if skipped else []
    chosen = "minilm"
    if try_sru:
        from assistant.training.encoder import train_encoder

        def probe() -> Generator[Progress, None, None]:
            yield from train_encoder(minilm.domain, sru_probe, seed=seed, save=True)
            yield from fit_prior_job(ModelRegistry(name, text_prior="sru"), seed)

        yield from overall.run(probe(), "sru", "cold start: the SRU encoder on the synthesized queries (a probe)")
        sru = ModelRegistry(name, text_prior="sru")
        figures["sru"] = _held_out_accuracy(sru, texts, labels)
        if clearly_better(figures["sru"]["right"], figures["minilm"]["right"]):
            chosen = "sru"
    for figure in figures.values():
        figure.pop("right")
    save_text_prior_choice(
        name,
        chosen,
        {"held_out": figures, "path": "cold start (FAQ texts only)", **({"sru_probe": skipped} if skipped else {})},
    )
    summary = ", ".join(f"{k} {v['acc1']:.3f}" for k, v in figures.items())
    done.insert(0, f"text prior: {chosen} (Acc@1 on held-out synthesized queries: {summary})")
    registry = minilm if chosen == "minilm" else ModelRegistry(name, text_prior=chosen)  # keeps its query cache
    # the prior is calibrated before the policies learn on it (issue 32): the belief they are trained and tuned
    # on is the one a person is shown (the desk prior's calibration is the development desks', issue 39)
    calibrating = fit_calibration_job(registry, seed, sharpen=True)
    yield from overall.run(calibrating, "calibration", "cold start: the calibration of the first guess")
    done.append("calibration")
    for c, variant, pace in registry.required_policies(("all",)):
        # lambda_1: fit_policy fixes lambda
        config = cold_start_policy_config(pace, policy_iterations, len(registry.domain.labels))
        job = train_policy_job(registry, c, variant, config, seed=seed, pace=pace)
        label = f"cold start ({chosen} prior): the {variant} stop policy, pace {pace}"
        yield from overall.run(job, f"policy-{c}-{variant}-{pace}", label)
        done.append(f"policy-{c}-{variant}-{pace}")
    for c, variant, pace in registry.required_policies(("all",)):
        if variant != "learned":
            continue

        def tuning(c: str = c, pace: str = pace) -> Generator[Progress, None, None]:
            yield from tune_coverage_job(registry, c, pace, seed=seed)
            if registry.has_out_of_scope_queries:
                yield from tune_out_of_scope_job(registry, c, pace, seed=seed, max_in_scope=max_in_scope_of(registry))

        yield from overall.run(tuning(), f"tune-{c}-{pace}", f"cold start: coverage and out-of-scope rules ({pace})")
        done += [f"coverage-{c}-{pace}"] + ([f"oos-{c}-{pace}"] if registry.has_out_of_scope_queries else [])
    yield Progress(1000, 1000, f"cold start for {name} done in {time.monotonic() - start:.0f} s")
    return done


def readiness(name: str) -> dict:
    """How well a desk made from its FAQ is likely to do, for the person who made it: the held-out figures of
    the chosen text prior (on queries synthesized from the texts: real questions are vaguer), the entries
    without a description (how a person puts the problem: the text that helps most), and the open inbox."""
    from assistant.app.desk.inbox import inbox_items
    from assistant.app.lifecycle.prior_choice import TEXT_PRIOR_CHOICE
    from assistant.paths import models_dir
    from models.checkpoint import read_json

    saved = read_json(models_dir(name) / TEXT_PRIOR_CHOICE) or {}
    figures = (saved.get("held_out") or {}).get(saved.get("text_prior", ""), {}) if isinstance(saved, dict) else {}
    entries = stored_entries(name)
    return {
        "acc1": figures.get("acc1"),
        "acc3": figures.get("acc3"),
        "entries": len(entries),
        "without_description": sum(not e.description.strip() for e in entries),
        "inbox": len(inbox_items(name)),
    }
