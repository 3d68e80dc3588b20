"""Click command groups of the `clarify` CLI, one module per group, plus shared terminal helpers."""
