"""How a probability is written for a person, in one place (issue 32: "one probability, every screen").

"100%" only when the belief is practically certain (from 99.95%), ">99%" from 99.5%, "<1%" for a live entry
below 1% (never "0%": no entry of the belief is ever exactly 0), whole points otherwise.
"""

from __future__ import annotations


def percent(probability: float | None) -> str:
    """``probability`` as a person reads it (module docstring); "—" for None."""
    if probability is None:
        return "—"
    p = float(probability)
    if p <= 0.0:
        return "0%"
    if p < 0.01:
        return "<1%"
    if p >= 0.9995:
        return "100%"
    if p >= 0.995:
        return ">99%"
    return f"{min(int(100 * p + 0.5), 99)}%"
