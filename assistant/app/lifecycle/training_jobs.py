"""The training jobs of a domain's models: the text encoder, the prior's fit (the mention weight, and the
pooled MiniLM prior's calibration), the STOP/ASK policies and their coverage rules.

Each is a generator job (``assistant.progress``) over a ``ModelRegistry`` that writes what it trained into the
domain's model folder; the registry then serves it (it loads, never fits). ``prepare``
(``assistant.app.desk.domains``) runs them in order for whatever is missing. Nothing here is needed to hold a
conversation.
"""

from __future__ import annotations

import weakref
from collections.abc import Generator
from dataclasses import replace
from typing import Any

import numpy as np

from assistant.app.lifecycle.calibration_jobs import calibrated
from assistant.app.lifecycle.registry import COVERAGE_GRID, SMOOTHING, VARIANTS, ModelRegistry, candidate_labels
from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.policy_io import save_policy
from assistant.clarification.stopping import PACE_TURN_BUDGET, PACE_TURN_REWARD, check_pace
from assistant.errors import ConfigError
from assistant.evaluation.clarifier import EvaluationSetup, tune_coverage
from assistant.priors.base import restrict
from assistant.priors.combined import fit_mention_weight
from assistant.progress import Progress
from assistant.settings import SHORTLIST_SIZE
from assistant.simulation.episodes import EpisodeSpec, sample_episodes
from assistant.simulation.queries import TRAINING_SPLIT, VagueQueryMix, vague_episodes
from assistant.simulation.user import SimulatedUser
from assistant.store import Domain
from assistant.training.encoder import data_sizes
from assistant.training.policy import PolicyConfig, PolicyResult, fit_answer_scale, train_policy
from models.determinism import reproducible

# Dev episodes (the threshold baseline's, the coverage rule's) are drawn with the test seed plus this offset.
DEV_SEED_OFFSET = 7919
POLICY_EPISODES = 4000
# The comparison phase's shortlist in a session (``SessionConfig.shortlist_size``): what the coverage rule covers.
# Dev vague episodes the coverage rule is tuned on.
COVERAGE_EPISODES = 1000


def registry_of(registry: ModelRegistry | str) -> ModelRegistry:
    """A registry, or the name of a domain to open one for (a worker thread opens its own)."""
    return ModelRegistry(registry) if isinstance(registry, str) else registry


def train_encoder_job(registry: ModelRegistry | str, seed: int = 0) -> Generator[Progress, None, Any]:
    """Train the SRU encoder of the registry's domain and save it (the policies trained on the old one go
    stale); the registry serves the new encoder afterwards."""
    from assistant.training.encoder import train_encoder

    yield Progress(0, 0, "loading the domain")
    registry = registry_of(registry)
    result = yield from train_encoder(registry.domain, seed=seed, save=True)
    registry.forget_models()
    yield from fit_prior_job(registry, seed)
    return result


def fit_prior_job(registry: ModelRegistry | str, seed: int = 0) -> Generator[Progress, None, dict]:
    """Fit the prior on top of the text prior (after its training): the pooled MiniLM prior's centroid weight
    and temperatures on the vague mix of the dev queries, and the weight of the tag mentions (beta) by the
    dev queries' likelihood; saves them for the registry (``ModelRegistry.prior_settings_path``). Under
    ``reproducible``: the weight comes from the encoder's scores, and the policies from it."""
    with reproducible():
        return (yield from _fit_prior(registry_of(registry)))


def _fit_prior(registry: ModelRegistry) -> Generator[Progress, None, dict]:
    agent = registry.agent_domain
    calibration = None
    own_faq = registry.domain.meta.get("own_faq") == "true"
    if registry.text_prior == "minilm":
        from assistant.priors.desk import DeskPrior
        from assistant.priors.minilm import MiniLMPrior
        from assistant.training.encoder_tuning import calibration_queries

        if own_faq:
            # a desk's FAQ: the recipe and numbers fitted on other desks' people (assistant.priors.desk), never
            # on its own synthesized queries, which are not like its people's (issue 39)
            yield Progress(0, 2, "reading the FAQ's texts for semantic search")
            prior: MiniLMPrior = DeskPrior.build_desk(agent)
        else:
            yield Progress(0, 2, "calibrating the pooled MiniLM prior on the dev queries")
            prior = MiniLMPrior.fit(
                agent, registry.protocol_seed, calibration=calibration_queries(agent, registry.protocol_seed)
            )
        calibration = prior.calibration()
        registry.use_text_prior(prior)
    yield Progress(1, 2, "fitting the weight of the tags a query mentions")
    texts, labels = agent.queries("dev")
    beta, nll = 0.0, None
    # the desk recipe's numbers were fitted without mention evidence: a weight fitted on its synthesized
    # queries would sharpen it where people's words are vaguer
    if texts and not (own_faq and registry.text_prior == "minilm"):
        beta, nll = fit_mention_weight(registry.combined_prior_with(agent, 0.0), texts, labels)
    saved = registry.save_prior_settings(beta, nll, calibration)
    yield Progress(2, 2, f"mention weight {beta:g}")
    return saved


