"""Assembling the agent of a domain from its trained parts, training what is missing.

Trained parts live in ``paths.models_dir(domain)``:

- the text encoder (prior p(y|x0) and tag scorer; see assistant.encoder), trained on the agent's view
  of the domain (assistant.simulator.simulation_protocol);
- STOP/ASK policies, one per candidate setting ("all" labels, or the "captioned" labels that have
  training queries) and answer-model variant ("learned" lambda, or lambda = 1 for the baseline):
  ``policy-<candidates>-<variant>.pt`` with the fine-tuned lambda, w and b.

``prepare`` (a job) builds the domain if needed and trains what is missing; ``load_agent`` assembles a
ready ``Clarifier`` for interactive use; ``evaluation_setup`` assembles what ``assistant.evaluation``
needs.
"""

from __future__ import annotations

import json
from collections.abc import Generator
from dataclasses import dataclass

import numpy as np
import torch

from assistant import paths
from assistant.answer_model import AnswerModel
from assistant.clarifier import Clarifier, ClarifierConfig
from assistant.domain import Domain
from assistant.errors import ConfigError, DomainNotFoundError, ModelMissingError
from assistant.evaluation import SYSTEMS, EvaluationReport, EvaluationSetup, evaluate
from assistant.policy import LearnedPolicy
from assistant.prior import CombinedPrior, Prior, fit_mention_weight, restrict
from assistant.progress import Progress
from assistant.simulator import (
    SimulatedUser,
    SimulationProtocol,
    episodes_from_file,
    sample_episodes,
    simulation_protocol,
)
from assistant.store import KnowledgeBase
from assistant.training import PolicyConfig, PolicyResult, fit_answer_scale, train_policy
from models.checkpoint import data_hash, load_checkpoint, read_sidecar, save_checkpoint
from models.policy_net import StopPolicyNet

CANDIDATE_SETTINGS = ("all", "captioned")
# The text prior inside the combined prior: the trained SRU encoder (IC's), or pooled MiniLM (no training).
TEXT_PRIORS = ("sru", "minilm")
VARIANTS = ("learned", "lambda_1")
# The threshold baseline is tuned on dev episodes drawn with the test seed plus this offset.
DEV_SEED_OFFSET = 7919
PROTOCOL_SEED = 0
SMOOTHING = 1.0
POLICY_EPISODES = 4000
# Bump when what a policy sees changes (its prior, its features): older policies then count as stale.
POLICY_FORMAT = "policy-v4: combined prior; questions the query answered are not asked"


def load_domain(name: str) -> Domain:
    with KnowledgeBase.open(name) as kb:
        return kb.load_domain()


def candidate_labels(domain: Domain, setting: str) -> np.ndarray:
    """Label indices for a candidate setting: 'all', or 'captioned' (labels with training queries)."""
    if setting == "all":
        return np.arange(domain.num_labels)
    if setting == "captioned":
        found = domain.labels_with_queries("train")
        if found.size == 0:
            raise ConfigError(f"domain {domain.name!r} has no training queries, so no 'captioned' labels")
        return found
    raise ConfigError(f"unknown candidate setting {setting!r}: use one of {', '.join(CANDIDATE_SETTINGS)}")


def load_bm25(domain: Domain) -> Prior:
    """The BM25 baseline prior of the stored ``domain`` (fitted on the agent's view)."""
    from assistant.encoder import BM25Prior

    return BM25Prior.fit(domain)


# ---- policies ----------------------------------------------------------------------------------------


def policy_path(domain: str, candidates: str, variant: str, text_prior: str = "sru"):
    suffix = "" if text_prior == "sru" else f"-{text_prior}"
    return paths.models_dir(domain) / f"policy-{candidates}-{variant}{suffix}"


def _policy_hash(protocol: SimulationProtocol, encoder_sidecar_hash: str, candidates: str, variant: str) -> str:
    d = protocol.agent_domain
    return data_hash([POLICY_FORMAT, d.counts, d.query_texts, protocol.seed, encoder_sidecar_hash, candidates, variant])


@dataclass
class LoadedPolicy:
    policy: LearnedPolicy
    lam: float
    w: float
    b: np.ndarray
    metrics: dict


def save_policy(path, result: PolicyResult, data: str, metrics: dict) -> None:
    state = {f"net.{k}": v for k, v in result.net.state_dict().items()}
    state["lam"] = torch.tensor(result.lam)
    state["w"] = torch.tensor(result.w)
    state["b"] = torch.from_numpy(result.b)
    save_checkpoint(path, state, {"net": result.net.config(), **result.summary()}, data, metrics)


