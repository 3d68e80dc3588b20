"""`python -m assistant.cli.main ARGS`: runs `clarify ARGS` from a source tree.

The command group is ``assistant.cli.root.main`` (the console script's ``assistant.cli:main``). It lives in its own
module, not here, because the package imports it: a package that imports the module `python -m` is about to run
has that module loaded twice (runpy's "found in sys.modules" warning). Import the command from ``assistant.cli``
or ``assistant.cli.root``, never from this module: importing it makes ``assistant.cli.main`` this module.
"""

import sys

from assistant.cli.root import main

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
