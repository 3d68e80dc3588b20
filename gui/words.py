"""The words a person reads for the engine's internal names, in one place.

The engine names things for code and logs (``gppl``, ``imp``, ``fixed_turns``, ``lexrank``, ``no_pair_left``);
every page shows them through the tables and functions here instead. Each table maps a name to a short label
for buttons, combos and table cells; ``*_TIPS`` say what the choice means, for tooltips.
``INTERNAL_NAMES`` lists the names that must never reach the screen as they are (a test walks the pages for
them). Nothing here decides anything.
"""

from __future__ import annotations

from assistant.app.session.phases import AnswerKind, ProposalReason, SessionStatus, StopReason
from assistant.progress import eta_text

# the bundled domains as the domain picker's tooltips say them (the registry's descriptions are for the Lab)
BUNDLED_DOMAINS = {
    "birds": "Bird species (CUB-200): 200 species, asked about by what a bird looks like",
    "faq": "Software FAQs (StackFAQ): 125 questions with their answers",
    "banking": "Banking requests (BANKING77): 77 kinds of request a bank's customers make",
    "clinc": "Requests to a voice assistant (CLINC150): 150 kinds in 10 areas, and requests it cannot help with",
}


def counted(n: int, noun: str, plural: str = "") -> str:
    """'1 question', '2 questions', '0 comparisons' (never 'question(s)')."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


def domain_words(name: str, entries: int, questions: int) -> str:
    """The status bar's line for an open domain, in desk words: 'library: 25 entries, 40 questions'."""
    return f"{name}: {counted(entries, 'entry', 'entries')}, {counted(questions, 'question')}"


# What an induced question's tag ("action::delete", "object::account", "action@Gmail") is about, in words.
_TAG_KINDS = {"product": "product", "action": "to do", "object": "about", "attribute": "detail"}
_FACETS = {
    "product": "which product",
    "action": "what they want to do",
    "object": "what it is about",
    "attribute": "which detail",
    "category": "which topic",
}


def tag_words(tag: str) -> str:
    """A question's tag as a desk person reads it: 'about: account' for 'object::account', 'what they want to do
    in Gmail' for 'action@Gmail', 'has bill shape: curved' for a bird's 'has_bill_shape::curved'."""
    kind, sep, value = tag.partition("::")
    if sep:
        return f"{_TAG_KINDS.get(kind, kind.replace('_', ' '))}: {value.replace('_', ' ')}"
    kind, sep, group = tag.partition("@")
    if sep and kind in _FACETS:
        return f"{_FACETS[kind]} in {group}"
    return _FACETS.get(tag, tag.replace("_", " "))


# ---- the conversation ----------------------------------------------------------------------------------
STOP_REASONS = {
    StopReason.CONFIDENT: "I think I know enough",
    StopReason.NO_INFORMATIVE_QUESTION: "no question I have would tell these apart",
    StopReason.NO_QUESTION: "I have no questions left",
    StopReason.USER: "you asked for the shortlist",
    StopReason.MAX_TURNS: "that was my last question",
    StopReason.OUT_OF_SCOPE: "nothing here seems to fit",
    StopReason.CLOSEST: "you asked for the closest answers",
}
# Why an answer is proposed (the ranker's stop reason, or the person's own "done": StopReason.USER). Keyed by
# the values of assistant.ranking.oracle.RankingStopReason (a test holds that every one has words): importing
# the ranking package (scipy) would cost the window's start a third of a second.
DECIDED_REASONS = {
    "confident": "Clarify is sure enough of this answer",
    "budget": "That was the last comparison",
    "no_pair_left": "Every pair has been compared",
    "single_candidate": "The one answer left to compare",
    "one_left": "You ruled out the others",
    "all_ruled_out": "You ruled out every answer",
}
ANSWER_KINDS = {
    AnswerKind.OPTION: "an answer",
    AnswerKind.PROBABLY: "probably",
    AnswerKind.NOT_SURE: "not sure",
    AnswerKind.NOT_VISIBLE: "not visible",
}


def stop_words(reason: str | None) -> str:
    """Why the questions stopped, as Clarify says it in the conversation."""
    try:
        return STOP_REASONS[StopReason(reason or "")]
    except (ValueError, KeyError):
        return "I stopped asking"


