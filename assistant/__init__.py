"""Clarify's engine: knowledge base, belief, question selection, stop policy, ranking, sessions.

Nothing in this package imports Qt or the gui package.
"""

__version__ = "0.1.0"
