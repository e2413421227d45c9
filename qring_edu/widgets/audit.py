"""Deprecated alias of :mod:`qring_edu.widgets.alignment` (the factories),
:mod:`qring_edu.experiments.alignment` (the results) and :mod:`qring_edu.figures.alignment` (the
plots it used to hold); removed in qring_edu 0.3."""

from .._deprecation import forward
from ..experiments import alignment as _experiments
from ..figures import alignment as _figures
from . import alignment as _new

__getattr__, __dir__ = forward(__name__, [_new, _experiments, _figures])
