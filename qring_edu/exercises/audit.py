"""Deprecated alias of :mod:`qring_edu.exercises.alignment` (presentation modules are named after the
chapter slug); removed in qring_edu 0.3."""

from .._deprecation import forward
from . import alignment as _new

__getattr__, __dir__ = forward(__name__, [_new])
