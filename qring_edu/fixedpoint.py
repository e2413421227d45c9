"""Fixed-point and modular encoding of gradients (core layer, book/01_bottleneck.ipynb).

Words are ``bits``-bit two's-complement integers stored as unsigned residues in ``uint32``
buffers; every sum is taken modulo ``2**bits``. Floats are quantised with a scale ``s`` chosen so
that the sum of ``P`` encoded values can never overflow the signed range.

Scale. ``s = (2**(bits-1) - 1) / (P max_abs)`` can overflow with round-to-nearest (``P = 4,
bits = 4``: each worker at ``+max_abs`` encodes ``round(7/4) = 2``, the sum ``8`` wraps to
``-8``). So the per-worker cap is the integer ``m = floor((2**(bits-1) - 1) / P)``, ``s = m /
max_abs``: ``|sum| <= P m <= 2**(bits-1) - 1`` always, and the decoded sum is off by at most
``P / (2 s)`` per entry. The scales differ by the factor ``m P / (2**(bits-1) - 1) = 1 - O(P /
2**bits)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import as_numeric_array, check_bits, check_float, check_int

__all__ = ["FixedPoint", "fixed_point", "to_words", "to_signed", "modular_sum"]


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
    """Integers (any shape; a float dtype is a ``TypeError``) -> ``value mod 2**bits`` as
    ``uint32`` in ``0 .. 2**bits - 1``: ``-1`` becomes ``2**bits - 1``, the two's-complement word.

    Examples
    --------
    >>> to_words([-1, 5, -8, 16], bits=4).tolist()
    [15, 5, 8, 0]
    """
    bits = check_bits(bits)
    arr = _integer_array(values, "values")
    # int64 & mask is the two's-complement residue for any int64 value, negatives included.
    return (arr.astype(np.int64, copy=False) & word_mask(bits)).astype(np.uint32)


def to_signed(words: np.ndarray, bits: int) -> np.ndarray:
    """Residues modulo ``2**bits`` (any shape; only the low ``bits`` bits are read) -> signed
    int64 in ``[-2**(bits-1), 2**(bits-1) - 1]``, the inverse of :func:`to_words`: a word with
    bit ``bits - 1`` set stands for ``word - 2**bits``.

    Examples
    --------
    >>> to_signed([15, 5, 8, 7], bits=4).tolist()
    [-1, 5, -8, 7]
    """
    return _signed32(_integer_array(words, "words"), check_bits(bits)).astype(np.int64)


def _signed32(words: np.ndarray, bits: int) -> np.ndarray:
    """:func:`to_signed` in int32, which holds any signed ``bits``-bit value: the top bit shifted
    to bit 31, then an arithmetic shift back (two passes, no int64 temporary, no np.where)."""
    s = np.left_shift(words, 32 - bits, dtype=np.uint32, casting="unsafe").view(np.int32)
    s >>= np.int32(32 - bits)
    return s


def modular_sum(values, bits: int) -> np.ndarray:
    """Reference all-reduce of integers ``values`` (P, d): ``sum(values, axis=0) mod 2**bits``,
    signed (int64, shape (d,)), what every worker ends with after a ring all-reduce.

    Examples
    --------
    ``7 + 1 = 8`` wraps to ``-8`` in 4-bit words:

    >>> modular_sum([[7, -8, 3], [1, -1, 2]], bits=4).tolist()
    [-8, 7, 5]
    """
    arr = _integer_array(as_numeric_array(values, "values"), "values")
    if arr.ndim != 2:
        raise ValueError(f"values must be 2-D with shape (P, d), got shape {arr.shape}")
    words = to_words(arr, bits).astype(np.uint64)
    return to_signed(words.sum(axis=0) & word_mask(bits), bits)


@dataclass(frozen=True)
class FixedPoint:
    """The fixed-point code the ``P`` workers agree on before training (:func:`fixed_point`).

    A float ``x`` with ``|x| <= max_abs`` is sent as the word ``round(x s) mod 2**bits``, in
    ``[-m, m]``. Fields: ``bits``, ``workers`` (P), ``max_abs`` (the clipping bound), ``cap``
    (``m = floor((2**(bits-1) - 1) / P)``) and ``scale`` (``s = m / max_abs``, words per unit).

    Examples
    --------
    >>> code = fixed_point(workers=4, bits=8, max_abs=1.0)
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

    def encode(self, x: np.ndarray, *, out: np.ndarray | None = None) -> np.ndarray:
        """Floats (any shape, ``|x| <= max_abs``, else ``ValueError``) -> ``uint32`` words
        ``round(x * s) mod 2**bits`` (round half to even), new or written into ``out`` (uint32,
        x's shape; it may be x's own memory: x is read in full first)."""
        x = np.asarray(x)
        if out is not None and (np.shape(out) != x.shape or getattr(out, "dtype", 0) != np.uint32):
            raise TypeError(f"out must be a uint32 array of shape {x.shape}, got {out!r:.60}")
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
        # |x| <= max_abs gives |x s| <= cap < 2**31, and rounding cannot cross the integer cap,
        # so int32 holds rint(q) (one pass: rounded, then cast); its two's-complement bits
        # masked to ``bits`` are the residue.
        words = np.empty(q.shape, dtype=np.uint32) if out is None else out
        np.rint(q, out=words.view(np.int32), casting="unsafe")
        words &= np.uint32(word_mask(self.bits))
        return words

    def decode(self, words: np.ndarray, dtype=np.float64, *, out: np.ndarray | None = None):
        """``uint32`` words -> floats: ``signed(words) / s`` (:func:`to_signed`), as ``dtype``,
        or written into ``out`` (a float array of the words' shape, e.g. the input's memory)."""
        if out is None:
            out = np.empty(np.shape(words), dtype=dtype)
        # the float64 quotient, rounded once into out: no float64 array of the words' shape
        return np.divide(_signed32(words, self.bits), self.scale, out=out, casting="unsafe")


def fixed_point(workers: int, bits: int, max_abs: float) -> FixedPoint:
    """The overflow-free fixed-point code (cap ``m``, scale ``s``: the module docstring) for
    summing ``workers`` (P >= 2) values with ``|x| <= max_abs`` (> 0, agreed in advance);
    ``bits`` in 2..32 with ``2**(bits-1) - 1 >= P`` (at least one level per worker).

    Examples
    --------
    >>> fixed_point(workers=4, bits=8, max_abs=2.0)
    FixedPoint(bits=8, workers=4, max_abs=2.0, cap=31, scale=15.5)
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
