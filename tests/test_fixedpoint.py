"""Fixed-point code and modular arithmetic (qring_edu.fixedpoint, book/01_bottleneck.ipynb).

Reference values are computed independently with Python integers (unbounded, exact) so that a
wrong mask, sign extension or scale in the library cannot agree with its own test.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from qring_edu.fixedpoint import fixed_point, modular_sum, to_signed, to_words

BITS = st.integers(2, 32)
WORKERS = st.integers(2, 64)
INT64 = st.integers(-(2**63), 2**63 - 1)


def py_residue(v: int, bits: int) -> int:
    """Two's-complement residue of a Python int modulo 2**bits."""
    return v % (1 << bits)


def py_signed(r: int, bits: int) -> int:
    """Residue in [0, 2**bits) -> signed value in [-2**(bits-1), 2**(bits-1))."""
    r %= 1 << bits
    return r - (1 << bits) if r >= 1 << (bits - 1) else r


# ------------------------------------------------------------------------------------------------
# to_words / to_signed
# ------------------------------------------------------------------------------------------------


@given(values=st.lists(INT64, min_size=1, max_size=40), bits=BITS)
def test_to_words_is_twos_complement_residue(values, bits):
    words = to_words(np.array(values, dtype=np.int64), bits)
    assert words.dtype == np.uint32
    assert [int(w) for w in words] == [py_residue(v, bits) for v in values]


@given(values=st.lists(INT64, min_size=1, max_size=40), bits=BITS)
def test_to_signed_inverts_to_words(values, bits):
    signed = to_signed(to_words(np.array(values, dtype=np.int64), bits), bits)
    assert signed.dtype == np.int64
    assert [int(s) for s in signed] == [py_signed(v, bits) for v in values]
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    assert all(lo <= int(s) <= hi for s in signed)


@given(bits=BITS)
def test_signed_range_roundtrips_exactly(bits):
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    vals = np.array(sorted({lo, lo + 1, -1, 0, 1, hi - 1, hi}), dtype=np.int64)
    np.testing.assert_array_equal(to_signed(to_words(vals, bits), bits), vals)


def test_known_twos_complement_words():
    # -1 is all ones, the most negative value is the top bit alone.
    assert int(to_words(np.array([-1]), 8)[0]) == 0xFF
    assert int(to_words(np.array([-128]), 8)[0]) == 0x80
    assert int(to_words(np.array([-1]), 32)[0]) == 0xFFFFFFFF
    assert int(to_signed(np.array([0x80]), 8)[0]) == -128
    assert int(to_signed(np.array([0x7F]), 8)[0]) == 127
    assert int(to_signed(np.array([0xFFFFFFFF], dtype=np.uint32), 32)[0]) == -1
    # int64, whatever the words' dtype: sums and differences of signed values do not wrap
    assert to_signed(np.array([0xFFFF], dtype=np.uint32), 16).dtype == np.int64


# ------------------------------------------------------------------------------------------------
# modular_sum
# ------------------------------------------------------------------------------------------------


@given(
    data=st.data(),
    P=st.integers(2, 12),
    d=st.integers(1, 12),
    bits=BITS,
)
def test_modular_sum_matches_python_ints(data, P, d, bits):
    rows = data.draw(st.lists(st.lists(INT64, min_size=d, max_size=d), min_size=P, max_size=P))
    got = modular_sum(np.array(rows, dtype=np.int64), bits)
    want = [py_signed(sum(rows[k][j] for k in range(P)), bits) for j in range(d)]
    assert got.shape == (d,)
    assert [int(v) for v in got] == want


def test_modular_sum_wraps():
    # 127 + 1 wraps to -128 in 8-bit two's complement; -128 + -1 wraps to 127.
    got = modular_sum(np.array([[127, -128], [1, -1]]), 8)
    assert got.tolist() == [-128, 127]


# ------------------------------------------------------------------------------------------------
# fixed_point: scale, round trip, no overflow
# ------------------------------------------------------------------------------------------------


@given(P=WORKERS, bits=BITS)
def test_scale_is_integer_cap_over_max_abs(P, bits):
    top = (1 << (bits - 1)) - 1
    if top < P:
        with pytest.raises(ValueError, match="bits"):
            fixed_point(P, bits, 1.0)
        return
    code = fixed_point(P, bits, 2.5)
    assert code.cap == top // P
    assert code.scale == pytest.approx(code.cap / 2.5, rel=1e-15)
    assert code.error_bound == pytest.approx(P / (2 * code.scale), rel=1e-15)
    # The cap is what makes P worst-case values fit: P * cap <= 2**(bits-1) - 1.
    assert P * code.cap <= top


