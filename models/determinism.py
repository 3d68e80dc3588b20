"""Same seed, same weights: the settings every training job runs under.

A trained model must not depend on the machine's load or core count. Three things would make it so: a
wall-clock limit on training (none is left: limits are steps, epochs and iterations), thread pools whose
size follows the machine (a sum split over more threads is added in another order, and float addition is
not associative), and kernels that choose a non-deterministic algorithm. ``reproducible`` fixes the last
two for the duration of a job and restores the caller's settings afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def reproducible(threads: int = 1) -> Iterator[None]:
    """Run the body with ``threads`` torch threads, every BLAS/OpenMP pool that numpy, scipy and torch loaded
    limited to ``threads``, and torch's deterministic algorithms on; the previous settings come back after.

    One thread is also the fast choice for this project's training on a shared two-core machine: the
    recurrences and rollouts are many small operations (see ``EncoderTrainConfig.threads``).
    """
    import torch  # here: modules that train import this one, and a conversation imports some of them
    from threadpoolctl import threadpool_limits

    threads = max(1, int(threads))
    old_threads = torch.get_num_threads()
    old_deterministic = torch.are_deterministic_algorithms_enabled()
    old_warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True)
    try:
        with threadpool_limits(limits=threads):
            yield
    finally:
        torch.set_num_threads(old_threads)
        torch.use_deterministic_algorithms(old_deterministic, warn_only=old_warn_only)
