"""Which text prior a domain uses when nobody says: the cold start of a desk's FAQ (assistant.app.desk.cold_start)
chooses one on held-out synthesized queries and saves it here, in the domain's model folder; the registry
serves it (a bundled domain has no choice saved: the SRU encoder)."""

from __future__ import annotations

from assistant import paths
from models.checkpoint import read_json, write_json_atomic

TEXT_PRIOR_CHOICE = "text-prior.json"
KNOWN = ("sru", "minilm")


def chosen_text_prior(domain_name: str) -> str | None:
    """The text prior `clarify prepare` chose for the domain, if any."""
    saved = read_json(paths.models_dir(domain_name) / TEXT_PRIOR_CHOICE) or {}
    prior = saved.get("text_prior") if isinstance(saved, dict) else None
    return prior if prior in KNOWN else None


def save_text_prior_choice(domain_name: str, text_prior: str, details: dict) -> None:
    """Save the chosen text prior with why (``details``: the held-out figures)."""
    write_json_atomic(paths.models_dir(domain_name) / TEXT_PRIOR_CHOICE, {"text_prior": text_prior, **details})
