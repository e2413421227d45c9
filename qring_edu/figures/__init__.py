"""Figures of the book: pure functions ``result -> matplotlib.figure.Figure`` (presentation layer).

They build ``matplotlib.figure.Figure`` objects directly (no pyplot global state) and never
display anything.
"""
