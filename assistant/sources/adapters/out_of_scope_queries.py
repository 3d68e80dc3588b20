"""Out-of-scope queries for faq and banking, taken from the other bundled data sets (issue 17).

Neither StackFAQ nor BANKING77 has queries that none of its labels answers, so a domain's out-of-scope set is
drawn from what people ask elsewhere, in equal parts from three sources:

- the other domain's queries (banking for faq, faq for banking),
- CLINC150's in-scope queries (a virtual assistant's requests: timers, recipes, travel, small talk, ...),
- CLINC150's own out-of-scope queries.

A split's source split is the same kind: dev from the sources' train and dev (val) queries, test from their
test queries, so tuning (dev) never sees a test text. Each split gets ``OUT_OF_SCOPE_SHARE`` times as many
out-of-scope queries as it has in-scope ones (CLINC150's test split has 1,000 out-of-scope queries beside 4,500,
about a quarter), at least ``MIN_PER_SPLIT``, drawn with a fixed seed so that builds are stable. No train queries are drawn: only the
out-of-scope tuning (dev) and evaluation (test) use them.

What is left out, because the domain could answer it (a judgement, written down here so that it can be
argued with): for banking, CLINC150's banking and credit-card areas and its exchange-rate, direct-deposit and
travel-notification intents, and CLINC150 out-of-scope queries that name money matters (``BANKING_WORDS``);
for faq, CLINC150's intents that a web-service FAQ could cover (calendar, meetings, maps, translation,
location, texting) and any query naming one of the FAQ's services (``FAQ_SERVICES``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

import numpy as np

from assistant.errors import ConfigError
from assistant.store import DomainData

OUT_OF_SCOPE_SHARE = 0.25
MIN_PER_SPLIT = 150  # faq's dev split has 125 in-scope queries: a quarter of that is too few to tune on
SEED = 17
SOURCE_SPLITS = {"dev": ("train", "dev"), "test": ("test",)}

BANKING_CLINC_AREAS = frozenset({"banking", "credit_cards"})
BANKING_CLINC_INTENTS = frozenset({"exchange_rate", "direct_deposit", "travel_notification"})
BANKING_WORDS = re.compile(
    r"\b(bank|banks|card|cards|account|accounts|money|transfer|pay|paid|payment|cash|atm|pin|loan|deposit|"
    r"refund|fee|fees|charge|charged|currency|exchange|balance|top.?up|wallet|transaction|checking|savings)\b",
    re.IGNORECASE,
)
FAQ_CLINC_INTENTS = frozenset(
    {
        "calendar",
        "calendar_update",
        "meeting_schedule",
        "schedule_meeting",
        "distance",
        "directions",
        "current_location",
        "share_location",
        "translate",
        "text",
    }
)
FAQ_SERVICES = re.compile(
    r"\b(g-?mail|google|facebook|fb|youtube|twitter|tweets?|dropbox|trello|github|quora|vimeo|hangouts?|"
    r"wolfram|e-?mails?|inbox|docs|spreadsheets?|drive)\b",
    re.IGNORECASE,
)

# (text, split) rows of one source
Rows = list[tuple[str, str]]


def _clinc_in_scope(keep_intent: Callable[[str, str], bool]) -> Rows:
    import assistant.sources.adapters.clinc150 as clinc150

    area_of = clinc150.read_areas()
    queries, _texts, _oos = clinc150.read_queries(area_of)
    return [(text, split) for intent, text, split in queries if keep_intent(intent, area_of[intent])]


def _clinc_out_of_scope() -> Rows:
    import assistant.sources.adapters.clinc150 as clinc150

    return clinc150.read_queries(clinc150.read_areas())[2]


def _banking_rows() -> Rows:
    import assistant.sources.adapters.banking77 as banking77

    return [(text, split) for _key, text, split in banking77.read_queries()[1]]


def _faq_rows() -> Rows:
    import assistant.sources.adapters.stackfaq as stackfaq

    return [(text, split) for _key, text, split in stackfaq.read_threads()[1]]


def sources(domain: str) -> dict[str, Rows]:
    """The three sources of ``domain``'s out-of-scope queries, with what the domain could answer left out."""
    if domain == "faq":
        return {
            "banking": [(t, s) for t, s in _banking_rows() if not FAQ_SERVICES.search(t)],
            "clinc": _clinc_in_scope(lambda intent, _area: intent not in FAQ_CLINC_INTENTS),
            "clinc-oos": [(t, s) for t, s in _clinc_out_of_scope() if not FAQ_SERVICES.search(t)],
        }
    if domain == "banking":
        return {
            "faq": _faq_rows(),
            "clinc": _clinc_in_scope(
                lambda intent, area: area not in BANKING_CLINC_AREAS and intent not in BANKING_CLINC_INTENTS
            ),
            "clinc-oos": [(t, s) for t, s in _clinc_out_of_scope() if not BANKING_WORDS.search(t)],
        }
    raise ConfigError(f"no out-of-scope sources are defined for domain {domain!r} (faq and banking have them)")


def in_scope_counts(queries: list[tuple[str, str, str]]) -> dict[str, int]:
    """{"dev": n, "test": n}: how many labelled (label, text, split) queries each evaluated split has."""
    return {split: sum(s == split for _key, _text, s in queries) for split in SOURCE_SPLITS}


def draw_out_of_scope(
    domain: str,
    in_scope_counts: dict[str, int],
    share: float = OUT_OF_SCOPE_SHARE,
    minimum: int = MIN_PER_SPLIT,
    seed: int = SEED,
) -> list[tuple[str, str]]:
    """(text, split) out-of-scope queries for ``domain``: per split in ``in_scope_counts`` (dev, test),
    ``share`` times its in-scope count (at least ``minimum``), in equal parts from each source, without
    repeats across splits."""
    unknown = set(in_scope_counts) - set(SOURCE_SPLITS)
    if unknown:
        raise ConfigError(f"out-of-scope queries are drawn for the dev and test splits only, not {sorted(unknown)}")
    rng = np.random.default_rng(seed)
    drawn: list[tuple[str, str]] = []
    used: set[str] = set()
    for name, rows in sources(domain).items():
        for split, count in in_scope_counts.items():
            wanted = round(max(share * count, minimum) / 3)
            pool = sorted({t for t, s in rows if s in SOURCE_SPLITS[split] and t.lower() not in used})
            if len(pool) < wanted:
                raise ConfigError(f"the {name} source has {len(pool)} {split} queries, fewer than the {wanted} needed")
            for i in sorted(rng.choice(len(pool), size=wanted, replace=False).tolist()):
                used.add(pool[i].lower())
                drawn.append((pool[i], split))
    return drawn


def with_out_of_scope(domain: str, load: Callable[[], DomainData]) -> Callable[[], DomainData]:
    """``load`` (an adapter's) with ``domain``'s out-of-scope queries added to what it returns."""

    def load_with_out_of_scope() -> DomainData:
        data = load()
        return dataclasses.replace(data, out_of_scope=draw_out_of_scope(domain, in_scope_counts(data.queries)))

    return load_with_out_of_scope
