"""Load benchmark of the HTTP service: python -m bench.load."""
