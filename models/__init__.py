"""Torch modules and checkpoint I/O only: text encoders, scorer, policy network, deep ranker head,
pretrained embedding loaders (offline, from installed packages)."""
