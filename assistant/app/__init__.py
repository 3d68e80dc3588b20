"""The application layer the GUI and the CLI run, in four wings: ``session`` (a live Session, its state
and log; it needs only the DomainModels Protocol), ``lifecycle`` (the model kinds of a domain, the registry
that loads them, their training jobs and release models), ``desk`` (a desk's own FAQ, cold start, inbox,
questions, crowd work and learning from use) and ``research`` (evaluations, the bench, sweeps, the
labels-only protocol, summaries). docs/architecture.md says which wing may import which."""
