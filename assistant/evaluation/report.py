"""What an evaluation of the clarifier reports: rows as in IC Table 1 (Acc@1, Acc@3, mean questions, a
paired test against ours), Acc@1 against the number of questions, and exports (JSON, CSV, Markdown, PNG)."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from assistant.errors import ConfigError
from assistant.evaluation.intervals import bootstrap_interval, paired_difference
from assistant.simulation.rollout import Episode


@dataclass
class EvaluationReport:
    """Rows as in IC Table 1, accuracy-vs-turn curves, and what was evaluated."""

    rows: list[dict]
    curves: dict[str, dict[str, list[float]]]
    meta: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"rows": self.rows, "curves": self.curves, "meta": self.meta}

    def to_json(self, path: str | Path | None = None) -> str:
        text = json.dumps(self.to_dict(), indent=2)
        if path is not None:
            Path(path).write_text(text)
        return text

    def to_csv(self) -> str:
        out = io.StringIO()
        fields = ["system", "turns", "acc1", "acc3", "mean_turns", "early_stop_share", "episodes"]
        writer = csv.DictWriter(out, fieldnames=fields)
        writer.writeheader()
        for row in self.rows:
            writer.writerow({k: row.get(k, "") for k in writer.fieldnames})
        return out.getvalue()

    def to_markdown(self) -> str:
        lines = [
            "| system | Acc@1 | Acc@3 | mean turns | bits/question | early stops | p vs ours |",
            "|---|---|---|---|---|---|---|",
        ]
        for row in self.rows:
            name = row["system"] + (f" ({row['turns']})" if row["system"] == "fixed_turns" else "")
            p = f"{row['vs_ours']['p_value']:.3g}" if "vs_ours" in row else ""
            bits = row.get("bits_per_question")
            bits_text = "" if bits is None else f"{bits:.2f}"
            early = f"{row['early_stop_share']:.1%}" if "early_stop_share" in row else ""
            lines.append(
                f"| {name} | {row['acc1']:.3f} | {row['acc3']:.3f} | {row['mean_turns']:.2f} | {bits_text} | {early} "
                f"| {p} |"
            )
        return "\n".join(lines)

    def row(self, system: str, turns: int | None = None) -> dict:
        for r in self.rows:
            if r["system"] == system and (turns is None or r.get("turns") == turns):
                return r
        raise ConfigError(f"the report has no row for system {system!r}" + (f" at {turns} turns" if turns else ""))


def noise_table(reports: Sequence[EvaluationReport]) -> str:
    """Markdown: Acc@1 / mean questions of every system (rows) at each level of user noise (columns)."""
    levels = [r.meta.get("user_noise", "") for r in reports]
    header = "| system | " + " | ".join(levels) + " |"
    lines = [header, "|---" * (len(reports) + 1) + "|"]
    for row in reports[0].rows:
        name = row["system"] + (f" ({row['turns']})" if row["system"] == "fixed_turns" else "")
        cells = []
        for report in reports:
            other = report.row(row["system"], row.get("turns"))
            cells.append(f"{other['acc1']:.3f} / {other['mean_turns']:.2f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    corr = " | ".join(f"{r.meta.get('agent_user_correlation', float('nan')):.3f}" for r in reports)
    lines.append(f"| agent-user answer correlation | {corr} |")
    return "\n".join(lines)


def report_row(system: str, episodes: Sequence[Episode], **extra) -> dict:
    hit1 = np.array([e.correct_at_1 for e in episodes], dtype=float)
    hit3 = np.array([e.correct_at_3 for e in episodes], dtype=float)
    turns = np.array([e.turns for e in episodes], dtype=float)
    n = len(episodes)
    removed = [bits for e in episodes for bits in e.bits_removed]
    row = {
        "system": system,
        **extra,
        "acc1": float(hit1.mean()),
        "acc3": float(hit3.mean()),
        "mean_turns": float(turns.mean()),
        "episodes": n,
        "acc1_se": float(hit1.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0,
        # 95% bootstrap intervals over the episodes (assistant.evaluation.intervals)
        "acc1_ci": bootstrap_interval(hit1).to_list(),
        "mean_turns_ci": bootstrap_interval(turns).to_list(3),
        # information per question: mean entropy (bits) each answered question removed
        "bits_per_question": float(np.mean(removed)) if removed else None,
    }
    if all(e.stop_reason is not None for e in episodes):  # systems that decide when to stop
        row["early_stop_share"] = float(np.mean([e.early_stop for e in episodes]))
    return row


def paired_test(ours: np.ndarray, other: np.ndarray) -> dict:
    """McNemar's exact test of Acc@1 between two systems on the same episodes (paired by episode).

    Returns the accuracy difference (other - ours), the two-sided p-value from the episodes where exactly one
    of the two systems was right, and the difference's 95% paired bootstrap interval with its verdict ("tie"
    where the interval holds 0, else "ours higher" / "other higher").
    """
    from scipy.stats import binomtest

    only_ours = int(np.sum(ours & ~other))
    only_other = int(np.sum(other & ~ours))
    discordant = only_ours + only_other
    p = 1.0 if discordant == 0 else float(binomtest(min(only_ours, only_other), discordant, 0.5).pvalue)
    paired = paired_difference(ours, other)
    return {
        "acc1_diff": float(other.mean() - ours.mean()),
        "p_value": p,
        "discordant": discordant,
        "acc1_diff_ci": paired["interval"],
        "verdict": paired["verdict"],
    }


def accuracy_curve(episodes: Sequence[Episode], max_turns: int) -> dict[str, list[float]]:
    """Accuracy after k questions, k = 0..max_turns (an episode that ran out of questions keeps its last)."""
    acc1, acc3 = [], []
    for k in range(max_turns + 1):
        acc1.append(float(np.mean([e.hit1_by_turn[min(k, e.turns)] for e in episodes])))
        acc3.append(float(np.mean([e.hit3_by_turn[min(k, e.turns)] for e in episodes])))
    return {"acc1": acc1, "acc3": acc3}


def questions_to_reach(curve: dict[str, list[float]], accuracy: float = 0.9) -> int | None:
    """The fewest questions after which the curve's Acc@1 reaches ``accuracy`` (None: never within the curve)."""
    return next((k for k, acc in enumerate(curve["acc1"]) if acc >= accuracy), None)