@given(
    P=st.integers(2, 16),
    bits=st.integers(6, 32),
    max_abs=st.floats(1e-3, 1e3),
    data=st.data(),
)
def test_encode_decode_roundtrip_error_at_most_half_step(P, bits, max_abs, data):
    code = fixed_point(P, bits, max_abs)
    x = data.draw(
        hnp.arrays(
            np.float64, st.integers(1, 30), elements=st.floats(-max_abs, max_abs, allow_nan=False)
        )
    )
    back = code.decode(code.encode(x))
    # Rounding to the nearest multiple of 1/s: at most 1/(2s), plus float64 noise.
    assert np.all(np.abs(back - x) <= 1 / (2 * code.scale) * (1 + 1e-9) + 1e-12 * max_abs)


# Every (P, bits) with at least one level per worker (smaller bits are refused: test_validation).
WORST_CASES = [
    (P, bits)
    for P in (2, 3, 4, 5, 7, 8, 16, 33, 100)
    for bits in (3, 4, 5, 8, 11, 16, 17, 24, 31, 32)
    if (1 << (bits - 1)) - 1 >= P
]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("P,bits", WORST_CASES)
def test_worst_case_sum_never_overflows(P, bits, dtype):
    """All P workers at +max_abs (or -max_abs): the encoded sum must stay in the signed range."""
    max_abs = 0.75
    code = fixed_point(P, bits, max_abs)
    top = (1 << (bits - 1)) - 1
    for sign in (+1, -1):
        x = np.full(3, sign * max_abs, dtype=dtype)
        words = code.encode(x)
        enc = int(to_signed(words, bits)[0])
        assert abs(enc) <= code.cap  # each worker stays within its cap
        total = P * enc  # Python int: what the ring adds modulo 2**bits
        assert -top <= total <= top
        # and hence the wrapped sum decodes to the true sum (sign preserved, within the bound)
        wrapped = py_signed(total, bits)
        assert wrapped == total
        assert abs(wrapped / code.scale - sign * P * max_abs) <= code.error_bound * (1 + 1e-9)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_encode_of_narrow_floats_is_as_accurate_as_float64(dtype):
    """Quantisation must not depend on the input's float width: the product x*s is formed in
    float64 (in float32 it rounds by up to 2**-24 * cap words, and can exceed the cap)."""
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, 4096).astype(dtype)
    for P, bits in [(2, 32), (3, 24), (4, 16)]:
        code = fixed_point(P, bits, 1.0)
        np.testing.assert_array_equal(code.encode(x), code.encode(x.astype(np.float64)))


def test_encode_refuses_values_beyond_max_abs():
    code = fixed_point(4, 16, 1.0)
    with pytest.raises(ValueError, match="max_abs"):
        code.encode(np.array([0.5, -1.0000001]))


def test_encode_and_decode_keep_the_shape_and_agree_with_out():
    """Any shape, a 0-d value included; decode(dtype=...) and decode(out=...) give the same
    floats: the float64 quotient rounded once to the output type."""
    code = fixed_point(3, 16, 1.0)
    assert code.encode(0.5).shape == () and int(code.encode(0.5)) == round(0.5 * code.scale)
    words = code.encode(np.random.default_rng(2).uniform(-1, 1, (4, 5)))
    assert words.shape == (4, 5) and words.dtype == np.uint32
    out = np.empty((4, 5), dtype=np.float32)
    code.decode(words, out=out)
    assert np.array_equal(code.decode(words, dtype=np.float32), out)
    assert code.decode(words, dtype=np.float32).dtype == np.float32
    assert np.array_equal(out, (to_signed(words, 16) / code.scale).astype(np.float32))


def test_encode_into_the_inputs_own_memory_gives_the_same_words():
    """``out=x.view(np.uint32)`` (what the DDP hook does with a float32 bucket) reads x in full
    before writing; a wrong ``out`` is refused, not filled."""
    code = fixed_point(2, 16, 1.0)
    x = np.random.default_rng(3).uniform(-1, 1, 1001).astype(np.float32)
    want = code.encode(x)
    for bad in (np.empty(1001, np.float32), np.empty(1000, np.uint32), [0] * 1001):
        with pytest.raises(TypeError, match=r"out must be a uint32 array of shape \(1001,\)"):
            code.encode(x, out=bad)
    got = code.encode(x, out=x.view(np.uint32))
    assert np.shares_memory(got, x) and np.array_equal(got, want)
