"""Deprecated alias of :mod:`qring_edu.experiments.alignment` (the GapIP and TieAudit scaling
experiments moved there); removed in qring_edu 0.3."""

from ._deprecation import forward
from .experiments import alignment as _alignment

__getattr__, __dir__ = forward(__name__, [_alignment])
