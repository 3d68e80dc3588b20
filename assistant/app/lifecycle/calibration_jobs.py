"""The calibration of the belief a person sees (issue 32): the prior's temperatures and the conformal
shortlist of a domain, fitted at ``prepare`` time on held-out dev queries as people type them, in seconds,
so that homes with release models get them without retraining.

- Bundled domains: the vague mix of the dev queries (``assistant.simulation.queries.training_queries``: crowd
  queries, windows, keywords, the query without the entry's name, tag rewrites).
- A desk's own FAQ (cold start): its synthesized dev queries made as hard as people's (``HARD_MIX``: the
  title's words dropped, keywords, short windows; at most ``MAX_HARD_WORDS`` words), and the temperatures
  never below ``MIN_TEMPERATURE``, as every domain's (synthesized queries still echo the texts more than people
  do; and the stop policies were trained on the raw prior: a sharper one makes them stop at once).
- A desk's own FAQ whose policies and stop rules are then trained and tuned on the calibrated prior (``sharpen``:
  its cold start calibrates first, ``assistant.app.desk.cold_start``): its synthesized dev queries as they were
  made (``OWN_FAQ_MIX``), cut to at most ``OWN_FAQ_WORDS`` words, temperatures down to
  ``OWN_FAQ_MIN_TEMPERATURE`` (sharper than the raw prior where people's short queries say more than it
  believes) and no top map. Chosen on the library example's hand-written queries (issue 32): the hard mix
  made it too unsure (ECE 0.169 there, 0.072 with these).
- A desk's own FAQ served by the desk prior (issue 39, ``assistant.priors.desk``): nothing is fitted on its
  synthesized queries; its temperature and conformal threshold are the development desks' (``desk_calibration``).

What is fitted lives in ``models/<domain>/calibration[-<text prior>].json`` with the identity of the prior it
was fitted on; a stale or missing file leaves the raw prior (with the floor) in use until ``prepare`` runs.
The clarifier's prior is ``calibrated(registry, prior)``.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path

import numpy as np

from assistant import paths
from assistant.app.lifecycle.model_context import ModelContext
from assistant.clarification.conformal import ConformalShortlist
from assistant.errors import ConfigError, ModelMissingError
from assistant.evaluation.reliability import reliability, top_of
from assistant.priors.calibration import CalibratedPrior, PriorCalibration
from assistant.priors.desk import DeskSettings, desk_settings_of
from assistant.progress import Progress
from assistant.simulation.episodes import EpisodeSpec
from assistant.simulation.queries import VagueQueryMix, training_queries, vague_episodes
from models.checkpoint import read_json, write_json_atomic

CALIBRATION_SEED_OFFSET = 104_729
DEV_COPIES = 8
PROMISED_COVERAGE = 0.9
HARD_MIX = VagueQueryMix({"unnamed": 0.4, "keywords": 0.3, "window": 0.3})
MAX_HARD_WORDS = 4
MIN_TEMPERATURE = 1.0  # every domain's, not only a cold start's (``fit_calibration``)
OWN_FAQ_MIX = VagueQueryMix.crowd_only()  # ``sharpen``: the synthesized dev queries as made (module docstring)
OWN_FAQ_WORDS = 6
OWN_FAQ_MIN_TEMPERATURE = 0.5
# Bump when what is fitted changes: a saved calibration of another format is fitted again by ``prepare``.
CALIBRATION_FORMAT = "calibration-v2: temperatures never below 1, top map if it helps, conformal shortlist"


def _own_faq(registry: ModelContext) -> bool:
    """Whether the registry's domain was made from a desk's FAQ (the store's meta; the lifecycle wing does not
    reach into the desk's)."""
    return registry.domain.meta.get("own_faq") == "true"


def calibration_path(registry: ModelContext) -> Path:
    suffix = "" if registry.text_prior == "sru" else f"-{registry.text_prior}"
    return paths.models_dir(registry.name) / f"calibration{suffix}.json"


def prior_identity(registry: ModelContext) -> str:
    """What the calibration was fitted on: the text prior and the mention weight."""
    try:
        return f"{registry.encoder_hash()}|beta={registry.mention_weight():.6g}"
    except ModelMissingError:
        return ""


def shortened(texts: list[str], rng: np.random.Generator, most: int = MAX_HARD_WORDS) -> list[str]:
    """Each text cut to a random window of at most ``most`` words (people's first queries are short)."""
    out = []
    for text in texts:
        words = text.split()
        if len(words) > most:
            size = int(rng.integers(2, most + 1))
            start = int(rng.integers(0, len(words) - size + 1))
            words = words[start : start + size]
        out.append(" ".join(words))
    return out


def hard_queries(
    registry: ModelContext,
    split: str,
    seed: int,
    copies: int = DEV_COPIES,
    mix: VagueQueryMix = HARD_MIX,
    most: int = MAX_HARD_WORDS,
) -> tuple[list[str], np.ndarray]:
    """``copies`` hard versions (``mix``, at most ``most`` words) of the ``split`` queries of the registry's domain."""
    texts, labels = registry.agent_domain.queries(split)
    specs = [EpisodeSpec(int(y), t, 0) for _ in range(copies) for t, y in zip(texts, labels)]
    made = vague_episodes(registry.agent_domain, specs, mix, seed)
    rng = np.random.default_rng(seed + 1)
    return shortened([e.query for e in made], rng, most), np.array([e.target for e in made], dtype=np.int64)


def dev_queries(registry: ModelContext, seed: int = 0, sharpen: bool = False) -> tuple[list[str], np.ndarray]:
    """The held-out dev queries the calibration is fitted on (module docstring); never the test split."""
    if _own_faq(registry) and sharpen:
        return hard_queries(registry, "dev", seed + CALIBRATION_SEED_OFFSET, mix=OWN_FAQ_MIX, most=OWN_FAQ_WORDS)
    if _own_faq(registry):
        return hard_queries(registry, "dev", seed + CALIBRATION_SEED_OFFSET)
    texts, labels, _ = training_queries(registry.agent_domain, seed=seed + CALIBRATION_SEED_OFFSET, copies=DEV_COPIES)
    return texts, labels


def raw_log_probs(registry: ModelContext, texts: list[str]) -> np.ndarray:
    """[N, Y] log-probabilities of the prior conversations use (full annotations for the mentions), uncalibrated."""
    scores = np.asarray(registry.combined_prior(registry.domain).scores(texts), dtype=np.float64)
    shifted = scores - scores.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def fit_calibration(
    registry: ModelContext, seed: int = 0, coverage: float = PROMISED_COVERAGE, sharpen: bool = False
) -> dict:
    """Fit the temperatures and the conformal shortlist on the dev queries; returns what ``save`` writes.
    ``sharpen``: an own FAQ whose policies are trained on this calibration next (module docstring)."""
    settings = desk_settings_of(registry.encoder)
    if settings is not None:
        return desk_calibration(registry, settings)
    sharpen = sharpen and _own_faq(registry)
    texts, labels = dev_queries(registry, seed, sharpen)
    if not texts:
        raise ConfigError(f"domain {registry.name!r} has no dev queries to calibrate its prior on")
    raw = raw_log_probs(registry, texts)
    # never sharper than the raw prior where the stop policies (the shipped release ones too) were trained on it:
    # they stop at once on a sharper one (birds' fitted 0.56 made the release policy stop before a first question)
    minimum = OWN_FAQ_MIN_TEMPERATURE if sharpen else MIN_TEMPERATURE
    calibration = PriorCalibration.fit(raw, labels, texts, minimum)
    if not sharpen:
        calibration = with_top_map_if_better(calibration, raw, labels, texts, seed)
    probs = np.exp(calibration.apply(raw, texts))
    shortlist = ConformalShortlist.fit(probs, labels, coverage, independent=len(texts) // DEV_COPIES)
    return {
        "format": CALIBRATION_FORMAT,
        "prior": prior_identity(registry),
        "calibration": calibration.to_dict(),
        "shortlist": shortlist.to_dict(),
        "dev_queries": len(texts),
        "sharpened": sharpen,
    }


def desk_calibration(registry: ModelContext, settings: DeskSettings) -> dict:
    """A desk prior's calibration (issue 39): its temperature and shortlist were fitted on other desks' people
    (``assistant.priors.desk``), so nothing is fitted on the desk's own synthesized queries: the temperatures
    stay 1 (the prior carries its own) and the shortlist's threshold is the development desks'."""
    shortlist = ConformalShortlist(settings.shortlist_coverage, settings.shortlist_threshold)
    return {
        "format": CALIBRATION_FORMAT,
        "prior": prior_identity(registry),
        "calibration": PriorCalibration(1.0, 1.0).to_dict(),
        "shortlist": shortlist.to_dict(),
        "dev_queries": 0,
        "sharpened": False,
        "fitted_on": list(settings.fitted_on),
    }


def with_top_map_if_better(
    calibration: PriorCalibration, raw: np.ndarray, labels: np.ndarray, texts: list[str], seed: int
) -> PriorCalibration:
    """``calibration`` followed by the top-probability map (``PriorCalibration.with_top_map``) fitted on all
    the dev queries, if a map fitted on one half of them lowers the ECE of the other half, both ways round
    (in-sample an isotonic map always looks better); else ``calibration`` alone."""
    top, correct = top_of(calibration.apply(raw, texts), labels)
    halves = np.random.default_rng(seed).permutation(len(labels)) % 2 == 0
    gains = []
    for fit_on in (halves, ~halves):
        mapped = calibration.with_top_map(top[fit_on], correct[fit_on])
        held = ~fit_on
        held_texts = [t for t, h in zip(texts, held) if h]
        after = top_of(mapped.apply(raw[held], held_texts), labels[held])
        gains.append(reliability(top[held], correct[held])[1] - reliability(*after)[1])
    return calibration.with_top_map(top, correct) if min(gains) > 0 else calibration


def fit_calibration_job(
    registry: ModelContext, seed: int = 0, sharpen: bool = False
) -> Generator[Progress, None, dict]:
    """Fit and save the calibration of the registry's domain (seconds: one pass of the prior over the dev
    queries); ``sharpen`` as ``fit_calibration``."""
    yield Progress(0, 1, "calibrating the prior on held-out dev queries")
    saved = fit_calibration(registry, seed, sharpen=sharpen)
    write_json_atomic(calibration_path(registry), saved)
    registry.forget_models(prior=False)
    yield Progress(1, 1, calibrated_line(saved["calibration"]))
    return saved


def calibrated_line(calibration: dict) -> str:
    """What a desk administrator reads of a fitted calibration: its temperature, not the whole dict (its
    top_map alone is 64 numbers; issue 41)."""
    temperature = calibration.get("temperature")
    if not isinstance(temperature, int | float):
        return "prior calibrated on held-out dev queries"
    return f"prior calibrated on held-out dev queries (temperature {temperature:.3g})"


def _saved(registry: ModelContext) -> dict | None:
    saved = read_json(calibration_path(registry))
    if not isinstance(saved, dict) or saved.get("format") != CALIBRATION_FORMAT:
        return None
    if saved.get("prior") != prior_identity(registry):
        return None
    return saved


def calibration_missing(registry: ModelContext) -> bool:
    return _saved(registry) is None


def load_calibration(registry: ModelContext) -> PriorCalibration | None:
    """The fitted calibration of the prior the registry serves now; None when missing, stale or damaged."""
    saved = _saved(registry)
    try:
        return PriorCalibration.from_dict(saved["calibration"]) if saved else None
    except (KeyError, TypeError, ValueError):
        return None


def calibrated(registry: ModelContext, prior):
    """``prior`` with the registry's fitted calibration (itself when there is none yet)."""
    calibration = load_calibration(registry)
    return prior if calibration is None else CalibratedPrior(prior, calibration, conformal_shortlist(registry))


def conformal_shortlist(registry: ModelContext) -> ConformalShortlist | None:
    """The conformal shortlist fitted with the calibration (None when missing or stale)."""
    saved = _saved(registry)
    try:
        return ConformalShortlist.from_dict(saved["shortlist"]) if saved else None
    except ConfigError:
        return None


def calibrate_if_missing(registry: ModelContext, seed: int = 0) -> Generator[Progress, None, list[str]]:
    """``prepare``'s last step: fit the calibration when the served prior has none; returns what was done."""
    if not calibration_missing(registry):
        return []
    yield from fit_calibration_job(registry, seed)
    return ["calibration"]
