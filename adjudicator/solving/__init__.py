"""Solvers of whole games, compiled: they know no game, only the graphs the games describe."""
