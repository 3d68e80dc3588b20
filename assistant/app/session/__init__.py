"""A live conversation: the Session a person talks to, its state, its log records and the comparisons;
it needs only the DomainModels Protocol, never the model registry."""
