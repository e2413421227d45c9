"""Feedback objects and answer coercion shared by every exercise checker (presentation floor).

A checker ``check_<name>(answer, ...) -> Feedback`` never raises on a student's answer: ``None``
means "not attempted"; wrong shapes, types or values become a failing ``Feedback`` with a hint.
Student input is never evaluated as code.

One rule for numeric answers, in every chapter (:func:`as_number`): a number is a Python or
NumPy real (or a 0-d numeric array), finite. Booleans are refused (``True`` is not the answer
``1``), and so are strings, which are never parsed (``"0.5"`` gets the hint to drop the quotes).
:func:`compare_number`, :func:`as_integer`, :func:`compare_integer` and :func:`close` all apply it.

Code-graded ("build it yourself") exercises take the reader's *function* as the answer: the
checker calls it on seeded random instances and compares with the library. :func:`call_reader`
is the one way to call it: ``None``, or the chapter's stub that still raises
``NotImplementedError``, is "not attempted"; a non-callable or a function that raises becomes a
failing :class:`Feedback` naming the exception and the instance, never a traceback.
"""

from __future__ import annotations

import html
import math
import numbers
import sys
import traceback
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

__all__ = [
    "Feedback",
    "not_attempted",
    "passed",
    "failed",
    "compare_number",
    "compare_integer",
    "compare_array",
    "as_number",
    "as_integer",
    "close",
    "bad_parameters",
    "call_reader",
    "Forbidden",
    "forbidden",
]


@dataclass(frozen=True)
class Feedback:
    """Result of a checker: ``passed`` and a message for the student.

    In a notebook it shows as one coloured line (``_repr_html_``: ✔ green, ✘ red).

    Attributes
    ----------
    passed : bool
    message : str

    Examples
    --------
    >>> from qring_edu.exercises import Feedback
    >>> Feedback(True, "Correct.")
    Feedback(passed=True, message='Correct.')
    >>> Feedback(False, "Check the units.")._repr_html_()
    '<p style="color:#a40000">✘ Check the units.</p>'
    """

    passed: bool
    message: str

    def __repr__(self) -> str:
        return f"Feedback(passed={self.passed}, message={self.message!r})"

    def _repr_html_(self) -> str:
        colour, mark = ("#1a7f37", "✔") if self.passed else ("#a40000", "✘")
        return f'<p style="color:{colour}">{mark} {html.escape(self.message)}</p>'


def not_attempted(what: str = "this exercise") -> Feedback:
    """The failing feedback for an answer left at ``None``.

    Examples
    --------
    >>> from qring_edu.exercises._base import not_attempted
    >>> not_attempted("the link bits").message
    'Not attempted yet: replace None with your answer to the link bits.'
    """
    return Feedback(False, f"Not attempted yet: replace None with your answer to {what}.")


def passed(message: str = "Correct.") -> Feedback:
    """A passing :class:`Feedback` with ``message``.

    Examples
    --------
    >>> from qring_edu.exercises._base import passed
    >>> passed()
    Feedback(passed=True, message='Correct.')
    """
    return Feedback(True, message)


def failed(message: str) -> Feedback:
    """A failing :class:`Feedback` with ``message`` (say what is wrong and give a hint).

    Examples
    --------
    >>> from qring_edu.exercises._base import failed
    >>> failed("Count both phases.").passed
    False
    """
    return Feedback(False, message)