def decided_words(reason: str | None) -> str:
    """Why an answer is proposed, for a person."""
    if reason == ProposalReason.USER:
        return "You are done comparing"
    if reason == ProposalReason.BEST_ANSWER:
        return "The answer that fits your question best"
    from assistant.app.session.session import RankingStopReason  # loaded by now: a proposal needs a session

    try:
        return DECIDED_REASONS[RankingStopReason(reason or "")]
    except (ValueError, KeyError):
        return "The comparisons are done"


def status_words(status: str) -> str:
    """A saved session's status ("answered", "nothing fits", ...)."""
    try:
        return SessionStatus(status).words
    except ValueError:
        return "unknown"


# ---- session settings -------------------------------------------------------------------------------------
PACE_DEFAULT = "domain default"  # what the settings store for "the domain's own pace"
PACES = {
    PACE_DEFAULT: "The domain's own pace",
    "quick": "Quick: fewer questions",
    "thorough": "Thorough: more questions when they help",
}
PACE_TIPS = {
    PACE_DEFAULT: "The pace chosen for this domain on its development questions",
    # a pace is its cost per question alone (assistant.clarification.stopping.PACE_TURN_REWARD): no cap on the count
    "quick": "Asks a question only when it is likely to change the answer; the comparisons then do more of the work",
    "thorough": "Keeps asking while a question still helps, even a little",
}
CANDIDATES = {"all": "Every answer", "captioned": "Only answers with example questions"}
CANDIDATE_TIPS = {
    "all": "Clarify may propose any answer of the domain",
    "captioned": "Clarify only proposes answers for which people wrote example questions",
}

# ---- the pairwise ranker (Settings, the Lab's ranking evaluation) -------------------------------------------
RANKING_MODELS = {
    "gppl": "Gaussian process (GPPL)",
    "bt": "Bradley–Terry",
    "mcd": "Neural net, MC dropout",
    "deep": "Neural net",
    "swag": "Neural net, SWAG",
    "pairwisegp": "BoTorch pairwise GP",
    "prior": "No comparisons (prior only)",
}
RANKING_MODEL_TIPS = {
    "gppl": "Gaussian-process preference learning: knows how sure it is of every answer's score (Clarify's default)",
    "bt": "Bradley–Terry: one score per answer, fitted to the comparisons, without a measure of doubt",
    "mcd": "A neural ranker whose doubt comes from Monte Carlo dropout",
    "deep": "A neural ranker, one score per answer (no measure of doubt)",
    "swag": "A neural ranker whose doubt comes from stochastic weight averaging (SWAG)",
    "pairwisegp": "BoTorch's PairwiseGP, for comparison with a published implementation",
}
PAIR_CHOICES = {
    "imp": "Expected improvement",
    "tp": "Thompson sampling",
    "eig": "Information gain",
    "unpa": "Most uncertain pair",
    "unc": "Closest scores",
    "random": "Random pairs",
    "eubo": "BoTorch: best-option utility",
    "botorch_ei": "BoTorch: expected improvement",
    "none": "—",
}
PAIR_CHOICE_TIPS = {
    "imp": "The current best against the answer most likely to beat it by the most (IMP)",
    "tp": "A random draw from Clarify's belief picks one answer, information gain its partner (TP)",
    "eig": "The pair whose outcome would teach Clarify the most (EIG)",
    "unpa": "The pair whose outcome Clarify can least predict (UNPA)",
    "unc": "The two answers with the closest scores (UNC; for models without a measure of doubt)",
    "random": "A random pair not compared before",
    "eubo": "BoTorch's expected utility of the best option (EUBO)",
    "botorch_ei": "BoTorch's expected improvement over the current best",
}


def ranking_words(model: str | None, strategy: str | None) -> str:
    """A ranker with its way of choosing pairs, e.g. "Gaussian process (GPPL), expected improvement"."""
    ranker = RANKING_MODELS.get(model or "", model or "")
    if strategy in (None, "", "none"):
        return ranker
    return f"{ranker}, {PAIR_CHOICES.get(strategy, strategy).lower()}"


