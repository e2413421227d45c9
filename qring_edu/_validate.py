"""Argument checks shared by the whole library (core layer, ARCHITECTURE.md): bad input raises a
``ValueError``/``TypeError`` naming the argument (each checker's ``name``) and the accepted range.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

__all__ = [
    "MIN_BITS",
    "MAX_BITS",
    "MIN_FIDELITY",
    "MAX_FIDELITY",
    "check_int",
    "check_float",
    "check_bits",
    "check_fidelity",
    "check_choice",
    "check_seed",
    "seed_sequence",
    "generator",
    "as_numeric_array",
    "check_bit_array",
]

#: Word sizes the library supports: words live in ``uint32`` buffers, sums are taken mod ``2**bits``.
MIN_BITS, MAX_BITS = 2, 32
#: Pair fidelity range: below 1/4 the isotropic "pair" would be anti-correlated, not noisy.
MIN_FIDELITY, MAX_FIDELITY = 0.25, 1.0


def check_int(value: Any, name: str, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` as ``int`` if it is an integer (NumPy's too; not ``bool``) in ``[lo, hi]``
    (inclusive; ``None``: no bound), else ``TypeError``/``ValueError`` naming ``name``.

    Examples
    --------
    >>> check_int(1, "P (number of workers)", 2)
    Traceback (most recent call last):
    ...
    ValueError: P (number of workers) must be in >= 2, got 1
    """
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
    """``value`` as a finite ``float`` (a real number, not ``bool``) in the interval from ``lo``
    to ``hi`` (``None``: unbounded), closed unless ``lo_open``/``hi_open``.

    Examples
    --------
    >>> check_float(1.0, "tau", 0.0, 1.0, lo_open=True, hi_open=True)
    Traceback (most recent call last):
    ...
    ValueError: tau must be in (0, 1), got 1
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    below = lo is not None and (value <= lo if lo_open else value < lo)
    above = hi is not None and (value >= hi if hi_open else value > hi)
    if below or above:
        lo_s = ("(" if lo_open else "[") + ("-inf" if lo is None else f"{lo:g}")
        hi_s = ("inf" if hi is None else f"{hi:g}") + (")" if hi_open else "]")
        raise ValueError(f"{name} must be in {lo_s}, {hi_s}, got {value:g}")
    return value


def check_delta(delta: Any) -> float:
    """A failure probability ``delta`` in (0, 1/2), >= 1e-300 (``log(2 / delta)`` stays finite)."""
    d = check_float(delta, "delta", 0.0, 0.5, lo_open=True, hi_open=True)
    if d < 1e-300:
        raise ValueError(f"delta must be at least 1e-300, got {d:g}")
    return d


def check_bits(bits: Any, name: str = "bits") -> int:
    """Word size in bits, ``MIN_BITS <= bits <= MAX_BITS`` (2 to 32), as ``int``.

    Examples
    --------
    >>> check_bits(64)
    Traceback (most recent call last):
    ...
    ValueError: bits must be in 2..32, got 64
    """
    return check_int(bits, name, MIN_BITS, MAX_BITS)


def check_fidelity(value: Any, name: str = "pair_fidelity") -> float:
    """A pair's fidelity with |Φ+⟩, in ``[0.25, 1]`` (:data:`MIN_FIDELITY`), as ``float``.

    Examples
    --------
    >>> check_fidelity(0.2, "channel_fidelity")
    Traceback (most recent call last):
    ...
    ValueError: channel_fidelity must be in [0.25, 1], got 0.2
    """
    return check_float(value, name, MIN_FIDELITY, MAX_FIDELITY)


def check_choice(value: Any, name: str, choices: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of the strings ``choices``; raise ``ValueError`` otherwise.

    Examples
    --------
    >>> check_choice("quantum", "transport", ("classical", "superdense"))
    Traceback (most recent call last):
    ...
    ValueError: transport must be one of 'classical', 'superdense', got 'quantum'
    """
    if not isinstance(value, str) or value not in choices:
        allowed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def seed_sequence(seed: Any, name: str = "seed") -> np.random.SeedSequence:
    """The root of every random stream of one call, as a ``numpy.random.SeedSequence``.

    ``seed``: ``None`` (fresh OS entropy), an int >= 0, a sequence of ints >= 0, a
    ``SeedSequence`` (returned as is) or a ``Generator`` (128 bits are drawn: it advances).
    Streams derive from the root by position (``spawn_key``), never by the order of the draws.

    Examples
    --------
    >>> seed_sequence(7).entropy, seed_sequence([7, 2, 0]).entropy
    (7, [7, 2, 0])
    """
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence([int(v) for v in seed.integers(0, 2**32, size=4)])
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, (list, tuple)) and seed:
        return np.random.SeedSequence([check_int(v, f"{name}[{i}]", 0) for i, v in enumerate(seed)])
    return np.random.SeedSequence(check_int(seed, name, 0))


