"""Deprecated alias of :mod:`qring_edu.widgets.superdense_ring` (the factories),
:mod:`qring_edu.experiments.superdense_ring` (the results) and
:mod:`qring_edu.figures.superdense_ring` (the plots it used to hold); removed in qring_edu 0.3."""

from .._deprecation import forward
from ..experiments import superdense_ring as _experiments
from ..figures import superdense_ring as _figures
from . import superdense_ring as _new

__getattr__, __dir__ = forward(__name__, [_new, _experiments, _figures])
