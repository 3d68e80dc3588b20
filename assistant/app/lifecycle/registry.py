"""The trained models of a domain, loaded for use: the model registry.

Trained parts live in ``paths.models_dir(domain)``:

- the text encoder (prior p(y|x0) and tag scorer; see assistant.priors.sru), trained on the agent's view
  of the domain (``assistant.store.agent_view``);
- the prior's fitted settings (``prior.json``: the weight of the tag mentions, and for the pooled MiniLM
  prior its calibration), fitted after the encoder;
- STOP/ASK policies, one per candidate setting ("all" labels, or the "captioned" labels that have
  training queries) and answer-model variant ("learned" lambda, or lambda = 1 for the baseline):
  ``policy-<candidates>-<variant>.pt`` with the fine-tuned lambda, w and b.

The registry loads; it never trains or fits (the jobs in ``assistant.app.lifecycle.training_jobs`` do, and ``prepare``
runs them). ``ModelRegistry.missing`` says what is absent, ``ModelRegistry.stale`` what is older than the data: after
an import the models it made stale keep serving (a conversation needs *some* trained models, and slightly
older ones are nearly as good) until new ones are trained (``assistant.app.lifecycle.updates``). ``ModelRegistry.clarifier``
assembles a ready ``Clarifier`` for conversations. Training, evaluation and ``prepare`` are jobs in
``assistant.app.research.research``, ``assistant.app.lifecycle.updates`` and ``assistant.app.desk.domains``.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from assistant import paths
from assistant.app.lifecycle.calibration_jobs import calibrated
from assistant.app.lifecycle.components import missing_models
from assistant.app.lifecycle.prior_choice import chosen_text_prior
from assistant.clarification.answer_list import answer_lists_suit
from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.clarifier import Clarifier, ClarifierConfig
from assistant.clarification.out_of_scope import OutOfScopeModel
from assistant.clarification.policy_io import LoadedPolicy, load_policy
from assistant.clarification.stopping import check_pace, default_pace
from assistant.errors import ConfigError, ModelMissingError
from assistant.priors.combined import CombinedPrior
from assistant.progress import Progress
from assistant.settings import CANDIDATE_SETTINGS, MAX_QUESTIONS, PACES, SHORTLIST_SIZE, TEXT_PRIORS, VARIANTS
from assistant.store import Domain, KnowledgeBase
from assistant.store.agent_view import agent_view
from assistant.text.embeddings import CachingSentenceEncoder, ServingSentenceEncoder  # light: MiniLM loads on use
from models.checkpoint import data_hash, hash_state, read_json, read_sidecar, write_json_atomic

if TYPE_CHECKING:
    from assistant.simulation.protocol import SimulationProtocol

# Coverage values ``tune_coverage`` chooses among (0 = the stop rule alone decides).
COVERAGE_GRID = (0.0, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95)
PROTOCOL_SEED = 0
SMOOTHING = 1.0
# Bump when what a policy sees changes (its prior, its features): older policies then count as stale.
POLICY_FORMAT = "policy-v6: state with the shortlist mass; the coverage rule only where dev justifies it"


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


def policy_stem(candidates: str, variant: str, text_prior: str = "sru", pace: str = "quick") -> str:
    """policy-<candidates>-<variant>-<pace>[-<text prior>]: a policy's file name without suffix."""
    suffix = "" if text_prior == "sru" else f"-{text_prior}"
    return f"policy-{candidates}-{variant}-{pace}{suffix}"


def policy_path(domain: str, candidates: str, variant: str, text_prior: str = "sru", pace: str = "quick") -> Path:
    """models/<domain>/policy-<candidates>-<variant>-<pace>[-<text prior>] (without suffix)."""
    return paths.models_dir(domain) / policy_stem(candidates, variant, text_prior, pace)


