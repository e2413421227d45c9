"""Deprecated alias of :mod:`qring_edu.experiments.claims` (the claims moved there); removed in
qring_edu 0.3."""

from ._deprecation import forward
from .experiments import claims as _claims

__getattr__, __dir__ = forward(__name__, [_claims])
