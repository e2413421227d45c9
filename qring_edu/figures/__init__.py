"""Figures of the book: pure functions ``result -> matplotlib.figure.Figure`` (presentation floor).

They build ``matplotlib.figure.Figure`` objects directly (no pyplot global state), compute
nothing and never display anything. One module per chapter slug: :mod:`.bottleneck` (chapter 1),
:mod:`.holevo` (chapter 2), :mod:`.superdense_ring` and :mod:`.training` (chapter 3 and its
training section), :mod:`.vga` and :mod:`.vga_security` (the VGA chapters),
:mod:`.gapip` and :mod:`.tieaudit`; :mod:`.claims` renders the claims table as an HTML
string; shared helpers (the circuit drawer) in :mod:`._base`.
"""

from . import (
    bottleneck,
    claims,
    gapip,
    holevo,
    superdense_ring,
    tieaudit,
    training,
    vga,
    vga_security,
)

__all__ = [
    "bottleneck",
    "claims",
    "gapip",
    "holevo",
    "superdense_ring",
    "tieaudit",
    "training",
    "vga",
    "vga_security",
]
