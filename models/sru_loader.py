"""Import the ``sru`` package quietly and reliably.

``import sru`` JIT-compiles a small C++ op the first time (~25 s, cached afterwards); it needs ``c++`` and
``ninja`` on PATH, and pip installs ninja into the virtual environment's bin/, which is not always on
PATH. It also warns about CUDA and torch.jit.script on every import: exactly those two warnings are
filtered here, nothing else.

The compiled op is cached per virtual environment (``TORCH_EXTENSIONS_DIR`` inside it, unless set): torch's
default cache is one folder per user, and environments with other torch paths rebuild each other's op
there, each build holding a lock the others wait on (minutes each on a busy machine).
"""

from __future__ import annotations

import os
import sys
import warnings
from functools import lru_cache


@lru_cache(maxsize=1)
def import_sru():
    """Return the ``sru`` module, with the venv's bin/ put first on PATH for the one-time compile."""
    os.environ.setdefault("TORCH_EXTENSIONS_DIR", os.path.join(sys.prefix, "torch_extensions"))
    bin_dir = os.path.dirname(sys.executable)
    if bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*CUDA.*", category=UserWarning)
        warnings.filterwarnings("ignore", message=r".*torch\.jit\.script.*", category=DeprecationWarning)
        import sru
    return sru
