"""Inverse-CDF sampling of answers, one source for the numpy simulated user and the batched torch
environment (both draw answers with common random numbers)."""

from __future__ import annotations

import numpy as np


def sample_answers(cdf, n_options, uniforms, xp=np):
    """Inverse-CDF sampling of one answer per row, for numpy (``xp=np``) and torch (``xp=torch``) alike.

    ``cdf`` [B, R]: cumulative answer probabilities, padded options repeating the last value; ``n_options``
    [B] int; ``uniforms`` [B] in [0, 1). Returns [B] option indices: the number of CDF values at or below
    u * total, capped at the last valid option (a searchsorted(side='right') that also runs on tensors).
    """
    last = (n_options - 1)[:, None]
    if xp is np:
        total = np.take_along_axis(cdf, last, axis=1)[:, 0]
        picked = (cdf <= (uniforms * total)[:, None]).sum(axis=1)
        return np.minimum(picked, n_options - 1)
    total = cdf.gather(1, last).squeeze(1)
    picked = (cdf <= (uniforms * total)[:, None]).sum(dim=1)
    return xp.minimum(picked, n_options - 1)