def as_number(answer, what: str) -> tuple[float | None, Feedback | None]:
    """A finite real from the student's answer (Python or NumPy scalar, or a 0-d numeric array),
    or ``(None, failing Feedback)``: "not attempted" for ``None``; bools and strings are
    refused, never parsed. Never raises.

    Examples
    --------
    >>> import numpy as np
    >>> from qring_edu.exercises._base import as_number
    >>> as_number(np.float64(0.5), "x")
    (0.5, None)
    >>> as_number("0.5", "x")[1].message
    'x: expected a number, got str (write the number itself, without quotes).'
    """
    if answer is None:
        return None, not_attempted(what)
    if (
        isinstance(answer, np.ndarray)
        and answer.shape == ()
        and answer.dtype != bool
        and np.issubdtype(answer.dtype, np.number)
    ):
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
    >>> from qring_edu.exercises._base import as_integer
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
    >>> from qring_edu.exercises._base import close
    >>> close(0.5005, 0.5, tol=1e-3), close("0.5", 0.5, tol=1), close(True, 1.0, tol=0.5)
    (True, False, False)
    """
    v, fb = as_number(answer, "")
    return fb is None and abs(v - value) <= tol + rel * abs(value)


def bad_parameters(exc: Exception) -> Feedback:
    """Feedback for a checker called with invalid exercise parameters (not the student's fault).

    Examples
    --------
    >>> from qring_edu.exercises._base import bad_parameters
    >>> bad_parameters(ValueError("P must be >= 2, got 1")).message
    'The exercise parameters are invalid (P must be >= 2, got 1); re-run the exercise cell with the values given in the text.'
    """
    return failed(
        f"The exercise parameters are invalid ({exc}); re-run the exercise cell "
        "with the values given in the text."
    )


def compare_number(answer, expected: float, *, tol: float, what: str) -> Feedback:
    """Pass if ``answer`` is a number (:func:`as_number`) within ``tol`` (absolute) of
    ``expected``.

    Examples
    --------
    >>> from qring_edu.exercises._base import compare_number
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
    >>> from qring_edu.exercises._base import compare_integer
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
    report the shape mismatch or the first wrong entry.

    Examples
    --------
    >>> from qring_edu.exercises._base import compare_array
    >>> compare_array([[1, 2], [3, 4]], [[1, 2], [3, 4]], what="sums").passed
    True
    >>> compare_array([1, 2, 5], [1, 2, 3], what="sums").message
    'sums: entry (2,) is 5, expected 3 (1 wrong entries in all).'
    >>> compare_array([1, 2], [1, 2, 3], what="sums").message
    'sums: expected shape (3,), got (2,).'
    """

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
        return failed(
            f"{what}: entry {idx} is {arr[idx]:g}, expected {float(expected[idx]):g} "
            f"({len(wrong)} wrong entries in all)."
        )
    return passed(f"{what}: correct.")


def call_reader(
    function,
    *args,
    name: str | None = None,
    case: str = "",
    stop: tuple[type[BaseException], ...] = (),
):
    """Call a function the reader wrote, for the code-graded exercises ("build it yourself"): the
    checker runs the reader's code, never evaluates text.

    Returns ``(result, None)``, or ``(None, failing Feedback)``: "not attempted" when
    ``function`` is ``None`` or raises ``NotImplementedError`` (the chapter's stub); a hint when it is not callable; when the call raises, the exception's
    type and message, the line of the reader's function it came from (when the source is known)
    and ``case``, a description of the instance. Exceptions of the types in ``stop`` (a checker's
    own way to halt the reader's code with a reason) give their message as is. Never raises itself
    (only ``KeyboardInterrupt`` and ``SystemExit`` pass through). ``name`` labels the function
    in the messages (default: its ``__name__``).

    Examples
    --------
    >>> call_reader(lambda x: 2 * x, 21)
    (42, None)
    >>> def invert(x):
    ...     return 1 / x
    >>> print(call_reader(invert, 0, case="x = 0")[1].message)
    invert: line 2 of your function (`return 1 / x`) raised ZeroDivisionError: division by zero when called with (0), on x = 0. Fix your function and run the check again.
    >>> call_reader(None, 1, name="my_ring")[1].message[:15]
    'Not attempted y'
    """
    label = name or getattr(function, "__name__", "your function")
    if function is None:
        return None, Feedback(
            False,
            f"Not attempted yet: write your function for {label} and "
            "pass it (its name, without parentheses) instead of None.",
        )
    if not callable(function):
        return None, failed(
            f"{label}: expected a function (the name of the function you "
            f"defined, without calling it), got {type(function).__name__}."
        )
    try:
        return function(*args), None
    except stop as exc:
        return None, failed(str(exc))
    except NotImplementedError:  # the stub the chapter hands out, not yet filled in
        return None, Feedback(
            False,
            f"Not attempted yet: in {label}, replace the line raising "
            "NotImplementedError with your code, then run this cell.",
        )
    except Exception as exc:  # noqa: BLE001 - any error of the reader's code becomes feedback
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        shown = ", ".join(_short(a) for a in args)
        return None, failed(
            f"{label}: {_crash_site(exc, function)} raised {type(exc).__name__}"
            + (f": {text}" if text else "")
            + f" when called with ({shown})"
            + (f", on {case}" if case else "")
            + ". Fix your function and run the check again."
        )


def _short(value) -> str:
    """A short printable form of an argument in a feedback message."""
    if isinstance(value, np.ndarray):
        return f"array of shape {value.shape}"
    if type(value).__name__ == "QuantumCircuit":
        return "qc"
    if callable(value):
        return getattr(value, "__name__", "<function>")
    if isinstance(value, float):
        return f"{value:.6g}"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _crash_site(exc: BaseException, function) -> str:
    """'line 7 of your function (`c = (k - s) % p`)' when the traceback reaches the reader's
    function's source, else 'your function'."""
    code = getattr(function, "__code__", None)
    if code is not None:
        frames = [
            f
            for f in traceback.extract_tb(exc.__traceback__)
            if f.filename == code.co_filename and f.lineno >= code.co_firstlineno
        ]
        if frames:
            f = frames[-1]
            where = f"line {f.lineno - code.co_firstlineno + 1} of your function"
            return where + (f" (`{f.line.strip()}`)" if f.line else "")
    return "your function"


class Forbidden(RuntimeError):
    """Raised by a library function that a graded question asked the student not to call.

    Examples
    --------
    >>> import qring_edu as qr
    >>> with forbidden("ring_time"):
    ...     try:
    ...         qr.ring_time(4, 1000, 16, 1e-5, 1e-9)
    ...     except Forbidden as err:
    ...         print(type(err).__name__)
    Forbidden
    """


@contextmanager
def forbidden(*names: str, namespace: dict | None = None):
    """Within the ``with`` block, the named public functions of ``qring_edu`` raise
    :class:`Forbidden` wherever they are reachable: as attributes of every loaded ``qring_edu``
    module that exposes the same object (``qr.ring_allreduce``, ``qring_edu.ring.ring_allreduce``),
    and under any name bound to it in ``namespace`` (a student's notebook globals, e.g.
    ``fn.__globals__``; aliases such as ``from qring_edu import ring_allreduce as ra`` are found
    by identity). Everything is restored on exit, also after an error.

    For the hidden tests of the assignments: "compute it without calling ``ring_allreduce``" is
    enforced by re-running the student's function inside this block; a shortcut then raises.

    Parameters
    ----------
    *names : str
        Names of functions of ``qring_edu`` or of one of its modules (e.g. ``"sketch_bits"``,
        which lives in ``qring_edu.gapip``).
    namespace : dict, optional
        A globals dictionary whose bindings to those functions are replaced too.

    Raises
    ------
    ValueError
        If a name is not a function of any loaded ``qring_edu`` module.

    Examples
    --------
    >>> import qring_edu as qr
    >>> def busiest(P, d, bits):
    ...     return qr.ring_allreduce(np.zeros((P, d), dtype=int), bits=bits).ledger.online_bits()
    >>> with forbidden("ring_allreduce"):
    ...     try:
    ...         busiest(4, 8, 8)
    ...     except Forbidden as exc:
    ...         print(exc)
    ring_allreduce is not allowed in this question: compute the answer yourself.
    >>> busiest(4, 8, 8)
    96
    """
    targets = {}
    for name in names:
        # vars(), not getattr(): the names each module binds itself, nothing a __getattr__ makes up
        found = [
            vars(m)[name]
            for key, m in list(sys.modules.items())
            if (key == "qring_edu" or key.startswith("qring_edu."))
            and m is not None
            and callable(vars(m).get(name))
        ]
        if not found:
            raise ValueError(f"names: {name!r} is not a function of any loaded qring_edu module")
        for obj in found:
            targets[id(obj)] = (obj, name)

    def stub(name):
        def refused(*args, **kwargs):
            raise Forbidden(f"{name} is not allowed in this question: compute the answer yourself.")

        refused.__name__ = name
        return refused

    saved = []  # (container, key, original, is_module)
    for key, m in list(sys.modules.items()):
        if not (key == "qring_edu" or key.startswith("qring_edu.")) or m is None:
            continue
        for attr, value in list(vars(m).items()):
            if id(value) in targets and value is targets[id(value)][0]:
                saved.append((m, attr, value, True))
    if namespace is not None:
        for attr, value in list(namespace.items()):
            if id(value) in targets and value is targets[id(value)][0]:
                saved.append((namespace, attr, value, False))
    try:
        for container, attr, value, is_module in saved:
            replacement = stub(targets[id(value)][1])
            if is_module:
                setattr(container, attr, replacement)
            else:
                container[attr] = replacement
        yield
    finally:
        for container, attr, value, is_module in saved:
            if is_module:
                setattr(container, attr, value)
            else:
                container[attr] = value