def truncate_episode(episode: Episode, k: int) -> Episode:
    """The episode as if the agent had stopped after k questions."""
    k = min(k, episode.turns)
    return Episode(
        episode.target,
        episode.query,
        episode.questions[:k],
        episode.answers[:k],
        episode.hit1_by_turn[: k + 1],
        episode.hit3_by_turn[: k + 1],
        episode.entropy_by_turn[: k + 1],
        episode.top_by_turn[: k + 1],
    )


def threshold_stop(episode: Episode, threshold: float) -> int:
    """The turn at which a threshold rule stops a full rollout of ``episode``: the first whose top
    probability reaches ``threshold`` (the last turn if none does)."""
    return next((t for t, top in enumerate(episode.top_by_turn) if top >= threshold), episode.turns)


def threshold_curve(episodes: Sequence[Episode], thresholds: Sequence[float]) -> dict[str, list[float]]:
    """Acc@1 and mean questions of the threshold rule at each of ``thresholds``, read off full rollouts
    (stopping at a threshold is a prefix of them): the threshold's whole accuracy/questions frontier."""
    acc1, turns = [], []
    for threshold in thresholds:
        stops = [threshold_stop(e, threshold) for e in episodes]
        acc1.append(float(np.mean([e.hit1_by_turn[s] for e, s in zip(episodes, stops)])))
        turns.append(float(np.mean(stops)))
    return {"threshold": [float(t) for t in thresholds], "acc1": acc1, "mean_turns": turns}
