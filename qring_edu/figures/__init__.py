"""Figures of the book: pure functions ``result -> matplotlib.figure.Figure`` (presentation layer).

They build ``matplotlib.figure.Figure`` objects directly (no pyplot global state) and never
display anything. One module per protocol: :mod:`.ring` (chapter 1), :mod:`.holevo` (chapter 2),
:mod:`.superdense` (chapter 3),
:mod:`.vga` (chapter 4),
:mod:`.audit` (chapter 5);
:mod:`.claims` renders the claims table as HTML/Markdown strings.
"""

from . import audit, claims, holevo, ring, superdense, vga

__all__ = ["audit", "claims", "holevo", "ring", "superdense", "vga"]
