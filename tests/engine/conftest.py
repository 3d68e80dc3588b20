"""Old import path of the tiny domain (now tests/support/tiny.py); see tests/engine/__init__.py."""

from tests.support.tiny import KeywordPrior, TinyAgents, make_tiny_domain

__all__ = ["KeywordPrior", "TinyAgents", "make_tiny_domain"]
