"""The reliability probe: what Clarify promises when files are damaged, processes are killed, two programs
write at once and input is hostile, measured and kept in the project (issue 12).

Each part returns a small dict of figures and the failures it saw (each with enough to reproduce it):

- ``files``: generated malformed import files for every importer; crashes, hangs, partial imports;
- ``kills``: ``kill -9`` of real ``clarify ask --json-lines`` processes at random moments; corrupted
  databases, unresumable sessions, acknowledged answers lost;
- ``writers``: a second writer (an import, a long write transaction, a second session) during sessions and
  imports; failures;
- ``damage``: damaged checkpoints, sidecars and databases given to real commands; tracebacks, hangs;
- ``arguments``: bad command-line arguments and hostile strings; tracebacks, wrong exit codes.

``python -m benchmarks reliability`` (``make soak``) runs them all at full size and prints the figures;
``tests/benchmarks/reliability`` runs a quick slice in ``make test``.
"""
