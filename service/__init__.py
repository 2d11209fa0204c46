"""The zeroplan domain core: byte counts, ring costs, fit. Knows nothing of HTTP."""
