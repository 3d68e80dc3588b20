"""Old import paths, kept until the tests of the `policy` branch are merged and import from tests/support.

The engine's tests now live in tests/assistant/<room>/ (see tests/README.md). Delete this package once no test
imports ``tests.engine`` (grep -rn "tests.engine" tests).
"""
