"""`python -m gui [--domain NAME]`: the same as `clarify-gui`."""

import sys

from gui.app import main

sys.exit(main())
