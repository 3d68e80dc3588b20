"""The researchers' jobs: evaluations against the baselines, the bench, sweeps, the labels-only protocol
and the summaries experiments."""