def base_answer_model(registry: ModelRegistry, domain: Domain | None = None) -> AnswerModel:
    """p_hat of ``domain`` (default: the agent's view) with the encoder's tag scores and w, b fitted to p_hat
    (policy training starts from it and fine-tunes lambda, w and b)."""
    domain = domain or registry.agent_domain
    tags = registry.encoder.tag_scores()
    base = AnswerModel(domain.p_hat(SMOOTHING), domain.option_mask, tags, lam=1.0)
    kept = _scale_fits.get(registry)
    if kept is not None and kept[0] is domain and kept[1] is tags:
        w, b = kept[2], kept[3].copy()
    else:
        w, b = fit_answer_scale(base)
        _scale_fits[registry] = (domain, tags, w, b.copy())
    return base.with_params(w=w, b=b)


def policy_prior(registry: ModelRegistry):
    """The prior the stop policies are trained, and their coverage and out-of-scope rules tuned, on: a desk's own
    FAQ's calibrated prior, the one it serves (its cold start calibrates first, issue 32; without a calibration
    yet, the raw one); a bundled domain's raw prior (its shipped release policies were trained on it, and its
    calibration only ever softens it)."""
    prior = registry.combined_prior()
    return calibrated(registry, prior) if registry.domain.meta.get("own_faq") == "true" else prior


# The (w, b) ``fit_answer_scale`` found for a registry's domain and tag scores (the same objects): every policy of a
# domain starts from the same fit (issue 33: 50 L-BFGS steps over the whole [Q, R, Y] model, a minute per policy
# for a 981-entry FAQ on a loaded two-core machine, done once instead of three times; the same numbers).
_scale_fits: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


# A desk's FAQ of more entries than this tunes its coverage and out-of-scope rules with the answer model's compact
# gains (``AnswerModel.compact_gains``, issue 33): its rollouts' turns cost about entries x questions x 13 slots,
# most of them padding; smaller ones (and the bundled domains) keep the padded product, bit for bit as before.
COMPACT_GAINS_MIN_LABELS = 300


def tuning_answer_model(registry: ModelRegistry, loaded) -> AnswerModel:
    """The answer model of ``loaded`` (a learned policy) for the rollouts its coverage and out-of-scope rules are
    tuned on: with compact gains for a desk's FAQ above ``COMPACT_GAINS_MIN_LABELS`` entries."""
    model = registry.answer_model(loaded)
    own_faq = registry.domain.meta.get("own_faq") == "true"
    if own_faq and registry.domain.num_labels > COMPACT_GAINS_MIN_LABELS:
        return replace(model, compact_gains=True)
    return model


def pace_config(pace: str, config: PolicyConfig | None = None) -> PolicyConfig:
    """The training settings of a pace: its cost per question and its cap on the mean number of questions
    (other settings from ``config``)."""
    pace = check_pace(pace)
    base = config or PolicyConfig()
    return replace(base, turn_reward=PACE_TURN_REWARD[pace], turn_budget=PACE_TURN_BUDGET[pace])


def train_policy_job(
    registry: ModelRegistry | str,
    candidates: str = "all",
    variant: str = "learned",
    config: PolicyConfig | None = None,
    seed: int = 0,
    pace: str | None = None,
    mix: VagueQueryMix | None = None,
    fine_tune: bool = False,
) -> Generator[Progress, None, PolicyResult]:
    """Train (and save) the policy for a candidate setting, variant and pace on dev-split episodes whose
    first queries come from the vague query mix (``assistant.simulation.queries``). ``config`` None: the
    pace's settings (``pace_config``); given: used as it is. ``fine_tune``: start from the current policy
    (after new data) instead of afresh."""
    yield Progress(0, 0, "loading the models")
    registry = registry_of(registry)
    pace = check_pace(pace or registry.default_pace)
    result = yield from fit_policy(registry, candidates, variant, config, seed, pace=pace, mix=mix, fine_tune=fine_tune)
    last = result.history[-50:]
    metrics = {k: float(np.mean([h[k] for h in last])) for k in ("reward", "accuracy", "turns")}
    path, data = registry.policy_checkpoint(candidates, variant, pace)
    summary = {**result.summary(), "pace": pace, "trained_on": data_sizes(registry.domain), "fine_tuned": fine_tune}
    save_policy(path, result.net, result.lam, result.w, result.b, summary, data, metrics)
    registry.forget_models(prior=False)
    return result


