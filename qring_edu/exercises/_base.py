"""Feedback objects and answer coercion shared by every exercise checker (presentation floor).

A checker ``check_<name>(answer, ...) -> Feedback`` never raises on a student's answer: ``None``
means "not attempted"; wrong shapes, types or values become a failing ``Feedback`` with a hint.
Student input is never evaluated as code.

One rule for numeric answers, in every chapter (:func:`as_number`): a number is a Python or
NumPy real (or a 0-d numeric array), finite. Booleans are refused (``True`` is not the answer
``1``), and so are strings, which are never parsed (``"0.5"`` gets the hint to drop the quotes).
:func:`compare_number`, :func:`as_integer`, :func:`compare_integer` and :func:`close` all apply it.

Code exercises ("build it yourself") pass the reader's *function* to a checker, which calls it on
random instances (:func:`call_student`): ``None`` or a function that still raises
``NotImplementedError`` (the stub the chapter hands out) is "not attempted"; a function that
crashes gives a readable failing message naming the input, never a traceback.
"""

from __future__ import annotations

import html
import math
import numbers
from dataclasses import dataclass

import numpy as np

__all__ = ["Feedback", "not_attempted", "passed", "failed", "compare_number", "compare_integer",
           "compare_array", "as_number", "as_integer", "close", "bad_parameters", "call_student"]


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
    """A finite real from the student's answer (Python or NumPy scalar, or a 0-d numeric array),
    or ``(None, failing Feedback)``: "not attempted" for ``None``; bools and strings are
    refused, never parsed. Never raises.

    Examples
    --------
    >>> as_number(np.float64(0.5), "x")
    (0.5, None)
    >>> as_number("0.5", "x")[1].message
    'x: expected a number, got str (write the number itself, without quotes).'
    """
    if answer is None:
        return None, not_attempted(what)
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
    """An integer from the answer (ints, or numbers with an integral value such as ``3.0``),
    else ``(None, failing Feedback)``; the same rule as :func:`as_number` otherwise.

    Examples
    --------
    >>> as_integer(3.0, "n")
    (3, None)
    >>> as_integer(2.5, "n")[1].message
    'n: expected a whole number, got 2.5.'
    """
    value, fb = as_number(answer, what)
    if fb is not None:
        return None, fb
    if value != int(value):
        return None, failed(f"{what}: expected a whole number, got {value:g}.")
    if isinstance(answer, numbers.Integral):
        return int(answer), None  # exact, even beyond 2**53
    return int(value), None


def close(answer, value: float, *, tol: float = 0.0, rel: float = 0.0) -> bool:
    """True when ``answer`` is a number (:func:`as_number`) within ``tol + rel * |value|`` of
    ``value``; False for anything else (a checker's test for a known wrong answer).

    Examples
    --------
    >>> close(0.5005, 0.5, tol=1e-3), close("0.5", 0.5, tol=1), close(True, 1.0, tol=0.5)
    (True, False, False)
    """
    v, fb = as_number(answer, "")
    return fb is None and abs(v - value) <= tol + rel * abs(value)


def bad_parameters(exc: Exception) -> Feedback:
    """Feedback for a checker called with invalid exercise parameters (not the student's fault)."""
    return failed(f"The exercise parameters are invalid ({exc}); re-run the exercise cell "
                  "with the values given in the text.")


def compare_number(answer, expected: float, *, tol: float, what: str) -> Feedback:
    """Pass if ``answer`` is a number (:func:`as_number`) within ``tol`` (absolute) of
    ``expected``.

    Examples
    --------
    >>> compare_number(0.5, 0.5, tol=1e-6, what="rate").passed
    True
    >>> compare_number("0.5", 0.5, tol=1e-6, what="rate").passed
    False
    """
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    if abs(value - expected) <= tol:
        return passed(f"{what}: correct ({value:g}).")
    return failed(f"{what}: {value:g} is not right (tolerance {tol:g}). Check your formula.")


def compare_integer(answer, expected: int, *, what: str, hint: str = "") -> Feedback:
    """Pass if ``answer`` is the whole number ``expected`` (:func:`as_integer`); a wrong value
    fails with ``hint``.

    Examples
    --------
    >>> compare_integer(512.0, 512, what="transcripts").passed
    True
    """
    value, fb = as_integer(answer, what)
    if fb is not None:
        return fb
    if value == expected:
        return passed(f"{what}: correct ({expected}).")
    return failed(f"{what}: {value} is not right." + (f" {hint}" if hint else ""))


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


def call_student(function, name: str, *args, where: str = "") -> tuple[object, Feedback | None]:
    """Call the reader's ``function(*args)`` for a code checker: ``(result, None)``, or
    ``(None, failing Feedback)`` when there is nothing to grade or the call crashed. Never raises
    (except ``KeyboardInterrupt``/``SystemExit``).

    ``None``, or a function raising ``NotImplementedError`` (the stub a chapter hands out), is
    "not attempted"; something that is not callable, or a function raising any other exception,
    gives a failing feedback naming ``name``, the exception and ``where`` (the input, e.g.
    ``"settings 'XYY'"``).

    Examples
    --------
    >>> call_student(lambda n: 2 * n, "double", 21)
    (42, None)
    >>> call_student(lambda n: 1 / n, "inverse", 0, where="n = 0")[1].message
    'inverse raised ZeroDivisionError (division by zero) on n = 0; fix it and re-run this cell.'
    """
    if function is None:
        return None, Feedback(False, f"Not attempted yet: write the function {name}, then run "
                                     "this cell.")
    if not callable(function):
        return None, failed(f"{name} must be a function (def {name}(...): ...), got "
                            f"{type(function).__name__}.")
    try:
        return function(*args), None
    except NotImplementedError:
        return None, Feedback(False, f"Not attempted yet: in {name}, replace the line raising "
                                     "NotImplementedError with your code, then run this cell.")
    except Exception as exc:  # the reader's code: report it, never propagate a traceback
        detail = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
        on = f" on {where}" if where else ""
        text = f" ({detail})" if detail else ""
        return None, failed(f"{name} raised {type(exc).__name__}{text}{on}; fix it and re-run "
                            "this cell.")
