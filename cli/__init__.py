"""The `zeroplan` command line: transport over the core (service/) or over a server (--url)."""
