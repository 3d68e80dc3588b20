"""Old import path of ``store_colour_domain`` (now tests/support/colours.py); holds no tests. See
tests/engine/__init__.py."""

from tests.support.colours import store_colour_domain

__all__ = ["store_colour_domain"]