class ModelRegistry:
    """The trained models of one domain: loads them (cached), says which are missing or stale, and
    assembles the clarifier real conversations use. Training and evaluation are jobs elsewhere
    (``assistant.app.research.research``) that use a registry; the registry itself never trains."""

    def __init__(
        self, domain_name: str, seed: int = PROTOCOL_SEED, text_prior: str | None = None, allow_stale: bool = True
    ) -> None:
        text_prior = text_prior or chosen_text_prior(domain_name) or "sru"  # None: the domain's own choice
        if text_prior not in TEXT_PRIORS:
            raise ConfigError(f"unknown text prior {text_prior!r}: use one of {', '.join(TEXT_PRIORS)}")
        self.name = domain_name
        self.text_prior = text_prior
        self.domain = load_domain(domain_name)
        self.protocol_seed = seed
        self._agent_domain: Domain | None = None
        self._protocol: SimulationProtocol | None = None
        self._encoder = None
        self._text_encoder: CachingSentenceEncoder | None = None
        self._clarifiers: dict[tuple, Clarifier] = {}
        self._priors: dict[int, CombinedPrior] = {}
        self._data_states: dict[tuple, tuple[Domain, Any]] = {}
        self.notice = ""  # one line for the person when something runs in a slower way
        self.allow_stale = allow_stale  # serve models older than the data (research jobs refuse them)
        self._stale: set[str] = set()

    def _prepares_minilm(self) -> bool:
        """Whether a plain `clarify prepare NAME` prepares the MiniLM prior: the domain's chosen prior, or a
        desk's FAQ whose cold start has not chosen yet (a cold start cut short by an update was told
        `--prior minilm` for a domain whose prior became sru; issue 41)."""
        chosen = chosen_text_prior(self.name)
        return chosen == "minilm" or (chosen is None and self.domain.meta.get("own_faq") == "true")

    @property
    def agent_domain(self) -> Domain:
        """What the models were trained on: the agent's view of the domain (``assistant.store.agent_view``;
        birds: annotations re-sampled from training images)."""
        if self._agent_domain is None:
            self._agent_domain = agent_view(self.domain, self.protocol_seed)
        return self._agent_domain

    @property
    def protocol(self) -> SimulationProtocol:
        """The agent/user split of the simulator (research jobs only: a conversation needs none of it)."""
        if self._protocol is None:
            from assistant.simulation.protocol import simulation_protocol

            self._protocol = simulation_protocol(self.domain, self.protocol_seed)
        return self._protocol

    def forget_models(self, prior: bool = True) -> None:
        """Drop the loaded models (after training new ones): the next use loads them again. ``prior``: the text
        prior too (a new encoder), not only the policies."""
        self._clarifiers.clear()
        self._stale = {k for k in self._stale if k == "encoder" and not prior}
        if prior:
            self._encoder = None
            self._priors.clear()

    @property
    def text_encoder(self) -> CachingSentenceEncoder:
        """Pooled MiniLM for the comparison phase's candidate features, with a per-domain disk cache; the query,
        never cached, in numpy (``ServingSentenceEncoder``)."""
        if self._text_encoder is None:
            path = paths.models_dir(self.name) / "text-embeddings.npz"
            self._text_encoder = CachingSentenceEncoder(path, ServingSentenceEncoder())
        return self._text_encoder

    @property
    def encoder(self):
        """The text prior (and tag scorer): the trained SRU encoder, or the pooled MiniLM prior."""
        if self._encoder is None:
            if self.text_prior == "minilm":
                from assistant.priors.desk import minilm_prior_from_settings

                saved = self._prior_settings()
                fix = f"clarify prepare {self.name}" + ("" if self._prepares_minilm() else " --prior minilm")
                if saved.get("data") != self._minilm_data_stamp() or not isinstance(saved.get("calibration"), dict):
                    raise ModelMissingError(
                        f"the pooled MiniLM prior of domain {self.name!r} is not calibrated on its data: run `{fix}`"
                    )
                try:
                    prior = minilm_prior_from_settings(self.agent_domain, saved["calibration"])
                except (KeyError, TypeError, ValueError) as exc:
                    raise ModelMissingError(f"{self.prior_settings_path()} is damaged ({exc}): run `{fix}`") from exc
                import models.pretrained
                from assistant.text.embeddings import MiniLMSentenceEncoder
                from models.numpy_forward import minilm_sentence_vectors

                # a person's query through the numpy pass, without torch (as the SRU route); not where a test's
                # stand-in replaces MiniLM, whose function the numpy pass does not compute
                if models.pretrained.SentenceEncoder is MiniLMSentenceEncoder:
                    prior.query_encoder = minilm_sentence_vectors
                self._encoder = prior
            else:
                from assistant.priors.sru import load_encoder_prior

                stale_ok = self.allow_stale
                self._encoder = load_encoder_prior(self.domain, self.agent_domain, stale_ok, numpy_forward=True)
                if self._encoder.stale:
                    self._stale.add("encoder")
        return self._encoder

    def combined_prior(self, domain: Domain | None = None) -> CombinedPrior:
        """The prior the agent uses: the encoder joined with tag mentions (assistant.priors.combined.CombinedPrior).

        ``domain``: whose annotations score the mentions (default: the agent's view, for training and
        evaluation; conversations use the full domain).
        """
        domain = domain or self.agent_domain
        key = id(domain)
        if key not in self._priors:
            self._priors[key] = self.combined_prior_with(domain, self.mention_weight())
        return self._priors[key]

    def use_text_prior(self, text_prior) -> None:
        """Serve ``text_prior`` (a freshly fitted one: ``assistant.app.lifecycle.training_jobs.fit_prior_job``)."""
        self._encoder = text_prior
        self._priors.clear()
        self._clarifiers.clear()

    def combined_prior_with(self, domain: Domain, beta: float) -> CombinedPrior:
        """The text prior joined with ``domain``'s tag mentions at weight ``beta``."""
        from assistant.priors.mentions import MentionDetector

        detector = MentionDetector.from_domain(domain)
        log_answers = np.log(np.maximum(domain.p_hat(SMOOTHING), 1e-12))
        seen = np.zeros(domain.num_labels, dtype=bool)
        seen[domain.labels_with_queries("train")] = True
        return CombinedPrior(self.encoder, detector, log_answers, seen, beta)

    def prior_settings_path(self) -> Path:
        """models/<domain>/prior.json (prior-<text prior>.json for another text prior): what ``fit_prior_job``
        fitted on top of the text prior."""
        name = "prior.json" if self.text_prior == "sru" else f"prior-{self.text_prior}.json"
        return paths.models_dir(self.name) / name

    def _prior_settings(self) -> dict:
        saved = read_json(self.prior_settings_path())  # a damaged file is refitted like a missing one
        return saved if isinstance(saved, dict) else {}

    def _data_state(self, domain: Domain, head: tuple = ()) -> Any:
        """The hash state of ``head`` + ``domain``'s counts and query texts, kept per domain object: hashing a
        981-entry FAQ's [Q, R, Y] counts (66 MB) took 0.07 s, and a first question asked for it 44 times."""
        key = (id(domain), head)
        if key not in self._data_states:
            self._data_states[key] = (domain, hash_state([*head, domain.counts, domain.query_texts]))
        return self._data_states[key][1]

    def _minilm_data_stamp(self) -> str:
        return f"minilm:{self._data_state(self.domain).hexdigest()[:16]}"

    def mention_weight(self) -> float:
        """beta of the mention evidence, as fitted on the dev queries for the current text prior."""
        saved = self._prior_settings()
        beta = saved.get("beta")
        fits = saved.get("encoder") == self.encoder_hash()
        if fits and isinstance(beta, int | float) and math.isfinite(beta) and beta >= 0:
            return float(beta)
        raise ModelMissingError(
            f"the prior of domain {self.name!r} is not fitted to its text encoder: run `clarify prepare {self.name}`"
        )

    def save_prior_settings(self, beta: float, dev_nll: dict | None, calibration: dict | None = None) -> dict:
        """Write what ``fit_prior_job`` fitted (the registry serves it from now on); returns what was written."""
        saved: dict = {"encoder": self.encoder_hash(), "beta": beta, "dev_nll": dev_nll}
        if calibration is not None:
            saved.update(data=self._minilm_data_stamp(), calibration=calibration)
        write_json_atomic(self.prior_settings_path(), saved)
        self._priors.clear()
        self._clarifiers.clear()
        return saved

    def encoder_hash(self) -> str:
        """Identity of the text prior (for the encoder: its data hash and training time): policies trained
        on top of another prior are stale, since the posterior they learned to read came from it."""
        from assistant.priors.sru import encoder_checkpoint_path

        if self.text_prior != "sru":
            enc = self.encoder
            fitted = f"{enc.temperature:.6g}/{enc.short_temperature}/{enc.centroid_weight:.6g}"
            return f"{self._minilm_data_stamp()}:{fitted}"
        sidecar = read_sidecar(encoder_checkpoint_path(self.name)) or {}
        return f"{sidecar.get('data_hash', '')}@{sidecar.get('created_at', '')}"

    def answer_model(self, loaded: LoadedPolicy, domain: Domain | None = None) -> AnswerModel:
        base = AnswerModel(
            (domain or self.agent_domain).p_hat(SMOOTHING), self.domain.option_mask, self.encoder.tag_scores()
        )
        return base.with_params(lam=loaded.lam, w=loaded.w, b=loaded.b)

    @property
    def answer_lists(self) -> bool:
        """Whether conversations ask "Which of these is it?" over the likeliest labels: where people know the
        labels' names (``assistant.clarification.answer_list.answer_lists_suit``)."""
        return answer_lists_suit(self.domain)

    @property
    def default_pace(self) -> str:
        return default_pace(self.name)

    def load_policy(self, candidates: str = "all", variant: str = "learned", pace: str | None = None) -> LoadedPolicy:
        pace = check_pace(pace or self.default_pace)
        path, data = self.policy_checkpoint(candidates, variant, pace)
        fix = (
            f"train it: `clarify train policy {self.name} --candidates {candidates} --variant {variant} --pace {pace}`"
        )
        saved = (read_sidecar(path) or {}).get("data_hash")
        if self.allow_stale and saved is not None and saved != data:
            loaded = load_policy(path, None, fix)
            self._stale.add(f"policy-{candidates}-{variant}-{pace}")
            return loaded
        return load_policy(path, data, fix)

    def policy_checkpoint(
        self, candidates: str = "all", variant: str = "learned", pace: str | None = None
    ) -> tuple[Path, str]:
        """(path, data hash) of a policy checkpoint: a policy is stale when the hash of what it was trained on
        (the agent's data, the protocol, the text prior, the setting, the pace) differs."""
        pace = check_pace(pace or self.default_pace)
        d = self.agent_domain
        data = data_hash(
            [self.protocol_seed, self.encoder_hash(), candidates, variant, pace], self._data_state(d, (POLICY_FORMAT,))
        )
        return policy_path(self.name, candidates, variant, self.text_prior, pace), data

    def required_policies(self, candidate_settings: tuple[str, ...] = ("all",)) -> list[tuple[str, str, str]]:
        """(candidates, variant, pace) of the policies a domain needs: ours at both paces (a person picks one),
        the lambda = 1 baseline at the default pace."""
        return [
            (c, v, p)
            for c in candidate_settings
            for v in VARIANTS
            for p in PACES
            if v == "learned" or p == self.default_pace
        ]

    def stale(self, candidate_settings: tuple[str, ...] = ("all",)) -> list[str]:
        """The models that serve although they are older than the data ('encoder', 'policy-all-learned-quick', ...)."""
        self.missing(candidate_settings)  # loads them: staleness is found on loading
        return sorted(self._stale)

    def missing(self, candidate_settings: tuple[str, ...] = ("all",)) -> list[str]:
        """What has no usable model at all (also what is stale, unless the registry serves stale models), in
        order: 'encoder', 'prior' (its fitted settings), 'policy-all-learned-quick', ..., 'coverage-all-quick'
        (the coverage rule of a learned policy), 'oos-all-quick' (the out-of-scope hypothesis): the models of
        every kind in ``assistant.app.lifecycle.components.COMPONENTS``."""
        return missing_models(self, candidate_settings)

    @property
    def has_out_of_scope_queries(self) -> bool:
        """Whether the domain has dev queries that no label answers (to tune the out-of-scope hypothesis on)."""
        return bool((self.domain.out_of_scope_splits == "dev").any())

    def out_of_scope_model(self, candidates: str = "all", pace: str | None = None) -> OutOfScopeModel | None:
        """The out-of-scope hypothesis tuned on dev for this policy (None until tuned, or without dev queries)."""
        pace = check_pace(pace or self.default_pace)
        saved = self.stop_settings().get(self.stop_key(candidates, pace) + "/out_of_scope")
        return OutOfScopeModel.from_dict(saved["model"]) if saved else None

    def save_out_of_scope(self, candidates: str, pace: str, model: OutOfScopeModel, details: dict) -> None:
        settings = self.stop_settings()
        settings[self.stop_key(candidates, pace) + "/out_of_scope"] = {"model": model.to_dict(), **details}
        write_json_atomic(self._stop_settings_path(), settings)
        self._clarifiers.clear()

    def coverage(self, candidates: str = "all", pace: str | None = None) -> float:
        """The coverage the compare-only-when-covered rule requires (``ClarifierConfig.coverage``), as tuned
        on dev vague queries for this policy and a shortlist of 5 (``assistant.app.lifecycle.training_jobs.tune_coverage_job``);
        0 (the policy alone decides) until it is tuned."""
        pace = check_pace(pace or self.default_pace)
        saved = self.stop_settings().get(self.stop_key(candidates, pace))
        return float(saved["coverage"]) if saved else 0.0

    def coverage_missing(self, candidates: str = "all", pace: str | None = None) -> bool:
        return self.stop_key(candidates, check_pace(pace or self.default_pace)) not in self.stop_settings()

    def save_coverage(self, candidates: str, pace: str, coverage: float, details: dict) -> None:
        settings = self.stop_settings()
        settings[self.stop_key(candidates, pace)] = {"coverage": coverage, **details}
        write_json_atomic(self._stop_settings_path(), settings)
        self._clarifiers.clear()

    def stop_key(self, candidates: str, pace: str) -> str:
        """The key of a learned policy's tuned rules in stop.json: they belong to that policy's data. A stale
        policy that serves (``allow_stale``) keeps the rules tuned for it: after an import of two queries its
        rules counted as missing, so `ask` retuned them in the foreground before its first question, and
        `prepare` tuned them twice (for the stale policy, then for the updated one; issue 41)."""
        path, data = self.policy_checkpoint(candidates, "learned", pace)
        trained_on = (read_sidecar(path) or {}).get("data_hash")
        if self.allow_stale and isinstance(trained_on, str) and trained_on != data:
            data = trained_on
        return f"{candidates}/{pace}/{data}"

    def _stop_settings_path(self) -> Path:
        return paths.models_dir(self.name) / (
            "stop.json" if self.text_prior == "sru" else f"stop-{self.text_prior}.json"
        )

    def stop_settings(self) -> dict:
        """stop.json: the coverage rules and out-of-scope hypotheses tuned per learned policy."""
        path = self._stop_settings_path()
        saved = read_json(path)  # a damaged file is retuned like a missing one
        return saved if isinstance(saved, dict) else {}

    def warm_up(self, candidates: str = "all") -> Generator[Progress, None, None]:
        """Load the models, embed every text the comparison phase may show (cached on disk) and load the
        sentence encoder that embeds the user's query, so that sessions then respond at once. Run it in a
        worker: the first time it takes a while."""
        from assistant.ranking.ranking_session import candidate_texts

        yield Progress(0, 3, "loading the models")
        self.clarifier(candidates)
        yield Progress(1, 3, "embedding the answers for the comparisons")
        self.text_encoder.warm([text for label in self.domain.labels for text in candidate_texts(label)])
        yield Progress(2, 3, "loading the sentence encoder")
        self.text_encoder.encoder.encode(["warm up"])  # not cached: only loads what embeds a query
        yield Progress(3, 3, "ready")

    # ---- products ----
    def clarifier(
        self,
        candidates: str = "all",
        pace: str | None = None,
        shortlist_size: int = SHORTLIST_SIZE,
        max_turns: int = MAX_QUESTIONS,
    ) -> Clarifier:
        """The agent for real conversations: the domain's full annotations, trained prior, the pace's policy
        and its dev-tuned coverage rule for a shortlist of ``shortlist_size``.

        Built once per setting and reused: conversations keep their own state.
        """
        pace = check_pace(pace or self.default_pace)
        key = (candidates, pace, shortlist_size, max_turns)
        if key not in self._clarifiers:
            loaded = self.load_policy(candidates, "learned", pace)
            config = ClarifierConfig(
                max_turns=max_turns,
                shortlist_size=shortlist_size,
                coverage=self.coverage(candidates, pace),
                answer_lists=self.answer_lists,
            )
            self._clarifiers[key] = Clarifier(
                self.domain,
                calibrated(self, self.combined_prior(self.domain)),  # issue 32: the calibrated prior
                self.answer_model(loaded, self.domain),
                loaded.policy,
                candidates=candidate_labels(self.domain, candidates),
                config=config,
                out_of_scope=self.out_of_scope_model(candidates, pace),
            )
        return self._clarifiers[key]
