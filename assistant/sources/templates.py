"""Templates that turn crowd tags into questions ("international roaming" -> "Is it about international roaming?").

A ``TemplateSet`` is an ordered list of rules; the first rule whose regular expression matches the raw tag
and that has a template for the question's kind (binary or choice) gives the text. Named groups of the
regex become placeholders, cleaned for display ("upper_tail" -> "upper tail"); ``{tag}`` is the whole tag
cleaned the same way, ``{gerund}`` the value with its first word in -ing form ("back up" -> "backing up",
for actions: "Is it about backing up?" reads as English whether or not the verb takes an object). Rule sets are JSON files (see assistant/sources/templates/) so that experts can change
the wording without touching code.
"""

from __future__ import annotations

import json
import re
import string
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import regex

from assistant.errors import ConfigError
from assistant.text.lemmas import inflect


def display_text(raw: str) -> str:
    """Make a tag fragment readable: underscores to spaces, '::' to ': ', whitespace collapsed."""
    text = raw.replace("::", ": ").replace("_", " ")
    return re.sub(r"\s+", " ", text).strip()


MAX_TEMPLATE_BYTES = 1024 * 1024
# A user's regex runs at most this long per tag: a pattern such as (a|aa)+$ backtracks for minutes on a
# longer tag. The `regex` module enforces it (the standard `re` cannot be interrupted).
MATCH_TIMEOUT_SECONDS = 0.25
_FORMATTER = string.Formatter()


@dataclass(frozen=True)
class TemplateRule:
    pattern: regex.Pattern[str]
    binary: str | None = None
    choice: str | None = None


def _check_template(template: object, pattern: regex.Pattern[str], where: str) -> str | None:
    """``template`` if it is a usable format string whose placeholders the rule provides, else ConfigError."""
    if template is None:
        return None
    if not isinstance(template, str):
        raise ConfigError(f"{where}: a template must be a string, got {type(template).__name__}")
    provided = {*pattern.groupindex, "tag", "value", "gerund"}
    try:
        fields = [(name, spec, conv) for _, name, spec, conv in _FORMATTER.parse(template) if name is not None]
    except ValueError as exc:
        raise ConfigError(f"{where}: bad template {template!r} ({exc}); write placeholders as {{tag}}") from exc
    for name, spec, conversion in fields:
        if name not in provided:
            raise ConfigError(
                f"{where}: template {template!r} uses {{{name}}}, which the rule does not provide: use {{tag}}, "
                f"{{value}} or a named group of the regex ({', '.join(sorted(provided))})"
            )
        if any(len(digits) > 3 for digits in re.findall(r"\d+", spec or "")):
            raise ConfigError(f"{where}: the format {spec!r} in template {template!r} is too wide (at most 999)")
        try:
            _FORMATTER.format_field(_FORMATTER.convert_field("x", conversion), spec or "")
        except (ValueError, TypeError) as exc:
            raise ConfigError(f"{where}: bad format in template {template!r} ({exc})") from exc
    return template


def gerund(phrase: str) -> str:
    """The phrase with its first word in -ing form: "back up" -> "backing up"."""
    first, _, rest = phrase.partition(" ")
    return " ".join(w for w in (inflect(first, "VBG"), rest) if w)


