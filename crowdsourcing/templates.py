"""Templates that turn crowd tags into questions ("international roaming" -> "Is it about international roaming?").

A ``TemplateSet`` is an ordered list of rules; the first rule whose regular expression matches the raw tag
and that has a template for the question's kind (binary or choice) gives the text. Named groups of the
regex become placeholders, cleaned for display ("upper_tail" -> "upper tail"); ``{tag}`` is the whole tag
cleaned the same way. Rule sets are JSON files (see crowdsourcing/templates/) so that experts can change
the wording without touching code.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from assistant.errors import ConfigError


def display_text(raw: str) -> str:
    """Make a tag fragment readable: underscores to spaces, '::' to ': ', whitespace collapsed."""
    text = raw.replace("::", ": ").replace("_", " ")
    return re.sub(r"\s+", " ", text).strip()


@dataclass(frozen=True)
class TemplateRule:
    pattern: re.Pattern[str]
    binary: str | None = None
    choice: str | None = None


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
            if not isinstance(item, dict) or "match" not in item:
                raise ConfigError(f"template set {name!r}, rule {i}: each rule needs a 'match' regular expression")
            if not item.get("binary") and not item.get("choice"):
                raise ConfigError(f"template set {name!r}, rule {i}: give a 'binary' or a 'choice' template")
            try:
                pattern = re.compile(item["match"])
            except re.error as exc:
                raise ConfigError(f"template set {name!r}, rule {i}: bad regular expression: {exc}") from exc
            rules.append(TemplateRule(pattern, item.get("binary"), item.get("choice")))
        return cls(rules, name)

    @classmethod
    def load(cls, path: str | Path) -> TemplateSet:
        """Read a template set from a JSON file."""
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise ConfigError(f"template file {path} does not exist: give the path of a JSON template set") from exc
        except json.JSONDecodeError as exc:
            raise ConfigError(f"template file {path} is not valid JSON: {exc}") from exc
        return cls.from_dict(data, path.stem)

    @classmethod
    def builtin(cls, name: str = "default") -> TemplateSet:
        """One of the template sets shipped in crowdsourcing/templates/ ('default', 'birds')."""
        resource = resources.files("crowdsourcing") / "templates" / f"{name}.json"
        if not resource.is_file():
            raise ConfigError(f"no built-in template set {name!r}: use 'default' or 'birds', or a JSON file")
        return cls.from_dict(json.loads(resource.read_text(encoding="utf-8")), name)

    def question_text(self, tag: str, kind: str) -> str:
        """The question for ``tag`` of ``kind`` ('binary' or 'choice')."""
        for rule in self.rules:
            template = rule.binary if kind == "binary" else rule.choice
            if template is None:
                continue
            match = rule.pattern.search(tag)
            if match is None:
                continue
            fields = {k: display_text(v) for k, v in match.groupdict().items() if v is not None}
            fields.setdefault("value", display_text(tag))
            fields["tag"] = display_text(tag)
            try:
                text = template.format(**fields)
            except (KeyError, IndexError) as exc:
                raise ConfigError(
                    f"template {template!r} of set {self.name!r} uses a placeholder the rule does not capture: {exc}"
                ) from exc
            return text[:1].upper() + text[1:]
        raise ConfigError(
            f"no {kind} template in set {self.name!r} matches tag {tag!r}: add a catch-all rule such as "
            '{"match": ".*", "binary": "Is it about {tag}?"}'
        )
