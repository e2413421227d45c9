"""Feedback objects and comparison helpers shared by every exercise checker (presentation layer).

A checker ``check_<name>(answer, ...) -> Feedback`` never raises on a student's answer: ``None``
means "not attempted"; wrong shapes, types or values become a failing ``Feedback`` with a hint.
Student input is never evaluated as code.
"""

from __future__ import annotations

import html
import math
import numbers
from dataclasses import dataclass

import numpy as np

__all__ = ["Feedback", "not_attempted", "passed", "failed", "compare_number", "compare_array",
           "as_number", "as_integer", "bad_parameters"]


@dataclass(frozen=True)
class Feedback:
    """Result of a checker: ``passed`` and a message for the student."""

    passed: bool
    message: str

    def __repr__(self) -> str:
        return f"Feedback(passed={self.passed}, message={self.message!r})"

    def _repr_html_(self) -> str:
        colour, mark = ("#1a7f37", "✔") if self.passed else ("#a40000", "✘")
        return f'<p style="color:{colour}">{mark} {html.escape(self.message)}</p>'


def not_attempted(what: str = "this exercise") -> Feedback:
    return Feedback(False, f"Not attempted yet: replace None with your answer to {what}.")


def passed(message: str = "Correct.") -> Feedback:
    return Feedback(True, message)


def failed(message: str) -> Feedback:
    return Feedback(False, message)


def as_number(answer, what: str) -> tuple[float | None, Feedback | None]:
    """A finite real from the student's answer (Python or NumPy scalar), or ``(None, failing
    Feedback)``; bools and strings are refused, never parsed. Never raises."""
    if isinstance(answer, np.ndarray) and answer.shape == () and answer.dtype != bool and \
            np.issubdtype(answer.dtype, np.number):
        answer = answer.item()
    if isinstance(answer, (bool, np.bool_)) or not isinstance(answer, numbers.Real):
        hint = " (write the number itself, without quotes)." if isinstance(answer, str) else "."
        return None, failed(f"{what}: expected a number, got {type(answer).__name__}{hint}")
    value = float(answer)
    if not math.isfinite(value):
        return None, failed(f"{what}: expected a finite number, got {value}.")
    return value, None


def as_integer(answer, what: str) -> tuple[int | None, Feedback | None]:
    """An integer from the answer (ints, or floats with an integral value), else a Feedback."""
    value, fb = as_number(answer, what)
    if fb is not None:
        return None, fb
    if value != int(value):
        return None, failed(f"{what}: expected a whole number, got {value:g}.")
    return int(value), None


def bad_parameters(exc: Exception) -> Feedback:
    """Feedback for a checker called with invalid exercise parameters (not the student's fault)."""
    return failed(f"The exercise parameters are invalid ({exc}); re-run the exercise cell "
                  "with the values given in the text.")


def compare_number(answer, expected: float, *, tol: float, what: str) -> Feedback:
    """Pass if ``answer`` is a real number within ``tol`` (absolute) of ``expected``."""
    if answer is None:
        return not_attempted(what)
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return failed(f"{what}: expected a number, got {type(answer).__name__}.")
    if not np.isfinite(value):
        return failed(f"{what}: expected a finite number, got {value}.")
    if abs(value - expected) <= tol:
        return passed(f"{what}: correct ({value:g}).")
    return failed(f"{what}: {value:g} is not right (tolerance {tol:g}). Check your formula.")


def compare_array(answer, expected, *, what: str, tol: float = 0.0) -> Feedback:
    """Pass if ``answer`` has the expected shape and every entry is within ``tol``; otherwise
    report the shape mismatch or the first wrong entry."""
    if answer is None:
        return not_attempted(what)
    expected = np.asarray(expected)
    try:
        arr = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        return failed(f"{what}: expected an array of numbers with shape {expected.shape}.")
    if arr.shape != expected.shape:
        return failed(f"{what}: expected shape {expected.shape}, got {arr.shape}.")
    wrong = np.argwhere(~(np.abs(arr - expected) <= tol))
    if wrong.size:
        idx = tuple(int(i) for i in wrong[0])
        return failed(f"{what}: entry {idx} is {arr[idx]:g}, expected {float(expected[idx]):g} "
                      f"({len(wrong)} wrong entries in all).")
    return passed(f"{what}: correct.")
