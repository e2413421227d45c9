"""Argument checks shared by the whole library (core layer).

Every public function validates its input with these helpers so that bad input raises a
``ValueError``/``TypeError`` that names the argument and the accepted range (DESIGN.md §9).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

#: Word sizes the library supports: words live in ``uint32`` buffers, sums are taken mod ``2**bits``.
MIN_BITS, MAX_BITS = 2, 32
#: Pair fidelity range: below 1/4 the isotropic "pair" would be anti-correlated, not noisy.
MIN_FIDELITY, MAX_FIDELITY = 0.25, 1.0


def check_int(value: Any, name: str, lo: int | None = None, hi: int | None = None) -> int:
    """Return ``value`` as ``int`` if it is an integer in ``[lo, hi]``; raise otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    value = int(value)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ValueError(f"{name} must be in {_range_text(lo, hi)}, got {value}")
    return value


def check_float(
    value: Any,
    name: str,
    lo: float | None = None,
    hi: float | None = None,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
) -> float:
    """Return ``value`` as a finite ``float`` in the given (closed unless ``*_open``) interval."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    below = lo is not None and (value <= lo if lo_open else value < lo)
    above = hi is not None and (value >= hi if hi_open else value > hi)
    if below or above:
        left = "(" if lo_open else "["
        right = ")" if hi_open else "]"
        lo_s = "-inf" if lo is None else f"{lo:g}"
        hi_s = "inf" if hi is None else f"{hi:g}"
        raise ValueError(f"{name} must be in {left}{lo_s}, {hi_s}{right}, got {value:g}")
    return value


def check_bits(bits: Any, name: str = "bits") -> int:
    """Word size in bits, ``MIN_BITS <= bits <= MAX_BITS``."""
    return check_int(bits, name, MIN_BITS, MAX_BITS)


def check_fidelity(value: Any, name: str = "pair_fidelity") -> float:
    """Fidelity of a pre-shared pair with |Φ+⟩, in ``[0.25, 1]``."""
    return check_float(value, name, MIN_FIDELITY, MAX_FIDELITY)


def check_choice(value: Any, name: str, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        allowed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def check_seed(seed: Any, name: str = "seed") -> None:
    """Accept what :func:`numpy.random.default_rng` accepts: ``None``, a non-negative int or a Generator."""
    if seed is None or isinstance(seed, np.random.Generator):
        return
    check_int(seed, name, 0)


def as_numeric_array(value: Any, name: str) -> np.ndarray:
    """``np.asarray`` with clear errors for ragged, non-numeric and non-finite input."""
    if value is None:
        raise TypeError(f"{name} must be an array of numbers, got None")
    try:
        arr = np.asarray(value)
    except ValueError as exc:  # numpy >= 1.24 refuses ragged nested sequences
        raise ValueError(f"{name} must be a rectangular array; got ragged input ({exc})") from None
    if arr.dtype == object:
        raise ValueError(f"{name} must be a rectangular numeric array; got ragged or mixed-type "
                         "input (or integers beyond the int64 range)")
    if arr.dtype == bool or not (
        np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
    ):
        raise TypeError(f"{name} must hold integers or floats, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.floating) and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite; it contains NaN or Inf")
    return arr


def check_bit_array(value: Any, name: str = "bits") -> np.ndarray:
    """A 1-D array of 0/1 values, returned as ``uint8``."""
    arr = as_numeric_array(value, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (a stream of bits), got shape {arr.shape}")
    if arr.size:
        if np.issubdtype(arr.dtype, np.integer):
            # Two reductions instead of two full-size comparisons (streams run to 10^7 bits).
            ok = arr.max() <= 1 and (np.issubdtype(arr.dtype, np.unsignedinteger)
                                     or arr.min() >= 0)
        else:
            ok = bool(np.all((arr == 0) | (arr == 1)))
        if not ok:
            raise ValueError(f"{name} must contain only 0 and 1")
    return arr.astype(np.uint8, copy=False)



def check_packed_bits(value: Any, n_bits: Any, name: str = "data") -> tuple[np.ndarray, int]:
    """A 1-D array of bytes (integers 0..255) holding a bit-packed stream of ``n_bits`` bits,
    returned as ``(uint8 array, n_bits)``; ``n_bits=None`` means all ``8 * len`` bits, else
    ``8 (len - 1) < n_bits <= 8 len`` (the stream fills every byte but the padding of the last)."""
    arr = as_numeric_array(value, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (a packed stream of bytes), got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must hold bytes (integers 0..255), got dtype {arr.dtype}")
    if arr.dtype != np.uint8 and arr.size and (arr.min() < 0 or arr.max() > 255):
        raise ValueError(f"{name} must hold bytes, integers 0..255")
    size = int(arr.size)
    if n_bits is None:
        n_bits = 8 * size
    else:
        n_bits = check_int(n_bits, "n_bits", 8 * size - 7 if size else 0, 8 * size)
    return arr.astype(np.uint8, copy=False), n_bits

def _range_text(lo: int | None, hi: int | None) -> str:
    if lo is not None and hi is not None:
        return f"{lo}..{hi}"
    if lo is not None:
        return f">= {lo}"
    return f"<= {hi}"