class TemplateSet:
    """Ordered tag -> question rules. See the module docstring."""

    def __init__(self, rules: list[TemplateRule], name: str = "custom") -> None:
        if not rules:
            raise ConfigError(f"template set {name!r} has no rules: add at least one rule with 'match'")
        self.rules = rules
        self.name = name

    @classmethod
    def from_dict(cls, data: dict, name: str = "custom") -> TemplateSet:
        if not isinstance(data, dict) or not isinstance(data.get("rules"), list):
            raise ConfigError(f"template set {name!r}: expected a JSON object with a 'rules' list")
        rules = []
        for i, item in enumerate(data["rules"], start=1):
            where = f"template set {name!r}, rule {i}"
            if not isinstance(item, dict) or not isinstance(item.get("match"), str):
                raise ConfigError(f"{where}: each rule needs a 'match' regular expression (a string)")
            if not item.get("binary") and not item.get("choice"):
                raise ConfigError(f"{where}: give a 'binary' or a 'choice' template")
            try:
                pattern = regex.compile(item["match"])
            except (regex.error, ValueError, OverflowError, RecursionError) as exc:
                raise ConfigError(f"{where}: bad regular expression: {exc}") from exc
            binary = _check_template(item.get("binary"), pattern, where)
            choice = _check_template(item.get("choice"), pattern, where)
            rules.append(TemplateRule(pattern, binary, choice))
        return cls(rules, name)

    @classmethod
    def load(cls, path: str | Path) -> TemplateSet:
        """Read a template set from a JSON file."""
        path = Path(path)
        try:
            if path.exists() and not path.is_file():
                raise ConfigError(f"template file {path} is not a regular file: give the path of a JSON template set")
            if path.stat().st_size > MAX_TEMPLATE_BYTES:
                raise ConfigError(f"template file {path} is larger than 1 MiB: that is not a template set")
            data = json.loads(path.read_bytes().decode("utf-8-sig"))
        except ConfigError:
            raise
        except FileNotFoundError as exc:
            raise ConfigError(f"template file {path} does not exist: give the path of a JSON template set") from exc
        except OSError as exc:
            raise ConfigError(f"cannot read the template file {path}: {exc.strerror or exc}") from exc
        except UnicodeDecodeError as exc:
            raise ConfigError(f"template file {path} is not UTF-8 text: save it as UTF-8") from exc
        except json.JSONDecodeError as exc:
            raise ConfigError(f"template file {path} is not valid JSON: {exc}") from exc
        except (ValueError, RecursionError) as exc:  # an integer of more than 4,300 digits, deep nesting
            raise ConfigError(f"template file {path} is not a template set ({str(exc).split(':')[0]})") from exc
        return cls.from_dict(data, path.stem)

    @classmethod
    def builtin(cls, name: str = "default") -> TemplateSet:
        """One of the template sets shipped in assistant/sources/templates/ ('default', 'birds')."""
        resource = resources.files("assistant.sources") / "templates" / f"{name}.json"
        if not resource.is_file():
            raise ConfigError(f"no built-in template set {name!r}: use 'default' or 'birds', or a JSON file")
        return cls.from_dict(json.loads(resource.read_text(encoding="utf-8")), name)

    def question_text(self, tag: str, kind: str) -> str:
        """The question for ``tag`` of ``kind`` ('binary' or 'choice')."""
        for rule in self.rules:
            template = rule.binary if kind == "binary" else rule.choice
            if template is None:
                continue
            try:
                match = rule.pattern.search(tag, timeout=MATCH_TIMEOUT_SECONDS)
            except TimeoutError as exc:
                raise ConfigError(
                    f"the regular expression {rule.pattern.pattern!r} of template set {self.name!r} took more than "
                    f"{MATCH_TIMEOUT_SECONDS} s on tag {tag[:60]!r} (it backtracks): simplify it"
                ) from exc
            if match is None:
                continue
            fields = {k: display_text(v) for k, v in match.groupdict().items() if v is not None}
            fields.setdefault("value", display_text(tag))
            fields["tag"] = display_text(tag)
            fields["gerund"] = gerund(fields["value"])
            try:
                text = template.format(**fields)
            except (KeyError, IndexError, ValueError, TypeError) as exc:  # checked at load; kept as a guard
                raise ConfigError(f"template {template!r} of set {self.name!r} cannot be filled in: {exc}") from exc
            return text[:1].upper() + text[1:]
        raise ConfigError(
            f"no {kind} template in set {self.name!r} matches tag {tag!r}: add a catch-all rule such as "
            '{"match": ".*", "binary": "Is it about {tag}?"}'
        )