def generator(seed: Any, name: str = "seed") -> np.random.Generator:
    """The generator of a random function from its ``seed`` (any form :func:`seed_sequence`
    takes): a ``Generator`` is used as is (it advances), anything else becomes
    ``default_rng(seed_sequence(seed))``, the same stream ``default_rng(seed)`` gives.

    Examples
    --------
    >>> bool(generator([3, 1]).integers(100) == np.random.default_rng([3, 1]).integers(100))
    True
    """
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed_sequence(seed, name))


def check_seed(seed: Any, name: str = "seed") -> None:
    """Refuse (``TypeError``/``ValueError``) a seed other than ``None``, an int >= 0 or a
    ``Generator``.

    Examples
    --------
    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    ValueError: seed must be in >= 0, got -1
    """
    if seed is None or isinstance(seed, np.random.Generator):
        return
    check_int(seed, name, 0)


def as_numeric_array(value: Any, name: str) -> np.ndarray:
    """``np.asarray(value)`` (integer or floating dtype, any shape); booleans, strings, objects,
    ragged nesting, NaN and Inf are refused with a message naming ``name``.

    Examples
    --------
    >>> as_numeric_array([1.0, float("nan")], "grads")
    Traceback (most recent call last):
    ...
    ValueError: grads must be finite; it contains NaN or Inf
    """
    if value is None:
        raise TypeError(f"{name} must be an array of numbers, got None")
    try:
        arr = np.asarray(value)
    except ValueError as exc:  # numpy >= 1.24 refuses ragged nested sequences
        raise ValueError(f"{name} must be a rectangular array; got ragged input ({exc})") from None
    if arr.dtype == object:
        raise ValueError(
            f"{name} must be a rectangular numeric array; got ragged or mixed-type "
            "input (or integers beyond the int64 range)"
        )
    if arr.dtype == bool or not (
        np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
    ):
        raise TypeError(f"{name} must hold integers or floats, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.floating) and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite; it contains NaN or Inf")
    return arr


def check_bit_array(value: Any, name: str = "bits") -> np.ndarray:
    """A 1-D array of 0/1 values, returned as ``uint8``.

    Examples
    --------
    >>> check_bit_array([0, 2])
    Traceback (most recent call last):
    ...
    ValueError: bits must contain only 0 and 1
    """
    arr = as_numeric_array(value, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (a stream of bits), got shape {arr.shape}")
    if arr.size:
        if np.issubdtype(arr.dtype, np.integer):
            # Two reductions instead of two full-size comparisons (streams run to 10^7 bits).
            ok = arr.max() <= 1 and (np.issubdtype(arr.dtype, np.unsignedinteger) or arr.min() >= 0)
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
    if n_bits is not None:
        n_bits = check_int(n_bits, "n_bits", max(8 * size - 7, 0), 8 * size)
    return arr.astype(np.uint8, copy=False), 8 * size if n_bits is None else n_bits


#: The most memory one array built from a size argument may take (refused up front).
MAX_BYTES = 2**31


def check_memory(n_bytes: float, name: str, value: Any) -> None:
    """Refuse ``value`` of the argument ``name`` if it needs ``n_bytes`` > :data:`MAX_BYTES`.

    Examples
    --------
    >>> check_memory(8 * 10**12, "d", 10**12)
    Traceback (most recent call last):
    ...
    ValueError: d = 1000000000000 needs 7.45e+03 GiB of memory; the limit is 2 GiB
    """
    if n_bytes > MAX_BYTES:
        raise ValueError(
            f"{name} = {value} needs {n_bytes / 2**30:.3g} GiB of memory; "
            f"the limit is {MAX_BYTES / 2**30:g} GiB"
        )


def check_name(value: Any, name: str = "name") -> str:
    """A label argument (shown in messages or plots) must be a string.

    Examples
    --------
    >>> check_name(3)
    Traceback (most recent call last):
    ...
    TypeError: name must be a string, got int 3
    """
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {type(value).__name__} {value!r}")
    return value


def _range_text(lo: int | None, hi: int | None) -> str:
    if lo is not None and hi is not None:
        return f"{lo}..{hi}"
    return f">= {lo}" if lo is not None else f"<= {hi}"
