"""Researchers' measurements: the clarifier against IC's baselines (``clarifier``, ``report``, ``plots``)
and the pairwise ranker on community QA (``cqa``: BO's protocol)."""
