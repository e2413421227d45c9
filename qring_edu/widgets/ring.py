"""Deprecated alias of :mod:`qring_edu.widgets.bottleneck` (the factories) and
:mod:`qring_edu.experiments.bottleneck` (the results they compute); removed in qring_edu 0.3."""

import functools

from .._deprecation import forward
from ..experiments import bottleneck as _experiments
from . import _base
from . import bottleneck as _new

__getattr__, __dir__ = forward(
    __name__,
    [_new, _experiments],
    {
        "parse_positive_number": (
            functools.partial(_base.parse_number, lo=0.0, lo_open=True),
            "qring_edu.widgets._base.parse_number(text, name, lo=0, lo_open=True)",
        ),
    },
)
