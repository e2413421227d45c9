"""Exercise checkers of chapter 4, *Verified GHZ aggregation* (presentation floor).

Every ``check_<name>(answer, ...)`` compares the student's answer with the library and returns a
:class:`~qring_edu.exercises.Feedback`. ``answer=None`` means "not attempted"; any other input,
however malformed, gives a failing feedback with a hint — nothing raises and nothing is evaluated.
Tolerances are stated in each docstring.
"""

from __future__ import annotations

import math

from .._validate import check_bits, check_float, check_int
from ..vga import known_pads_detection, vga_copy_counts
from ._base import (
    Feedback,
    as_number,
    bad_parameters,
    compare_integer,
    compare_number,
    failed,
    passed,
)

__all__ = [
    "check_phase_angle",
    "check_last_announcement",
    "check_transcript_count",
    "check_known_pads_survival",
    "check_ghz_copies_delivered",
]


def check_phase_angle(answer, x: int, qubit: int, bits: int) -> Feedback:
    """Phase (radians, in [0, 2 pi)) that ``Z^x`` puts on ``|1>`` of qubit ``qubit`` of a b-bit
    register: ``2 pi (x 2**qubit mod 2**b) / 2**b``. Tolerance 1e-6; answers are compared
    modulo 2 pi."""
    try:
        bits = check_bits(bits)
        qubit = check_int(qubit, "qubit", 0, bits - 1)
        x = check_int(x, "x", 0, (1 << bits) - 1)
    except (TypeError, ValueError) as exc:
        return bad_parameters(exc)
    what = f"phase on qubit {qubit} for x = {x}, b = {bits}"
    expected = 2 * math.pi * ((x << qubit) % (1 << bits)) / (1 << bits)
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    diff = (value - expected + math.pi) % (2 * math.pi) - math.pi
    if abs(diff) <= 1e-6:
        return passed(f"{what}: correct ({expected:.6f} rad).")
    return failed(f"{what}: {value:.6f} rad is not right. Qubit i has weight 2**i, so "
                  "Z^x multiplies |1> by exp(2 pi i x 2**i / 2**b).")


def check_last_announcement(answer, others, total: int, bits: int) -> Feedback:
    """Given the announcements ``others`` of workers 0..P-2 and the sum ``total``, what must the
    last worker have announced? ``(total - sum(others)) mod 2**b``, exactly."""
    try:
        bits = check_bits(bits)
        vals = [check_int(v, "others", 0, (1 << bits) - 1) for v in others]
        total = check_int(total, "total", -(1 << bits), (1 << bits) - 1)
    except (TypeError, ValueError) as exc:
        return bad_parameters(exc)
    expected = (total - sum(vals)) % (1 << bits)
    return compare_integer(answer, expected, what="last announcement",
                           hint="The announcements add up to the sum modulo 2**b; give a word "
                                f"in 0..{(1 << bits) - 1}.")


def check_transcript_count(answer, workers: int, bits: int) -> Feedback:
    """How many transcripts ``(m_0, ..., m_{P-1})`` are consistent with a given sum (each has the
    same probability)? ``2**(b (P - 1))``, exactly."""
    try:
        workers = check_int(workers, "workers", 2, 64)
        bits = check_bits(bits)
    except (TypeError, ValueError) as exc:
        return bad_parameters(exc)
    return compare_integer(answer, 2 ** (bits * (workers - 1)), what="number of transcripts",
                           hint="P - 1 announcements are free; the last one is fixed by the sum.")


def check_known_pads_survival(answer, tests: int, workers: int) -> Feedback:
    """Probability that a known-pads source passes ``tests`` qubit GHZ tests among ``workers``
    workers: ``(1 - delta_P)**tests`` with ``delta_P = (1 - 2**(1-P))/2``. Relative tolerance
    1e-3 (absolute 1e-12 for tiny values)."""
    try:
        tests = check_int(tests, "tests", 0, 10_000)
        delta = known_pads_detection(workers)
    except (TypeError, ValueError) as exc:
        return bad_parameters(exc)
    expected = (1.0 - delta) ** tests
    fb = compare_number(answer, expected, tol=max(1e-3 * expected, 1e-12),
                        what=f"survival probability after {tests} tests")
    if not fb.passed and answer is not None and "expected a" not in fb.message:
        return failed(fb.message + " Each test is passed with probability (1 + 2**(1-P))/2, "
                      "independently.")
    return fb


def check_ghz_copies_delivered(answer, entries: int, bits: int, test_fraction: float) -> Feedback:
    """Qubit GHZ copies the source must deliver for ``entries`` entries of ``bits`` bits when a
    fraction ``test_fraction`` of the register-copies is tested: ``ceil(d / (1 - f)) * b``."""
    try:
        bits = check_bits(bits)
        f = check_float(test_fraction, "test_fraction", 0.0, 1.0, hi_open=True)
        n_copies, _ = vga_copy_counts(entries, f)
    except (TypeError, ValueError) as exc:
        return bad_parameters(exc)
    return compare_integer(answer, n_copies * bits, what="qubit GHZ copies delivered",
                           hint="Each entry uses one register of b qubit GHZ states, and only a "
                                "fraction 1 - f of the delivered registers is used.")