def load_policy(path, data: str | None = None) -> LoadedPolicy:
    state, sidecar = load_checkpoint(path, data)
    config = sidecar["config"]["net"]
    net = StopPolicyNet(config["top_k"], config["hidden"])
    net.load_state_dict({k.removeprefix("net."): v for k, v in state.items() if k.startswith("net.")})
    net.eval()
    return LoadedPolicy(
        LearnedPolicy(net), float(state["lam"]), float(state["w"]), state["b"].numpy(), sidecar.get("metrics", {})
    )


# ---- assembling ----------------------------------------------------------------------------------------


class AgentFactory:
    """Loads (and on request trains) everything for one domain; caches the expensive parts."""

    def __init__(self, domain_name: str, seed: int = PROTOCOL_SEED, text_prior: str = "sru") -> None:
        if text_prior not in TEXT_PRIORS:
            raise ConfigError(f"unknown text prior {text_prior!r}: use one of {', '.join(TEXT_PRIORS)}")
        self.name = domain_name
        self.text_prior = text_prior
        self.domain = load_domain(domain_name)
        self.protocol = simulation_protocol(self.domain, seed)
        self._encoder = None
        self._text_encoder = None
        self._clarifiers: dict[tuple, Clarifier] = {}
        self._priors: dict[int, CombinedPrior] = {}

    @property
    def text_encoder(self):
        """Pooled MiniLM for the comparison phase's candidate features, with a per-domain disk cache."""
        if self._text_encoder is None:
            from models.pretrained import CachingSentenceEncoder

            self._text_encoder = CachingSentenceEncoder(paths.models_dir(self.name) / "text-embeddings.npz")
        return self._text_encoder

    @property
    def encoder(self):
        """The text prior (and tag scorer): the trained SRU encoder, or the pooled MiniLM prior."""
        if self._encoder is None:
            if self.text_prior == "minilm":
                from assistant.encoder import MiniLMPrior

                self._encoder = MiniLMPrior.fit(self.domain)
            else:
                from assistant.encoder import load_encoder_prior

                self._encoder = load_encoder_prior(self.domain)
        return self._encoder

    def train_encoder(self, seed: int = 0) -> Generator[Progress, None, object]:
        """Train the SRU encoder on this domain and save it (the policies trained on the old one go stale)."""
        from assistant.encoder_training import train_encoder

        result = yield from train_encoder(self.domain, seed=seed, save=True)
        self._encoder = None
        return result

    def combined_prior(self, domain: Domain | None = None) -> CombinedPrior:
        """The prior the agent uses: the encoder joined with tag mentions (assistant.prior.CombinedPrior).

        ``domain``: whose annotations score the mentions (default: the agent's view, for training and
        evaluation; conversations use the full domain).
        """
        domain = domain or self.protocol.agent_domain
        key = id(domain)
        if key not in self._priors:
            self._priors[key] = self._make_prior(domain, self.mention_weight())
        return self._priors[key]

    def _make_prior(self, domain: Domain, beta: float) -> CombinedPrior:
        from assistant.mentions import MentionDetector

        detector = MentionDetector.from_domain(domain)
        log_answers = np.log(np.maximum(domain.p_hat(SMOOTHING), 1e-12))
        seen = np.zeros(domain.num_labels, dtype=bool)
        seen[domain.labels_with_queries("train")] = True
        return CombinedPrior(self.encoder, detector, log_answers, seen, beta)

    def mention_weight(self) -> float:
        """beta of the mention evidence, fitted on the dev queries (cached next to the encoder)."""
        path = paths.models_dir(self.name) / (
            "prior.json" if self.text_prior == "sru" else f"prior-{self.text_prior}.json"
        )
        stamp = self.encoder_hash()
        if path.is_file():
            saved = json.loads(path.read_text())
            if saved.get("encoder") == stamp:
                return float(saved["beta"])
        agent = self.protocol.agent_domain
        texts, labels = agent.queries("dev")
        if not texts:
            return 0.0
        beta, nll = fit_mention_weight(self._make_prior(agent, 0.0), texts, labels)
        path.write_text(json.dumps({"encoder": stamp, "beta": beta, "dev_nll": nll}, indent=2))
        return beta

    def encoder_hash(self) -> str:
        """Identity of the text prior (for the encoder: its data hash and training time): policies trained
        on top of another prior are stale, since the posterior they learned to read came from it."""
        from assistant.encoder import encoder_checkpoint_path

        if self.text_prior != "sru":
            enc = self.encoder
            fitted = f"{enc.temperature:.6g}/{enc.short_temperature}/{enc.centroid_weight:.6g}"
            return f"{self.text_prior}:{data_hash([self.domain.counts, self.domain.query_texts])}:{fitted}"
        sidecar = read_sidecar(encoder_checkpoint_path(self.name)) or {}
        return f"{sidecar.get('data_hash', '')}@{sidecar.get('created_at', '')}"

    def base_answer_model(self, domain: Domain | None = None) -> AnswerModel:
        """p_hat of ``domain`` (default: the agent view) with the encoder's tag scores, lambda to be set."""
        domain = domain or self.protocol.agent_domain
        scores = self.encoder.tag_scores()
        base = AnswerModel(domain.p_hat(SMOOTHING), domain.option_mask, scores, lam=1.0)
        w, b = fit_answer_scale(base)
        return base.with_params(w=w, b=b)

    def answer_model(self, loaded: LoadedPolicy, domain: Domain | None = None) -> AnswerModel:
        base = AnswerModel(
            (domain or self.protocol.agent_domain).p_hat(SMOOTHING), self.domain.option_mask, self.encoder.tag_scores()
        )
        return base.with_params(lam=loaded.lam, w=loaded.w, b=loaded.b)

    # ---- policies ----
    def train_policy(
        self, candidates: str = "all", variant: str = "learned", config: PolicyConfig | None = None, seed: int = 0
    ) -> Generator[Progress, None, PolicyResult]:
        """Train (and save) the policy for a candidate setting and variant on dev-split episodes."""
        if variant not in VARIANTS:
            raise ConfigError(f"unknown policy variant {variant!r}: use one of {', '.join(VARIANTS)}")
        cands = candidate_labels(self.domain, candidates)
        agent = self.protocol.agent_domain
        config = config or PolicyConfig()
        if variant == "lambda_1":
            config = PolicyConfig(**{**config.__dict__, "initial_lambda": 1.0, "learn_answer_model": False})
        episodes = sample_episodes(agent, POLICY_EPISODES, seed + 1, "dev", cands)
        position = {int(c): i for i, c in enumerate(cands)}
        combined = self.combined_prior()
        prior = restrict(combined.scores([e.query for e in episodes]), cands)
        known = np.zeros((len(episodes), self.domain.num_questions), dtype=bool)
        for i, episode in enumerate(episodes):
            for question, _ in combined.mentioned(episode.query):
                known[i, question] = True
        base = self.base_answer_model().restrict(cands)
        result = yield from train_policy(
            base,
            self.protocol.user_answers[:, :, cands],
            episodes,
            prior,
            np.array([position[e.target] for e in episodes]),
            config,
            seed,
            known_questions=known,
        )
        last = result.history[-50:]
        metrics = {k: float(np.mean([h[k] for h in last])) for k in ("reward", "accuracy", "turns")}
        save_policy(
            policy_path(self.name, candidates, variant, self.text_prior),
            result,
            _policy_hash(self.protocol, self.encoder_hash(), candidates, variant),
            metrics,
        )
        return result

    def load_policy(self, candidates: str = "all", variant: str = "learned") -> LoadedPolicy:
        return load_policy(
            policy_path(self.name, candidates, variant, self.text_prior),
            _policy_hash(self.protocol, self.encoder_hash(), candidates, variant),
        )

    def missing(self, candidate_settings: tuple[str, ...] = ("all",)) -> list[str]:
        """What still has to be trained: 'encoder', 'policy-all-learned', ..."""
        try:
            self.encoder  # noqa: B018 - loading is the check
        except ModelMissingError:
            return ["encoder"] + [f"policy-{c}-{v}" for c in candidate_settings for v in VARIANTS]
        todo = []
        for c in candidate_settings:
            for v in VARIANTS:
                try:
                    self.load_policy(c, v)
                except ModelMissingError:
                    todo.append(f"policy-{c}-{v}")
        return todo

    def warm_up(self, candidates: str = "all") -> Generator[Progress, None, None]:
        """Load the models, embed every text the comparison phase may show (cached on disk) and load the
        sentence encoder that embeds the user's query, so that sessions then respond at once. Run it in a
        worker: the first time it takes a while."""
        from assistant.ranking.session import candidate_texts

        yield Progress(0, 3, "loading the models")
        self.clarifier(candidates)
        yield Progress(1, 3, "embedding the answers for the comparisons")
        self.text_encoder.warm([text for label in self.domain.labels for text in candidate_texts(label)])
        yield Progress(2, 3, "loading the sentence encoder")
        self.text_encoder.encoder.encode(["warm up"])  # not cached: only loads the model
        yield Progress(3, 3, "ready")

    # ---- products ----
    def clarifier(self, candidates: str = "all", config: ClarifierConfig | None = None) -> Clarifier:
        """The agent for real conversations: the domain's full annotations, trained prior and policy.

        Built once per (candidates, config) and reused: conversations keep their own state.
        """
        key = (candidates, config)
        if key not in self._clarifiers:
            self._clarifiers[key] = self._build_clarifier(candidates, config)
        return self._clarifiers[key]

    def _build_clarifier(self, candidates: str, config: ClarifierConfig | None) -> Clarifier:
        loaded = self.load_policy(candidates, "learned")
        return Clarifier(
            self.domain,
            self.combined_prior(self.domain),
            self.answer_model(loaded, self.domain),
            loaded.policy,
            candidates=candidate_labels(self.domain, candidates),
            config=config,
        )

    def evaluation_setup(self, candidates: str = "all", turn_reward: float | None = None) -> EvaluationSetup:
        ours = self.load_policy(candidates, "learned")
        lam1 = self.load_policy(candidates, "lambda_1")
        agent = self.protocol.agent_domain
        return EvaluationSetup(
            domain=agent,
            candidates=candidate_labels(self.domain, candidates),
            prior=self.combined_prior(),
            answer_model=self.answer_model(ours),
            policy=ours.policy,
            user=SimulatedUser(self.protocol.user_answers, self.domain.option_mask),
            answer_model_lambda_1=self.answer_model(lam1).with_params(lam=1.0),
            policy_lambda_1=lam1.policy,
            bm25_prior=load_bm25(self.domain),
            turn_reward=PolicyConfig().turn_reward if turn_reward is None else turn_reward,
            protocol=self.protocol.description,
        )

    def evaluate(
        self,
        candidates: str = "all",
        episodes: int = 2000,
        seed: int = 0,
        systems: tuple[str, ...] = SYSTEMS,
        max_turns: int = 10,
        dev_episodes: int = 500,
        queries_file: str | None = None,
    ) -> Generator[Progress, None, EvaluationReport]:
        """`clarify evaluate` (also the Lab page and the benchmark): every system on the same test episodes,
        sampled from the held-out queries or started from ``queries_file`` (label<TAB>query)."""
        setup = self.evaluation_setup(candidates)
        agent = self.protocol.agent_domain
        if queries_file:
            test = episodes_from_file(agent, queries_file, episodes, seed)
            allowed = set(setup.candidates.tolist())
            outside = [e for e in test if e.target not in allowed]
            if outside:
                raise ConfigError(
                    f"{queries_file}: label {agent.labels[outside[0].target].name!r} is not among the "
                    f"{candidates} candidates; use --candidates all"
                )
        else:
            test = sample_episodes(agent, episodes, seed, "test", setup.candidates)
        dev = sample_episodes(agent, dev_episodes, seed + DEV_SEED_OFFSET, "dev", setup.candidates)
        report = yield from evaluate(setup, test, dev, max_turns, tuple(systems))
        report.meta.update(
            {"seed": seed, "candidate_setting": candidates, "queries_file": queries_file, "text_prior": self.text_prior}
        )
        return report


def prepare(
    name: str, candidate_settings: tuple[str, ...] | None = None, seed: int = 0, text_prior: str = "sru"
) -> Generator[Progress, None, list[str]]:
    """Build the domain if needed and train whatever is missing; returns what was trained."""
    from crowdsourcing.adapters import BUNDLED_DOMAINS, build_domain

    if not paths.domain_db_path(name).exists():
        if name not in BUNDLED_DOMAINS:
            raise DomainNotFoundError(f"domain {name!r} does not exist: import it first or pick a bundled one")
        yield from build_domain(name)
    factory = AgentFactory(name, text_prior=text_prior)
    if candidate_settings is None:
        has_uncaptioned = factory.domain.labels_with_queries("train").size < factory.domain.num_labels
        candidate_settings = ("all", "captioned") if has_uncaptioned else ("all",)
    trained = []
    todo = factory.missing(candidate_settings)
    if "encoder" in todo:
        yield from factory.train_encoder(seed)
        trained.append("encoder")
        todo = factory.missing(candidate_settings)
    for item in todo:
        _, cands, variant = item.split("-", 2)
        yield from factory.train_policy(cands, variant, seed=seed)
        trained.append(item)
    return trained