# ---- the Lab's clarifier evaluation and training ----------------------------------------------------------
SYSTEMS = {
    "ours": "Clarify (learned stop)",
    "threshold": "Stop at a tuned probability",
    "fixed_turns": "Always the same number of questions",
    "lambda_1": "Crowd answers only (λ = 1)",
    "static_ig": "Questions blind to the query",
    "random": "Random questions",
    "no_interaction_neural": "No questions: text model",
    "no_interaction_bm25": "No questions: BM25 search",
    "ig": "Best questions, fixed number",
}
SYSTEM_TIPS = {
    "ours": "The most informative questions; a learned policy decides when to stop",
    "threshold": "The same questions; stops when the top answer reaches a probability tuned on dev questions",
    "fixed_turns": "The same questions, always k of them (one row per k)",
    "lambda_1": "Like Clarify, but trusting only the crowd's answers to the questions (λ = 1)",
    "static_ig": "Questions chosen without looking at the person's words; the learned policy stops",
    "random": "Random questions; the learned policy stops",
    "no_interaction_neural": "The text model's first guess, without any question",
    "no_interaction_bm25": "A BM25 keyword search's first guess, without any question",
}
VARIANTS = {"learned": "Learned answer model", "lambda_1": "Crowd answers only (λ = 1)"}
QUERY_SETS = {"crowd": "The crowd's questions", "vague": "Vague versions of them"}
METRICS = {
    "reward": "reward",
    "accuracy": "accuracy",
    "turns": "questions",
    "lambda": "λ (trust in the text)",
    "loss": "loss",
    "dev_acc1": "dev Acc@1",
    "dev_acc3": "dev Acc@3",
    "dev_acc1_seen": "dev Acc@1 (seen labels)",
    "dev_mrr": "dev MRR",
}


def system_words(row: dict) -> str:
    """An evaluation row's system, with its number of questions where it has one."""
    name = SYSTEMS.get(row["system"], row["system"])
    turns = row.get("turns")
    if row["system"] == "fixed_turns" and turns not in (None, ""):
        return f"Always {turns} question{'s' if int(turns) != 1 else ''}"
    return name


# ---- summaries ------------------------------------------------------------------------------------------------
SUMMARY_MAKERS = {
    "lead": "the opening sentences",
    "mmr": "relevant sentences that do not repeat",
    "lexrank": "the most central sentences",
    "textrank": "central sentences (by links)",
    "random": "a sample of the documents' sentences",
}
SUMMARY_SESSIONS = {"summary": "comparing summaries", "sentences": "sentence by sentence"}
# where a summary session's texts came from, by the engine's name of them (``assistant.summarization``)
SUMMARY_SOURCES = {"faq-answers": "A FAQ's answers", "pasted": "Pasted texts"}


def cluster_words(name: str) -> str:
    """A bundled document set as a person reads it: "opinosis/battery-life_amazon_kindle" is "Reviews: battery
    life, amazon kindle", "multiling/M000" is "News articles (MultiLing set M000)". (Where the aspect ends
    and the product begins is not marked in every name: "gas_mileage_toyota_camry_2007".)"""
    source, _, rest = name.partition("/")
    if source == "opinosis" and rest:
        aspect, _, product = rest.partition("_")
        words = f"{aspect.replace('-', ' ')}, {product.replace('_', ' ')}" if product else aspect.replace("-", " ")
        return f"Reviews: {words}"
    if source == "multiling" and rest:
        return f"News articles (MultiLing set {rest})"
    return name


def summary_title(title: str, clusters: list[str] | tuple[str, ...]) -> str:
    """A saved summary session's title, with a bundled set's name in words ("<set>: <set's topic>" becomes the
    set's words alone)."""
    head, _, rest = title.partition(": ")
    if head in SUMMARY_SOURCES:  # the engine's name of where the texts came from ("faq-answers")
        return f"{SUMMARY_SOURCES[head]}: {rest}" if rest else SUMMARY_SOURCES[head]
    return cluster_words(head) if head in clusters else title


def summary_maker(kind: str) -> str:
    """How a candidate summary was made, in a few words."""
    return SUMMARY_MAKERS.get(kind, "a generated summary")


# ---- names that must never reach the screen ------------------------------------------------------------------
# Names that are no English a person would use (the pages test looks for them as whole words). Ordinary words
# that are also names ("random", "lead", "all", "confident") are not listed.
_CODE_LIKE = {
    "gppl",
    "bt",
    "mcd",
    "swag",
    "pairwisegp",
    "imp",
    "tp",
    "eig",
    "unpa",
    "unc",
    "eubo",
    "lexrank",
    "textrank",
}
INTERNAL_NAMES = (
    frozenset(
        name
        for table in (RANKING_MODELS, PAIR_CHOICES, SYSTEMS, VARIANTS, METRICS, SUMMARY_MAKERS)
        for name in table
        if "_" in name or name in _CODE_LIKE
    )
    | frozenset(str(member) for enum in (StopReason, SessionStatus, AnswerKind) for member in enum if "_" in member)
    | frozenset(reason for reason in DECIDED_REASONS if "_" in reason)
)


