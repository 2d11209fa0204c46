"""The answers: plan, fit, limits, recommend, sweep, search, figures and admission, each read from the engine."""