def fit_policy(
    registry: ModelRegistry,
    candidates: str = "all",
    variant: str = "learned",
    config: PolicyConfig | None = None,
    seed: int = 0,
    user_answers: np.ndarray | None = None,
    pace: str | None = None,
    mix: VagueQueryMix | None = None,
    fine_tune: bool = False,
) -> Generator[Progress, None, PolicyResult]:
    """Train a policy on dev-split episodes (first queries from the vague mix) without saving it
    (``train_policy_job`` saves; sweeps do not). ``user_answers`` [Q, R, Y]: the simulated user's answer
    distribution (default: the protocol's); ``config`` None: the pace's settings (``pace_config``)."""
    pace = check_pace(pace or registry.default_pace)
    if variant not in VARIANTS:
        raise ConfigError(f"unknown policy variant {variant!r}: use one of {', '.join(VARIANTS)}")
    config = config or pace_config(pace)
    with reproducible(config.threads):  # the prior's scores of the episodes too: same seed, same policy
        return (yield from _fit_policy(registry, candidates, variant, config, seed, user_answers, pace, mix, fine_tune))


def _fit_policy(
    registry: ModelRegistry,
    candidates: str,
    variant: str,
    config: PolicyConfig,
    seed: int,
    user_answers: np.ndarray | None,
    pace: str,
    mix: VagueQueryMix | None,
    fine_tune: bool,
) -> Generator[Progress, None, PolicyResult]:
    cands = candidate_labels(registry.domain, candidates)
    agent = registry.agent_domain
    if variant == "lambda_1":
        config = replace(config, initial_lambda=1.0, learn_answer_model=False)
    episodes = dev_mix_episodes(agent, POLICY_EPISODES, seed + 1, cands, mix)
    position = {int(c): i for i, c in enumerate(cands)}
    combined = policy_prior(registry)
    prior = restrict(combined.scores([e.query for e in episodes]), cands)
    known = np.zeros((len(episodes), registry.domain.num_questions), dtype=bool)
    for i, episode in enumerate(episodes):
        for question, _ in combined.mentioned(episode.query):
            known[i, question] = True
    base = base_answer_model(registry).restrict(cands)
    answers = registry.protocol.user_answers if user_answers is None else user_answers
    start_from = None
    if fine_tune:
        current = registry.load_policy(candidates, variant, pace)
        start_from = (current.policy.net, current.lam, current.w, current.b)
    return (
        yield from train_policy(
            base,
            answers[:, :, cands],
            episodes,
            prior,
            np.array([position[e.target] for e in episodes]),
            config,
            seed,
            known_questions=known,
            start_from=start_from,
        )
    )


def dev_mix_episodes(
    agent: Domain, count: int, seed: int, candidates: np.ndarray, mix: VagueQueryMix | None = None
) -> list[EpisodeSpec]:
    """Episodes for training and tuning: dev targets and queries (``TRAINING_SPLIT``), first queries from
    the vague mix. Never a test query."""
    crowd = sample_episodes(agent, count, seed, TRAINING_SPLIT, candidates)
    return vague_episodes(agent, crowd, mix or VagueQueryMix(), seed)


def tune_coverage_job(
    registry: ModelRegistry | str,
    candidates: str = "all",
    pace: str | None = None,
    shortlist_size: int = SHORTLIST_SIZE,
    episodes: int = COVERAGE_EPISODES,
    seed: int = 0,
) -> Generator[Progress, None, dict]:
    """Tune (and save) the coverage of the compare-only-when-covered rule for a policy on dev vague
    episodes (``assistant.evaluation.clarifier.tune_coverage``); returns what was chosen and why."""
    yield Progress(0, 2, "loading the models")
    registry = registry_of(registry)
    pace = check_pace(pace or registry.default_pace)
    ours = registry.load_policy(candidates, "learned", pace)
    cands = candidate_labels(registry.domain, candidates)
    agent = registry.agent_domain
    setup = EvaluationSetup(
        domain=agent,
        candidates=cands,
        prior=policy_prior(registry),
        answer_model=tuning_answer_model(registry, ours),
        policy=ours.policy,
        user=SimulatedUser(registry.protocol.user_answers, registry.domain.option_mask),
        turn_reward=PACE_TURN_REWARD[pace],
        shortlist_size=shortlist_size,
    )
    dev = dev_mix_episodes(agent, episodes, seed + DEV_SEED_OFFSET, cands)
    yield Progress(1, 2, f"tuning the coverage rule on {len(dev)} dev episodes")
    with reproducible():
        coverage, details = tune_coverage(setup, dev, COVERAGE_GRID)
    registry.save_coverage(candidates, pace, coverage, details)
    yield Progress(2, 2, f"coverage {coverage}")
    return {"coverage": coverage, **details}