# ---- a desk's own FAQ: getting it ready, in a desk person's words -----------------------------------------
# The engine's stage labels (cold start, model updates) and what a desk person reads for them; the first
# that the message contains wins. The engine's wording (priors, policies, losses) is for logs and the Lab.
DESK_STAGES = (
    ("waiting for another Clarify", "Waiting for another Clarify window that is getting ready"),
    ("compiled op", "Getting ready (once)"),
    ("release models", "Installing the ready-made models"),
    ("embedding the answers", "Reading the answers"),
    ("inducing questions", "Finding questions to ask about your entries"),
    ("writing", "Writing your entries"),
    ("reading", "Reading the FAQ"),
    ("MiniLM", "Learning to read questions the way people write them"),
    ("SRU", "Trying a second way of reading questions (kept only if it does better)"),
    ("stop policy", "Learning when to stop asking and show the answers"),
    ("coverage", "Learning how sure to be before showing answers, and when a question is not for this desk"),
    ("done in", "Ready"),
    ("text encoder", "Getting ready (once)"),
    ("older than the data", "Learning from what changed"),
    ("stale", "Learning from what changed"),
    ("encoder", "Learning to read questions the way people write them"),
    ("policy", "Learning when to stop asking and show the answers"),
    ("building", "Reading the data (once)"),
    ("loading", "Loading"),
)


def desk_progress(message: str, seconds_left: float | None = None) -> str:
    """A progress message of getting a desk ready, in its person's words, with the time left where the job's
    one ETA (``assistant.progress.Eta``) knows it."""
    words = next((text for key, text in DESK_STAGES if key.casefold() in message.casefold()), "Getting ready")
    if words == "Ready":
        return words
    return f"{words}… ({eta_text(seconds_left)})" if seconds_left is not None else f"{words}…"


# what each part of an entry was read as (``ParsedFaq.columns``' keys), for "the titles from “name”"
_FAQ_PARTS = {
    "title": "titles",
    "key": "keys",
    "description": "descriptions",
    "answers": "answers",
    "category": "categories",
}


def faq_read_words(parsed) -> str:
    """What a FAQ's preview read, in a desk person's words: '43 entries (the titles from “name”, the answers from
    “answer”)' (``ParsedFaq.describe`` writes "title <- 'name'" for the command line)."""
    parts = [counted(len(parsed.entries), "entry", "entries")]
    if parsed.categories:
        parts.append(counted(len(parsed.categories), "category", "categories"))
    several = sum(len(e.answers) > 1 for e in parsed.entries)
    if several:
        parts.append(f"{several} with several answers")
    read = [f"the {_FAQ_PARTS.get(what, what)} from “{name}”" for what, name in parsed.columns.items()]
    return ", ".join(parts) + (f" ({', '.join(read)})" if read else "")


def readiness_words(figures: dict) -> str:
    """How well a new desk is likely to do and what would make it better (``cold_start.readiness``), as HTML."""
    from html import escape

    parts = []
    acc1, acc3 = figures.get("acc1"), figures.get("acc3")
    if acc1 is not None:
        first = round(10 * float(acc1))
        three = f", and among its first three answers about {round(10 * float(acc3))} in 10" if acc3 is not None else ""
        parts.append(
            f"<p><b>How well it is likely to do:</b> on questions made up from your entries it shows the right "
            f"entry first about {first} times in 10{three}. People's own questions are often vaguer: it then "
            "asks a question or two first.</p>"
        )
    better = []
    missing = int(figures.get("without_description") or 0)
    if missing:
        better.append(
            f"write a description (how a person would put the problem, e.g. “I forgot my password”) for the "
            f"{counted(missing, 'entry', 'entries')} that have none"
        )
    inbox = int(figures.get("inbox") or 0)
    better.append(
        f"resolve the {counted(inbox, 'question')} waiting in the inbox (File > Inbox)"
        if inbox
        else "resolve the questions it could not answer: they wait in File > Inbox"
    )
    better.append("every answer people accept teaches it too")
    parts.append("<p><b>What would make it better:</b> " + escape("; ".join(better)) + ".</p>")
    return "".join(parts)
