"""Speed and quality benchmarks, run on demand with `make bench` (never part of `make test`).

Each module ``benchmarks/bench_*.py`` has ``main(argv) -> dict``: it prints its figures as one JSON
object on stdout followed by a one-line human summary, and returns the same dict.
"""
