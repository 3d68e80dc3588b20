"""Release models: the trained models of a bundled domain, shipped with Clarify so that a first launch needs
no training.

``make release-models`` trains them from fixed seeds in a fresh CLARIFY_HOME (``release_job``) and copies
what ``prepare`` wrote under ``models/<domain>/`` into ``assistant/release/<domain>/`` with a manifest: the
code version, the seed, the settings of every model (``model_settings``) and the fingerprint of the
knowledge base they were trained on (``domain_fingerprint``). ``prepare`` installs them (``install_release``)
when a home lacks models and both the fingerprint and the settings match (``check_release``); otherwise it
trains as before (imported crowd data, changed settings).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from collections.abc import Collection
from dataclasses import asdict
from functools import partial
from pathlib import Path

from assistant import paths
from assistant.app.lifecycle.registry import (
    COVERAGE_GRID,
    POLICY_FORMAT,
    PROTOCOL_SEED,
    SMOOTHING,
    VARIANTS,
    ModelRegistry,
)
from assistant.app.lifecycle.training_jobs import COVERAGE_EPISODES, POLICY_EPISODES, SHORTLIST_SIZE, pace_config
from assistant.errors import ConfigError
from assistant.store import Domain
from models.checkpoint import clarify_version, data_hash, read_json, read_sidecar, write_json_atomic
from models.files import atomic_write

# assistant/release/<domain>/: package data (pyproject.toml), not a Python package.
RELEASE_DIR = paths.RELEASE_DIR
MANIFEST = "manifest.json"
RELEASE_SEED = 0
# What prepare writes that a conversation needs, and the MiniLM vectors of the answer texts (a cache keyed by
# text: the first window would otherwise spend about a minute embedding them on a loaded two-core machine).
RELEASE_FILES = (
    "encoder.pt",
    "encoder.json",
    "encoder-side.npz",
    "prior.json",
    "stop.json",
    "policy-*.pt",
    "policy-*.json",
    "text-embeddings.npz",
)


def domain_fingerprint(domain: Domain, seed: int = PROTOCOL_SEED) -> str:
    """What the models of a domain were trained on: its labels (with their texts), questions, annotation
    counts, queries, out-of-scope queries (the out-of-scope hypothesis is tuned on them), the simulator's held-out
    answers and the protocol seed. Equal fingerprints, same data."""
    heldout = domain.heldout_answers if domain.heldout_answers is not None else "none"
    parts = [domain.labels, domain.questions, domain.counts, domain.query_texts, domain.query_labels]
    out_of_scope = [domain.out_of_scope_texts, domain.out_of_scope_splits.astype(str)]
    return data_hash(
        [*parts, domain.query_splits.astype(str), *out_of_scope, heldout, domain.supports_not_visible, seed]
    )


def model_settings(registry: ModelRegistry) -> dict:
    """The code's settings of every model ``prepare`` trains for ``registry``'s domain, as JSON values."""
    from assistant.training.encoder import EncoderTrainConfig
    from models.sru_encoder import resolve_vectors

    encoder = EncoderTrainConfig()
    encoder_dict = encoder.to_dict()
    encoder_dict["model"]["vectors"] = resolve_vectors(encoder.model.vectors)
    policies = {}
    for _, variant, pace in registry.required_policies():
        config = asdict(pace_config(pace))
        if variant == "lambda_1":
            config.update(initial_lambda=1.0, learn_answer_model=False)
        policies[f"{variant}-{pace}"] = config
    settings = {
        "encoder": encoder_dict,
        "policy_format": POLICY_FORMAT,
        "policy_episodes": POLICY_EPISODES,
        "policies": dict(sorted(policies.items())),
        "coverage": {"grid": COVERAGE_GRID, "shortlist_size": SHORTLIST_SIZE, "episodes": COVERAGE_EPISODES},
        "protocol_seed": PROTOCOL_SEED,
        "smoothing": SMOOTHING,
        "variants": VARIANTS,
    }
    return json.loads(json.dumps(settings))  # tuples become lists, as in the manifest


def read_manifest(name: str, release_dir: Path = RELEASE_DIR) -> dict | None:
    path = release_dir / name / MANIFEST
    return json.loads(path.read_text()) if path.is_file() else None


def check_release(registry: ModelRegistry, release_dir: Path = RELEASE_DIR) -> tuple[bool, str]:
    """(usable, why): whether the release models of ``registry``'s domain fit its knowledge base and the
    code's settings, and can go into a home that lacks models. ``why`` says what differs (empty if there
    is no release for the domain)."""
    manifest = read_manifest(registry.name, release_dir)
    if manifest is None or registry.text_prior != "sru":
        return False, ""
    if manifest["fingerprint"] != domain_fingerprint(registry.domain, registry.protocol_seed):
        return False, "the knowledge base differs from the release's"
    if manifest["settings"] != model_settings(registry):
        return False, "the model settings differ from the release's"
    home_encoder = read_sidecar(paths.models_dir(registry.name) / "encoder")
    if home_encoder is not None and _encoder_identity(home_encoder) != manifest["encoder"]:
        return False, "this home has its own encoder"
    return True, "using the release models shipped with Clarify"


def _encoder_identity(sidecar: dict) -> str:
    return f"{sidecar.get('data_hash', '')}@{sidecar.get('created_at', '')}"


def install_release(name: str, release_dir: Path = RELEASE_DIR, replace: Collection[str] = ()) -> list[str]:
    """Copy the release models of ``name`` into the home's models folder (call ``check_release`` first):
    files the home lacks, and the models named in ``replace`` ('encoder', 'policy-all-learned-quick': the
    ones the registry found damaged or unusable, .pt and .json); a home's coverage settings are merged with
    the release's. Returns the file names."""
    source, target = release_dir / name, paths.models_dir(name)
    target.mkdir(parents=True, exist_ok=True)
    copied = []
    for path in sorted(p for pattern in RELEASE_FILES for p in source.glob(pattern)):
        into = target / path.name
        if path.name == "stop.json" and into.is_file():
            merged = {**json.loads(path.read_text()), **(read_json(into) or {})}  # damaged: the release's stand
            write_json_atomic(into, merged)
        elif not into.exists() or path.stem.removesuffix("-side") in replace:  # the encoder's side file with it
            # through a temporary file: a kill mid-copy leaves the old file or the whole new one
            atomic_write(into, partial(shutil.copyfile, path))
        else:
            continue
        copied.append(path.name)
    return copied


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# The files that hold weights (the JSON files hold the time of training besides the settings).
WEIGHT_SUFFIXES = (".pt", ".npz")


