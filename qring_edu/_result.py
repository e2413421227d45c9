"""Result types (core): frozen dataclasses with a short, deterministic ``repr``.

Every result of the library is a frozen dataclass decorated with :func:`result`. Its ``repr``
lists the fields declared with ``repr=True`` (the default of :func:`dataclasses.field`) and the
properties named in ``show``, in that order, each value written short:

* floats with 4 significant digits (``0.9801``, ``1.5e-05``), NumPy scalars as Python numbers;
* arrays by shape and dtype (``array(4, 1000) int64``), never their contents;
* other values by their own ``repr``.

So a result prints the same on every machine and fits a line; the data stay in the fields.
"""

from __future__ import annotations

import dataclasses
import numbers

import numpy as np

__all__ = ["result", "short"]


def short(value) -> str:
    """``value`` as a short deterministic string (see the module docstring).

    Examples
    --------
    >>> short(0.980133), short(np.float64(1.5e-05)), short(np.int64(3)), short((0.5, "a"))
    ('0.9801', '1.5e-05', '3', "(0.5, 'a')")
    """
    if isinstance(value, np.ndarray):
        shape = ", ".join(str(n) for n in value.shape) + ("," if value.ndim == 1 else "")
        return f"array({shape}) {value.dtype}"
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return f"{float(value):.4g}"
    if isinstance(value, tuple):
        inner = ", ".join(short(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(short(v) for v in value) + "]"
    return repr(value)


def result(cls=None, *, show: tuple[str, ...] = ()):
    """Class decorator: a frozen dataclass whose short ``repr`` (the module docstring) lists the
    fields, then the properties named in ``show``.

    Examples
    --------
    >>> from dataclasses import field
    >>> @result(show=("mean",))
    ... class Run:
    ...     samples: np.ndarray
    ...     rate: float
    ...     note: str = field(default="", repr=False)
    ...
    ...     @property
    ...     def mean(self) -> float:
    ...         return float(self.samples.mean())
    >>> Run(np.array([0.1, 0.2, 0.3]), rate=1 / 3)
    Run(samples=array(3,) float64, rate=0.3333, mean=0.2)
    """

    def wrap(klass):
        klass = dataclasses.dataclass(frozen=True, repr=False)(klass)
        names = [f.name for f in dataclasses.fields(klass) if f.repr] + list(show)

        def __repr__(self) -> str:
            body = ", ".join(f"{n}={short(getattr(self, n))}" for n in names)
            return f"{type(self).__name__}({body})"

        klass.__repr__ = __repr__
        return klass

    return wrap if cls is None else wrap(cls)
