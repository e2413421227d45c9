"""Fixed-point and modular encoding of gradients (core layer, book/01_bottleneck.ipynb).

Words are ``bits``-bit two's-complement integers stored as unsigned residues in ``uint32``
buffers; every sum is taken modulo ``2**bits``. Floats are quantised with a scale ``s`` chosen so
that the sum of ``P`` encoded values can never overflow the signed range.

Scale. The natural choice ``s = (2**(bits-1) - 1) / (P * max_abs)`` fails: with round-to-nearest that
scale can overflow: for ``P = 4, bits = 4`` every worker at ``+max_abs`` encodes
``round(7/4) = 2`` and the sum ``8`` wraps to ``-8``. We therefore use the integer per-worker cap
``m = floor((2**(bits-1) - 1) / P)`` and ``s = m / max_abs``: each encoded value lies in
``[-m, m]``, so ``|sum| <= P m <= 2**(bits-1) - 1`` always, and the per-entry error of the decoded
sum is at most ``P / (2 s)``. The two scales agree up to the factor ``m P / (2**(bits-1) - 1)``,
which is ``1 - O(P / 2**bits)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import as_numeric_array, check_bits, check_float, check_int

__all__ = [
    "FixedPoint",
    "fixed_point",
    "to_words",
    "to_signed",
    "modular_sum",
]


def word_mask(bits: int) -> int:
    """``2**bits - 1``: the mask that reduces a ``uint32`` word modulo ``2**bits``."""
    return (1 << bits) - 1


def _integer_array(values, name: str) -> np.ndarray:
    """``np.asarray(values)``, refusing non-integer dtypes (a float would be truncated silently)."""
    arr = np.asarray(values)
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must be an integer array, got dtype {arr.dtype}")
    return arr


def to_words(values: np.ndarray, bits: int) -> np.ndarray:
    """Integers -> residues modulo ``2**bits`` as ``uint32`` (two's complement for negatives).

    ``word = value mod 2**bits``, so ``-1`` becomes ``2**bits - 1``: the unsigned residue of the
    two's-complement word. Bits above ``bits`` are discarded.

    Parameters
    ----------
    values : array_like of int, any shape
        Integers (a float dtype is refused: it would be truncated silently).
    bits : int
        Word size, 2 to 32.

    Returns
    -------
    numpy.ndarray of uint32, same shape
        The residues, in ``0 .. 2**bits - 1``.

    Raises
    ------
    TypeError
        If ``values`` is not an integer array.

    Examples
    --------
    >>> from qring_edu.fixedpoint import to_words
    >>> to_words([-1, 5, -8, 16], bits=4).tolist()
    [15, 5, 8, 0]
    """
    bits = check_bits(bits)
    arr = _integer_array(values, "values")
    # int64 & mask is the two's-complement residue for any int64 value, negatives included.
    return (arr.astype(np.int64, copy=False) & word_mask(bits)).astype(np.uint32)


def to_signed(words: np.ndarray, bits: int) -> np.ndarray:
    """Residues modulo ``2**bits`` -> signed ints in ``[-2**(bits-1), 2**(bits-1) - 1]`` (int64).

    The inverse of :func:`to_words`: a word whose top bit (bit ``bits - 1``) is set stands for
    ``word - 2**bits``. Bits above ``bits`` are discarded.

    Parameters
    ----------
    words : array_like of int, any shape
        Residues (only the low ``bits`` bits are read).
    bits : int
        Word size, 2 to 32.

    Returns
    -------
    numpy.ndarray of int64, same shape

    Examples
    --------
    >>> from qring_edu.fixedpoint import to_signed, to_words
    >>> to_signed([15, 5, 8, 7], bits=4).tolist()
    [-1, 5, -8, 7]
    >>> to_signed(to_words([-3, 3], 8), 8).tolist()
    [-3, 3]
    """
    bits = check_bits(bits)
    # Sign-extend in 32 bits: shift the word's top bit to bit 31, then shift back arithmetically.
    # Same result as masking and subtracting 2**bits where the top bit is set, ~7x faster (no
    # int64 temporaries, no np.where). Bits above ``bits`` are discarded, as by the mask.
    w = _integer_array(words, "words").astype(np.uint32)
    w <<= np.uint32(32 - bits)
    s = w.view(np.int32)
    s >>= np.int32(32 - bits)
    return s.astype(np.int64)


def modular_sum(values, bits: int) -> np.ndarray:
    """Reference all-reduce of integers: ``sum(values, axis=0) mod 2**bits``, signed (int64).

    This is what every worker must end with after a ring all-reduce of integer words: the sum
    wraps around like ``bits``-bit two's-complement arithmetic.

    Parameters
    ----------
    values : array_like of int, shape (P, d)
        One row per worker.
    bits : int
        Word size, 2 to 32.

    Returns
    -------
    numpy.ndarray of int64, shape (d,)
        The signed sums, in ``[-2**(bits-1), 2**(bits-1) - 1]``.

    Raises
    ------
    TypeError
        If ``values`` is not an integer array.
    ValueError
        If ``values`` is not 2-D.

    Examples
    --------
    ``7 + 1 = 8`` wraps to ``-8`` in 4-bit words:

    >>> from qring_edu import modular_sum
    >>> modular_sum([[7, -8, 3], [1, -1, 2]], bits=4).tolist()
    [-8, 7, 5]
    """
    arr = as_numeric_array(values, "values")
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"values must be integers, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(f"values must be 2-D with shape (P, d), got shape {arr.shape}")
    words = to_words(arr, bits).astype(np.uint64)
    return to_signed(words.sum(axis=0) & word_mask(bits), bits)


@dataclass(frozen=True)
class FixedPoint:
    """The fixed-point code the ``P`` workers agree on before training (:func:`fixed_point`).

    A float ``x`` with ``|x| <= max_abs`` is sent as the word ``round(x s) mod 2**bits``; each
    encoded value lies in ``[-m, m]`` with ``m = floor((2**(bits-1) - 1) / P)``, so the sum of
    ``P`` of them never overflows the signed range, and the decoded sum is off by at most
    ``error_bound = P / (2 s)`` per entry.

    Attributes
    ----------
    bits : int
        Word size.
    workers : int
        ``P``, the number of values summed.
    max_abs : float
        The clipping bound: inputs with ``|x| > max_abs`` are refused.
    cap : int
        ``m``, the largest encoded magnitude per worker.
    scale : float
        ``s = m / max_abs``, words per unit.
    error_bound : float
        ``P / (2 s)``, the bound on ``|decoded sum - true sum|`` per entry.

    Examples
    --------
    >>> import numpy as np
    >>> from qring_edu import fixed_point
    >>> code = fixed_point(workers=4, bits=8, max_abs=1.0)
    >>> code
    FixedPoint(bits=8, workers=4, max_abs=1.0, cap=31, scale=31.0)
    >>> words = code.encode(np.array([0.5, -1.0]))
    >>> words.tolist()
    [16, 225]
    >>> code.decode(words).round(4).tolist()
    [0.5161, -1.0]
    >>> round(code.error_bound, 4)
    0.0645
    """

    bits: int
    workers: int
    max_abs: float
    cap: int
    scale: float

    @property
    def error_bound(self) -> float:
        """``P / (2 s)``: the largest ``|decoded sum - true sum|`` per entry."""
        return self.workers / (2.0 * self.scale)

    def encode(self, x: np.ndarray) -> np.ndarray:
        """Floats -> ``uint32`` words: ``round(x * s) mod 2**bits`` (round half to even).

        ``x``: floats of any shape with ``|x| <= max_abs``; a larger or non-finite value is a
        ``ValueError``.
        """
        x = np.asarray(x)
        # Two reductions, no temporaries: a NaN makes max/min NaN and the comparison False.
        if x.size and not (np.max(x) <= self.max_abs and -np.min(x) <= self.max_abs):
            if not np.all(np.isfinite(x)):
                raise ValueError("x must be finite; it contains NaN or Inf")
            worst = float(np.max(np.abs(x)))
            raise ValueError(
                f"grads must satisfy |x| <= max_abs = {self.max_abs:g}; found |x| = {worst:g}"
            )
        # Form x*s in float64 whatever the input width: in float32 (or float16) the product
        # rounds by up to 2**-24 * cap words and can round *above* the cap, so P worst-case
        # values would overflow the signed range.
        q = np.multiply(x, self.scale, dtype=np.float64)  # a new array: x is never modified
        np.rint(q, out=q)
        # |x| <= max_abs gives |x s| <= cap < 2**31, and rounding cannot cross the integer cap,
        # so int32 holds q; its two's-complement bits masked to ``bits`` are the residue.
        words = q.astype(np.int32).view(np.uint32)
        if self.bits < 32:
            words &= np.uint32(word_mask(self.bits))
        return words

    def decode(self, words: np.ndarray, dtype=np.float64, *, out: np.ndarray | None = None):
        """``uint32`` words -> floats: ``signed(words) / s`` (:func:`to_signed`), as ``dtype``,
        or written into ``out`` (a float array of the words' shape; one temporary fewer)."""
        if out is None:
            return (to_signed(words, self.bits) / self.scale).astype(dtype, copy=False)
        # computed in float64 and rounded once into out: the same values as the line above
        return np.divide(to_signed(words, self.bits), self.scale, out=out, casting="unsafe")


def fixed_point(workers: int, bits: int, max_abs: float) -> FixedPoint:
    """The overflow-free fixed-point code for summing ``workers`` values with ``|x| <= max_abs``.

    Cap ``m = floor((2**(bits-1) - 1) / P)`` and scale ``s = m / max_abs`` (see the module
    docstring for why this, not ``(2**(bits-1) - 1) / (P max_abs)``, is used).

    Parameters
    ----------
    workers : int
        ``P >= 2``, the number of values that will be summed.
    bits : int
        Word size, 2 to 32.
    max_abs : float
        The clipping bound the workers agree on in advance, ``> 0``.

    Returns
    -------
    FixedPoint

    Raises
    ------
    ValueError
        If ``bits`` is too small to give each worker at least one level
        (``2**(bits-1) - 1 >= workers``), or an argument is out of range.

    Examples
    --------
    >>> from qring_edu import fixed_point
    >>> fixed_point(workers=4, bits=8, max_abs=2.0)
    FixedPoint(bits=8, workers=4, max_abs=2.0, cap=31, scale=15.5)
    >>> fixed_point(workers=8, bits=4, max_abs=1.0)
    Traceback (most recent call last):
    ...
    ValueError: bits = 4 is too small for float gradients from P = 8 workers: need 2**(bits-1) - 1 >= P, i.e. bits >= 5
    """
    workers = check_int(workers, "P (number of workers)", 2, 2**31 - 1)
    bits = check_bits(bits)
    max_abs = check_float(max_abs, "max_abs", 0.0, lo_open=True)
    cap = ((1 << (bits - 1)) - 1) // workers
    if cap < 1:
        raise ValueError(
            f"bits = {bits} is too small for float gradients from P = {workers} workers: "
            f"need 2**(bits-1) - 1 >= P, i.e. bits >= {int(np.ceil(np.log2(workers + 1))) + 1}"
        )
    return FixedPoint(bits=bits, workers=workers, max_abs=max_abs, cap=cap, scale=cap / max_abs)
