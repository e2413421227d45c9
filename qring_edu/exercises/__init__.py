"""Exercise checkers of the book: ``check_<name>(answer, ...) -> Feedback`` (presentation floor).

One module per chapter slug (:mod:`.qubits` ... :mod:`.tieaudit`; :mod:`.training` is chapter 3's
training section, :mod:`.vga` both VGA chapters); import a checker from its chapter's module. The
rules every checker keeps (``None`` is "not attempted", answers compared as values, never
evaluated) are in :mod:`~qring_edu.exercises._base`.
"""

from . import (
    bottleneck,
    gapip,
    holevo,
    noisy_links,
    qubits,
    superdense_ring,
    tieaudit,
    training,
    vga,
)
from ._base import Feedback

__all__ = [
    "Feedback",
    "bottleneck",
    "gapip",
    "holevo",
    "noisy_links",
    "qubits",
    "superdense_ring",
    "tieaudit",
    "training",
    "vga",
]
