"""Where Clarify keeps its data: one folder, overridable with the environment variable CLARIFY_HOME.

Layout under the home folder::

    domains/<name>.db            the knowledge base of a domain (SQLite)
    domains/<name>.db.bak-v<N>   a copy taken before migrating from schema version N
    models/<name>/...            checkpoints (state_dict + JSON sidecar) trained for the domain
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import platformdirs

from assistant.errors import ConfigError

APP_NAME = "clarify"
_DOMAIN_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,63}$")


# <repository>/../shared/data holds the evaluation-only data sets on a development machine
REPO_ROOT = Path(__file__).resolve().parents[1]


def shared_data_dir(explicit: str | Path | None = None) -> Path:
    """The folder of the evaluation-only data sets: ``explicit``, else $CLARIFY_SHARED_DATA, else
    <repository>/../shared/data."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("CLARIFY_SHARED_DATA")
    if env:
        return Path(env).expanduser()
    return REPO_ROOT.parent / "shared" / "data"


def home() -> Path:
    """The data folder: $CLARIFY_HOME if set, else the platform's user data dir for Clarify."""
    override = os.environ.get("CLARIFY_HOME")
    root = Path(override).expanduser() if override else Path(platformdirs.user_data_dir(APP_NAME))
    root.mkdir(parents=True, exist_ok=True)
    return root


def check_domain_name(name: str) -> str:
    """Return ``name`` if it is a valid domain name, else raise ConfigError saying what is allowed."""
    if not isinstance(name, str) or not _DOMAIN_NAME.match(name):
        raise ConfigError(
            f"invalid domain name {name!r}: use 1-64 characters, lowercase letters, digits, '_' or '-', "
            "starting with a letter (e.g. 'faq' or 'my_helpdesk')"
        )
    return name


def domains_dir() -> Path:
    path = home() / "domains"
    path.mkdir(parents=True, exist_ok=True)
    return path


def domain_db_path(name: str) -> Path:
    return domains_dir() / f"{check_domain_name(name)}.db"


def models_dir(name: str) -> Path:
    path = home() / "models" / check_domain_name(name)
    path.mkdir(parents=True, exist_ok=True)
    return path
