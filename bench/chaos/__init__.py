"""Chaos benchmark (issue 14): ``python -m bench.chaos`` runs every section and prints its figures.

Sections, each a module with ``run(args) -> dict[str, float]`` registered in ``__main__.SECTIONS``:
- ``jobs``: kill -9 and restarts during simulation jobs, on SQLite and on PostgreSQL with two
  replicas and two workers: jobs lost, orphan processes, temporary directories left (all 0).
"""
