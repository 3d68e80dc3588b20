"""choix's Bradley-Terry as a peer of our Bradley-Terry (optional: choix).

choix fits item-level Bradley-Terry strengths (no features, no prior scores) by maximum a posteriori with an
L2 penalty ``alpha`` (``choix.opt_pairwise``, Newton-CG). Ours is feature-based (logistic regression on
feature differences, with the prior as an offset, fitted over the compared candidates only), so the two are
compared on the cost of one update on the same comparisons, not on what they predict. Ties (0.5) have no
choix likelihood and are left out.
"""

from __future__ import annotations

import numpy as np

from assistant.errors import ConfigError, check_fitted
from assistant.ranking.base import Comparisons, PointPosterior, PreferenceModel, check_inputs


class ChoixBradleyTerry(PreferenceModel):
    """Item-level Bradley-Terry strengths from ``choix.opt_pairwise``; a point estimate (use UNC)."""

    name = "choix_bt"
    bayesian = False

    def __init__(self, alpha: float = 1.0) -> None:
        self.alpha = alpha

    def fit(self, features: np.ndarray, prior: np.ndarray | None, comparisons: Comparisons) -> ChoixBradleyTerry:
        try:
            import choix
        except ImportError as exc:
            raise ConfigError("the choix peer needs choix: pip install choix==0.4.1") from exc
        x, _ = check_inputs(features, prior, comparisons)
        decided = comparisons.outcomes != 0.5
        pairs = comparisons.pairs[decided]
        data = [
            (int(a), int(b)) if o == 1.0 else (int(b), int(a))
            for (a, b), o in zip(pairs, comparisons.outcomes[decided])
        ]
        strengths = choix.opt_pairwise(len(x), data, alpha=self.alpha) if data else np.zeros(len(x))
        self.posterior_ = PointPosterior(np.asarray(strengths, dtype=np.float64))
        return self

    def posterior(self) -> PointPosterior:
        check_fitted(self, "posterior_")
        return self.posterior_
