"""Peers measured in the same run as ours: a plain numpy reference turn of the clarifier (the physical
floor), BoTorch's PairwiseGP with its own analytic acquisitions, and choix's Bradley-Terry. Each is an
optional dependency except numpy; the benchmarks report each as a ratio to ours."""
