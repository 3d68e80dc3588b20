"""The lifecycle of a domain's models: the registry that loads them, the jobs that train them, model sets,
release models, background updates, the text-prior choice and the out-of-scope rule."""