def compare_releases(name: str, one: Path, other: Path) -> list[str]:
    """The weight files (.pt, .npz) of domain ``name`` that differ between two release folders (or that only one
    of them has): empty when the two builds gave identical weights."""
    files = {}
    for folder in (one, other):
        manifest = read_manifest(name, folder) or {"files": {}}
        files[folder] = {k: v["sha256"] for k, v in manifest["files"].items() if k.endswith(WEIGHT_SUFFIXES)}
    names = sorted(set(files[one]) | set(files[other]))
    return [f for f in names if files[one].get(f) != files[other].get(f)]


def _code_version() -> str:
    """The package version and, in a git checkout, the commit the release was trained from."""
    try:
        commit = subprocess.run(
            ["git", "-C", str(paths.REPO_ROOT), "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    return f"{clarify_version()}+{commit}"


def write_release(name: str, release_dir: Path, trained: list[str], seconds: float) -> dict:
    """Copy the models of ``name`` that the home holds (trained from ``RELEASE_SEED``: ``release_job``) into
    ``release_dir/name`` with their manifest; returns the manifest."""
    registry = ModelRegistry(name)
    if registry.missing():
        raise ConfigError(f"release models of {name}: {', '.join(registry.missing())} still missing after training")
    out = release_dir / name
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    source = paths.models_dir(name)
    files = sorted(p for pattern in RELEASE_FILES for p in source.glob(pattern))
    for path in files:
        shutil.copyfile(path, out / path.name)
    manifest = {
        "domain": name,
        "code_version": _code_version(),
        "seed": RELEASE_SEED,
        "fingerprint": domain_fingerprint(registry.domain, registry.protocol_seed),
        "encoder": _encoder_identity(read_sidecar(source / "encoder") or {}),
        "trained": trained,
        "training_seconds": round(seconds, 1),
        "settings": model_settings(registry),
        "files": {p.name: {"bytes": p.stat().st_size, "sha256": _sha256(p)} for p in files},
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest
