"""The zeroplan contract: pydantic v2 request and response models, enums and presets as data.

This package imports nothing else of the project; service/ and api/ import it.
"""
