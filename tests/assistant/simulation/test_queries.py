"""Issue 10 (vague first queries, a stop rule that asks when it should, saying more mid-session):
the vague-query generator and its split discipline, the policy's state, the compare-only-when-covered
rule, and adding words to a session (with undo and resume)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from assistant.app.session.session import Session, SessionConfig
from assistant.clarification.answer_model import AnswerModel
from assistant.clarification.clarifier import Clarifier, ClarifierConfig
from assistant.clarification.stopping import FixedTurns, LearnedPolicy, policy_features, shortlist_coverage
from assistant.errors import ConfigError, EmptyQueryError, SessionStateError
from assistant.simulation.episodes import sample_episodes
from assistant.simulation.queries import (
    QUERY_KINDS,
    VagueQueries,
    VagueQueryMix,
    tag_phrase,
    training_queries,
    vague_episodes,
)
from assistant.simulation.rollout import run_episode
from assistant.simulation.user import SimulatedUser
from assistant.store import BINARY_OPTIONS, Domain, Label, Question
from models.policy_net import StopPolicyNet
from tests.support.tiny import KeywordPrior, TinyAgents, make_tiny_domain

# ---- the vague-query generator -------------------------------------------------------------------------


def faq_like_domain() -> Domain:
    """Three FAQ labels with named titles; the test queries carry words ("zebra...") no other split has."""
    labels = [
        Label("strike", "Strikethrough in Gmail"),
        Label("archive", "Find archived email"),
        Label("share", "Share a Google Docs folder"),
    ]
    questions = [
        Question(tag, f"Is it about {tag}?", "binary", tag, BINARY_OPTIONS, induced=True)
        for tag in ("formatting", "inbox", "sharing")
    ]
    counts = np.zeros((3, 2, 3), dtype=np.float32)
    for q in range(3):
        counts[q, 0, q], counts[q, 1, q] = 9, 1
        for y in set(range(3)) - {q}:
            counts[q, 0, y], counts[q, 1, y] = 1, 9
    texts, labels_of, splits = [], [], []
    for y, (dev, test) in enumerate(
        [
            ("how do i cross out text in gmail", "zebra quokka cross out words gmail message"),
            ("where did my archived email go after archiving", "zebra quokka lost archived email"),
            ("share a whole folder of google docs with a friend", "zebra quokka give friend my docs folder"),
        ]
    ):
        for text, split in ((dev, "dev"), (test, "test"), (dev + " please", "train")):
            texts.append(text)
            labels_of.append(y)
            splits.append(split)
    return Domain("faqlike", "FAQ-like", labels, questions, counts, texts, np.array(labels_of), np.array(splits), False)


def test_each_kind_of_vague_query_is_what_the_mix_documents():
    domain = faq_like_domain()
    maker = VagueQueries(domain)
    rng = np.random.default_rng(0)
    query = "how do i cross out text in gmail"
    window, kind = maker.make(query, 0, "window", rng)
    assert kind == "window" and 1 <= len(window.split()) <= 4 and window in query
    keywords, _ = maker.make(query, 0, "keywords", rng)
    assert 1 <= len(keywords.split()) <= 3 and not {"how", "do", "i", "in"} & set(keywords.split())
    unnamed, kind = maker.make(query, 0, "unnamed", rng)
    assert kind == "unnamed" and "gmail" not in unnamed and "cross out text" in unnamed  # the label's name is gone
    tags, kind = maker.make(query, 0, "tags", rng)
    assert kind == "tags" and tags == "formatting"  # the only tag most of its answers say yes to
    assert maker.make(query, 0, "crowd", rng) == (query, "crowd")
    # a transformation that leaves nothing falls through to the next kind, and says so
    assert maker.make("gmail", 0, "window", rng)[1] != "window"


def test_the_mix_has_its_proportions_and_the_same_seed_gives_the_same_queries():
    domain = faq_like_domain()
    crowd = sample_episodes(domain, 2000, seed=1, split="dev")
    mix = VagueQueryMix({"crowd": 0.5, "tags": 0.5})
    made = vague_episodes(domain, crowd, mix, seed=3)
    share = np.mean([e.kind == "tags" for e in made])
    assert 0.45 < share < 0.55
    assert [(e.target, e.seed) for e in made] == [(e.target, e.seed) for e in crowd]  # same users
    assert vague_episodes(domain, crowd, mix, seed=3) == made
    assert {e.kind for e in vague_episodes(domain, crowd, None, seed=3)} == set(QUERY_KINDS)
    with pytest.raises(ConfigError, match="unknown query kind"):
        VagueQueryMix({"crowd": 1.0, "mumble": 1.0})
    with pytest.raises(ConfigError, match="not all zero"):
        VagueQueryMix({"crowd": 0.0})


def test_what_trains_or_tunes_on_the_mix_never_sees_a_test_query():
    domain = faq_like_domain()
    texts, _labels, kinds = training_queries(domain, seed=0, copies=20)
    assert len(texts) == 60 and set(kinds) == set(QUERY_KINDS)
    words = {w for t in texts for w in t.split()}
    assert not {"zebra", "quokka"} & words  # the words only the test queries have
    assert not {"please"} & words  # nor the training split's
    from assistant.app.lifecycle.training_jobs import dev_mix_episodes

    episodes = dev_mix_episodes(domain, 500, seed=0, candidates=np.arange(3))
    assert not {"zebra", "quokka", "please"} & {w for e in episodes for w in e.query.split()}


def test_bird_attributes_read_as_words():
    red = Question("has_wing_color::red", "Is the wing red?", "binary", "has_wing_color", BINARY_OPTIONS)
    bill = Question("has_bill_shape", "Bill shape?", "choice", "has_bill_shape", ("curved (up or down)", "hooked"))
    assert tag_phrase(red, 0) == "red wing" and tag_phrase(red, 1) == ""
    assert tag_phrase(bill, 0) == "curved bill"


# ---- the policy's state ------------------------------------------------------------------------------


def test_policy_state_carries_entropy_gain_shortlist_mass_and_turn_the_same_in_numpy_and_torch():
    rng = np.random.default_rng(0)
    beliefs = rng.dirichlet(np.ones(30), size=5).astype(np.float32)
    gains = rng.random(5).astype(np.float32)
    numpy_features = policy_features(beliefs, 3, 10, top_k=20, best_gain=gains)
    torch_features = policy_features(torch.from_numpy(beliefs), 3, 10, 20, torch.from_numpy(gains), xp=torch)
    np.testing.assert_allclose(numpy_features, torch_features.numpy(), rtol=1e-5, atol=1e-6)
    flat = policy_features(np.full(30, 1 / 30), 0, 10, top_k=20, best_gain=np.log(2.0))
    sharp = policy_features(np.eye(30)[0], 0, 10, top_k=20)
    assert flat[20] == pytest.approx(1.0) and sharp[20] == pytest.approx(0.0)  # entropy / log Y
    assert flat[21] == pytest.approx(1.0)  # the best gain in bits
    assert flat[22] == pytest.approx(5 / 30) and sharp[22] == pytest.approx(1.0)  # the shortlist's mass
    np.testing.assert_allclose(numpy_features[:, 22], [shortlist_coverage(b, 5) for b in beliefs], rtol=1e-5)
    assert flat[23] == 0.0 and policy_features(np.eye(30)[0], 5, 10)[23] == pytest.approx(0.5)
    # the network reads the gain: same belief and turn, another gain, another decision probability
    policy = LearnedPolicy(StopPolicyNet(top_k=20, hidden=8))
    assert policy.stop_probability(beliefs[0], 2, 10, 0.0) != policy.stop_probability(beliefs[0], 2, 10, 1.0)


# ---- compare only when the shortlist covers the answer --------------------------------------------------


def wide_domain(informative: bool = True) -> Domain:
    """12 labels and 12 one-label questions (uninformative ones answer alike for every label)."""
    n = 12
    labels = [Label(f"k{i}", f"Label {i}") for i in range(n)]
    questions = [Question(f"t{q}", f"Is it {q}?", "binary", f"t{q}", BINARY_OPTIONS) for q in range(n)]
    counts = np.ones((n, 2, n), dtype=np.float32)
    if informative:
        counts[:, 0, :] = 1
        counts[:, 1, :] = 19
        counts[np.arange(n), 0, np.arange(n)] = 19
        counts[np.arange(n), 1, np.arange(n)] = 1
    return Domain("wide", "Wide", labels, questions, counts, ["x"] * n, np.arange(n), np.array(["train"] * n))


class FlatPrior:
    name = "flat"

    def scores(self, texts):
        return np.zeros((len(texts), 12), dtype=np.float32)


def wide_clarifier(domain: Domain, coverage: float) -> Clarifier:
    model = AnswerModel(domain.p_hat(0.0), domain.option_mask)
    return Clarifier(
        domain, FlatPrior(), model, FixedTurns(0), config=ClarifierConfig(shortlist_size=3, coverage=coverage)
    )


def test_it_keeps_asking_while_the_shortlist_is_unlikely_to_hold_the_answer():
    domain = wide_domain()
    conversation = wide_clarifier(domain, coverage=0.0).start("something")
    assert conversation.next_question() is None and conversation.stop_reason == "confident"  # the rule alone
    covered = wide_clarifier(domain, coverage=0.8).start("something")
    assert covered.coverage() == pytest.approx(3 / 12)
    assert covered.next_question() is not None  # the stop rule says stop; the shortlist covers 25%: ask
    user = SimulatedUser(domain.p_hat(0.0), domain.option_mask)
    from assistant.simulation.episodes import EpisodeSpec

    episode = run_episode(wide_clarifier(domain, 0.8), user, EpisodeSpec(4, "something", 7))
    assert episode.stop_reason == "confident" and episode.turns > 0
    assert shortlist_coverage(np.full(12, 1 / 12), 3) < 0.8  # it stopped only once covered:
    conversation = wide_clarifier(domain, 0.8).start("something")
    user.start(EpisodeSpec(4, "something", 7))
    while (q := conversation.next_question()) is not None:
        conversation.answer(q, user.answer(q))
    assert conversation.coverage() >= 0.8


def test_with_no_informative_question_left_or_a_skip_it_compares_anyway():
    flat = wide_clarifier(wide_domain(informative=False), coverage=0.9).start("something")
    assert flat.best_gain() < 1e-6
    assert flat.next_question() is None and flat.stop_reason == "no_informative_question"
    skipped = wide_clarifier(wide_domain(), coverage=0.9).start("something")
    skipped.force_stop()
    assert skipped.next_question() is None and skipped.stop_reason == "user"


def test_early_stops_are_counted_only_for_confident_stops_below_the_bar():
    domain = wide_domain()
    user = SimulatedUser(domain.p_hat(0.0), domain.option_mask)
    from assistant.evaluation.report import report_row
    from assistant.simulation.episodes import EpisodeSpec

    specs = [EpisodeSpec(i, "q", i) for i in range(12)]
    early = [run_episode(wide_clarifier(domain, 0.0), user, s) for s in specs]
    assert all(e.early_stop for e in early)  # stopped at 1/12 with questions left
    assert report_row("ours", early)["early_stop_share"] == 1.0
    covered = [run_episode(wide_clarifier(domain, 0.8), user, s) for s in specs]
    assert report_row("ours", covered)["early_stop_share"] < 1.0


# ---- saying more mid-session --------------------------------------------------------------------------

CONFIG = SessionConfig(shortlist_size=3, ranking_budget=2, ranking_threshold=0.999)


def test_added_words_recompute_the_prior_and_keep_the_answers():
    domain = make_tiny_domain()
    prior = KeywordPrior(domain)
    clarifier = Clarifier(domain, prior, AnswerModel(domain.p_hat(1.0), domain.option_mask), FixedTurns(3))
    conversation = clarifier.start("bird")
    q = conversation.next_question()
    conversation.answer(q, 1)
    before = conversation.probs.copy()
    conversation.add_words("bright red crest")
    assert conversation.query == "bird bright red crest" and conversation.turn == 1
    fresh = clarifier.start("bird bright red crest")
    fresh.answer(q, 1)
    np.testing.assert_allclose(conversation.probs, fresh.probs)  # as if the person had said it all at first
    assert not np.allclose(conversation.probs, before)
    conversation.undo()
    np.testing.assert_allclose(conversation.probs, before)
    assert conversation.query == "bird" and conversation.turn == 1
    with pytest.raises(EmptyQueryError):
        conversation.add_words("  ")


def test_a_session_logs_added_words_so_that_undo_and_resume_replay_them():
    agents = TinyAgents(turns=2)
    session = Session.start(agents, "bird", CONFIG)
    session.answer(0)
    session.add_words("bright red crest")
    assert session.query == "bird bright red crest"
    assert session.phase == "clarifying" and session.conversation.turn == 1
    assert [t.kind for t in session.transcript()][-1] == "words"
    resumed = Session.resume(agents, session.id)
    assert resumed.query == session.query
    np.testing.assert_allclose(resumed.conversation.probs, session.conversation.probs)
    session.undo()  # the words, not the answer
    assert session.query == "bird" and session.conversation.turn == 1
    resumed = Session.resume(agents, session.id)
    assert resumed.query == "bird" and resumed.conversation.turn == 1
    np.testing.assert_allclose(resumed.conversation.probs, session.conversation.probs)


def test_words_can_be_added_after_the_stop_until_the_first_comparison():
    agents = TinyAgents(turns=1)
    session = Session.start(agents, "bird", CONFIG)
    session.answer(0)
    assert session.phase == "comparing" and session.stop_explanation.startswith("Stopped asking")
    session.add_words("black")
    assert "black" in session.query and session.comparisons == 0
    if session.phase == "comparing":
        session.prefer("left")
        with pytest.raises(SessionStateError, match="before the first comparison"):
            session.add_words("gull")
    with pytest.raises(ConfigError):
        Session.start(agents, "bird", CONFIG).add_words("")
