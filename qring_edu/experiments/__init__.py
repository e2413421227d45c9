"""Experiments of the book (experiments floor): the seeded sweeps and comparisons that the
chapters, the widgets, the claims page, the tests and ``make bench`` compute.

One module per chapter slug — :mod:`.bottleneck` (chapter 1), :mod:`.holevo` (chapter 2),
:mod:`.superdense_ring` (chapter 3), :mod:`.vga` and :mod:`.vga_security` (the VGA chapters),
:mod:`.gapip` and :mod:`.tieaudit` — and :mod:`.claims` (the paper's headline claims); shared helpers in :mod:`._base`. Pure: results are
frozen dataclasses with a short ``repr`` (tables offer ``table()`` and ``_repr_html_``); nothing
here imports matplotlib or ipywidgets. Import the module you need, e.g.
``from qring_edu.experiments import vga``.
"""
