"""Feedback objects and answer coercion shared by every exercise checker (presentation floor).

A checker ``check_<name>(answer, ...) -> Feedback`` never raises on a student's answer: ``None``
means "not attempted"; wrong shapes, types or values become a failing ``Feedback`` with a hint.
Student input is never evaluated as code. A numeric answer is a finite Python or NumPy real (or
0-d numeric array), never a bool or a string (:func:`as_number`, used by every comparison).

Code-graded ("build it yourself") exercises take the reader's *function*, called through
:func:`call_reader` on seeded instances and compared with the library; the first failing
instance is reported with a hint. The *other* arguments of a checker describe the exercise and
are validated like library arguments (:func:`checker`). Tolerances are in each docstring.
"""

from __future__ import annotations

import functools
import html
import math
import numbers
import sys
import traceback
import types
from contextlib import ExitStack, contextmanager

import numpy as np

from .._result import result

__all__ = [
    "Feedback",
    "not_attempted",
    "passed",
    "failed",
    "compare_number",
    "compare_integer",
    "grade",
    "as_number",
    "as_integer",
    "close",
    "bad_parameters",
    "checker",
    "call_reader",
    "Forbidden",
    "forbidden",
    "pristine",
]


@result
class Feedback:
    """Result of a checker: ``passed`` and a message for the student.

    In a notebook it shows as one coloured line (``_repr_html_``: ✔ green, ✘ red).

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

    def _repr_html_(self) -> str:
        colour, mark = ("#1a7f37", "✔") if self.passed else ("#a40000", "✘")
        return f'<p style="color:{colour}">{mark} {html.escape(self.message)}</p>'


def not_attempted(what: str = "this exercise") -> Feedback:
    """The failing feedback for an answer left at ``None``.

    Examples
    --------
    >>> not_attempted("the link bits").message
    'Not attempted yet: replace None with your answer to the link bits.'
    """
    return Feedback(False, f"Not attempted yet: replace None with your answer to {what}.")


def passed(message: str = "Correct.") -> Feedback:
    """A passing :class:`Feedback` with ``message``.

    Examples
    --------
    >>> passed()
    Feedback(passed=True, message='Correct.')
    """
    return Feedback(True, message)


def failed(message: str) -> Feedback:
    """A failing :class:`Feedback` with ``message`` (say what is wrong and give a hint).

    Examples
    --------
    >>> failed("Count both phases.").passed
    False
    """
    return Feedback(False, message)


def as_number(answer, what: str) -> tuple[float | None, Feedback | None]:
    """A finite real from the student's answer, or ``(None, failing Feedback)`` ("not attempted"
    for ``None``; bools and strings are refused, never parsed). Never raises.

    Examples
    --------
    >>> import numpy as np
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
    """Feedback for a checker called with invalid exercise parameters (not the student's fault).

    Examples
    --------
    >>> bad_parameters(ValueError("P must be >= 2, got 1")).message
    'The exercise parameters are invalid (P must be >= 2, got 1); re-run the exercise cell with the values given in the text.'
    """
    return failed(
        f"The exercise parameters are invalid ({exc}); re-run the exercise cell "
        "with the values given in the text."
    )


def checker(function):
    """Decorator of a checker: the ``ValueError`` or ``TypeError`` that its invalid exercise
    parameters raise becomes :func:`bad_parameters` feedback.

    Examples
    --------
    >>> from qring_edu._validate import check_float
    >>> @checker
    ... def check_half(answer, n):
    ...     return compare_number(answer, check_float(n, "n") / 2, tol=0, what="n / 2")
    >>> check_half(1, "two").message.startswith("The exercise parameters are invalid (n")
    True
    """

    @functools.wraps(function)
    def check(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except (TypeError, ValueError) as exc:
            return bad_parameters(exc)

    return check


def compare_number(answer, expected: float, *, tol: float, what: str, hint: str = "") -> Feedback:
    """Pass if ``answer`` is a number (:func:`as_number`) within ``tol`` (absolute) of
    ``expected``; a wrong value fails with ``hint``.

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
    wrong = f"{what}: {value:g} is not right (tolerance {tol:g}). Check your formula."
    return failed(wrong + (f" {hint}" if hint else ""))


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


def grade(value: float, expected, what: str, cases: dict, *, tol=0.0, rel=0.0) -> Feedback:
    """Feedback on the number ``value`` from the table ``cases`` ``{answer: message}``, each
    message after ``f"{what}: "``: it passes with ``cases[expected]`` when within
    ``tol + rel·|expected|`` of ``expected``; else it fails with the message of the first key (a
    number or a tuple of numbers; ``None`` is skipped) it is that close to, else with
    ``cases[...]``. Write the ``expected`` entry after the wrong answers, so that a wrong answer
    equal to it is never reported.

    Examples
    --------
    >>> cases = {8: "you doubled it.", 4: "correct.", ...: "not right."}
    >>> grade(8, 4, "n", cases).message, grade(4.0, 4, "n", cases).passed
    ('n: you doubled it.', True)
    """

    def near(targets) -> bool:
        targets = targets if isinstance(targets, tuple) else (targets,)
        return any(t is not None and abs(value - t) <= tol + rel * abs(t) for t in targets)

    if expected is not None and near(expected):
        return passed(f"{what}: {cases[expected]}")
    for key, message in cases.items():
        if key is not ... and key != expected and near(key):
            return failed(f"{what}: {message}")
    return failed(f"{what}: {cases[...]}")


def call_reader(
    function,
    *args,
    name: str | None = None,
    case: str = "",
    stop: tuple[type[BaseException], ...] = (),
    forbid: tuple[str, ...] = (),
):
    """``function(*args)`` for the code-graded exercises: ``(result, None)`` or ``(None, failing
    Feedback)``. Never raises (``KeyboardInterrupt`` and ``SystemExit`` pass).

    "Not attempted" for ``None`` or ``NotImplementedError`` (the chapter's stub); when the call
    raises, the exception, the line of the reader's function it came from and ``case``;
    exceptions of the types in ``stop`` (the checker halting the reader's code) give their
    message as is. ``name``: label (default ``__name__``). ``forbid``: library functions the
    call may not use (``pristine().forbidden(*forbid, student=function)``).

    Examples
    --------
    >>> call_reader(lambda x: 2 * x, 21)
    (42, None)
    >>> def invert(x):
    ...     return 1 / x
    >>> print(call_reader(invert, 0, case="x = 0")[1].message)
    invert: line 2 of your function (`return 1 / x`) raised ZeroDivisionError: division by zero when called with (0), on x = 0. Fix your function and run the check again.
    """
    label = name or getattr(function, "__name__", "your function")
    if function is None:
        return None, not_a_function(function, label)
    if not callable(function):
        return None, failed(
            f"{label}: expected a function (the name of the function you "
            f"defined, without calling it), got {type(function).__name__}."
        )
    if isinstance(forbid, str):
        raise TypeError(f"forbid: expected a tuple of function names, got the str {forbid!r}")
    with ExitStack() as guarded:
        refused: tuple[type[BaseException], ...] = ()
        if forbid:
            guard = pristine()
            refused = (guard.Forbidden,)
            try:
                guarded.enter_context(guard.forbidden(*forbid, student=function))
            except guard.Forbidden as exc:
                return None, failed(str(exc))
        try:
            return function(*args), None
        except refused as exc:
            return None, failed(f"{label}: {exc}")
        except stop as exc:
            return None, failed(str(exc))
        except NotImplementedError:  # the stub the chapter hands out, not yet filled in
            return None, failed(
                f"Not attempted yet: in {label}, replace the line raising "
                "NotImplementedError with your code, then run this cell."
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


def not_a_function(fn, what: str) -> Feedback | None:
    """Feedback for a code-graded answer that is not a function (``None``: not attempted)."""
    if fn is None:
        return failed(
            f"Not attempted yet: write your function for {what} and pass it (its name, "
            "without parentheses) instead of None."
        )
    if not callable(fn):
        return failed(
            f"{what}: expected your function itself (its name, without parentheses), "
            f"got {type(fn).__name__}."
        )
    return None


def nan_entropy(got, what: str, case: str) -> Feedback | None:
    """The hint for an entropy that came out NaN (``0 · log 0`` computed as NaN), else None."""
    if isinstance(got, (numbers.Real, np.ndarray)) and np.ndim(got) == 0 and np.isnan(got):
        return failed(
            f"{what}: on {case} you returned nan. An eigenvalue 0 (or a tiny negative one "
            "from rounding) makes λ log2 λ nan; 0 · log 0 counts as 0, so keep only the "
            "eigenvalues above 1e-12."
        )
    return None


def random_density(rng: np.random.Generator, d: int, rank: int | None = None) -> np.ndarray:
    """A random d x d density matrix ``G G† / Tr`` (G complex Gaussian, d x rank; default full)."""
    g = rng.normal(size=(d, rank or d)) + 1j * rng.normal(size=(d, rank or d))
    rho = g @ g.conj().T
    return rho / np.trace(rho).real


def _short(value) -> str:
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
    """Raised when an answer uses a library function that its question forbids
    (:func:`forbidden`); each :func:`pristine` copy has its own class (or catch ``RuntimeError``).

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


def _functions_named(names) -> dict[int, tuple[types.FunctionType, str]]:
    """``{id: (function, name)}``: every object the names denote in any loaded ``qring_edu``
    module (different functions of the same name are all forbidden)."""
    found = {}
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"names: expected function names (str), got {type(name).__name__}")
        # vars(), not getattr(): the names each module binds itself, nothing a __getattr__ makes up
        objects = [
            vars(m)[name]
            for key, m in list(sys.modules.items())
            if (key == "qring_edu" or key.startswith("qring_edu."))
            and m is not None
            and callable(vars(m).get(name))
        ]
        if not objects:
            raise ValueError(f"names: {name!r} is not a function of any loaded qring_edu module")
        for obj in objects:
            if not isinstance(obj, types.FunctionType) or obj.__closure__:
                raise ValueError(
                    f"names: {name!r} is a {type(obj).__name__}, not a plain function; "
                    "only functions can be switched off"
                )
            found[id(obj)] = (obj, name)
    return found


def _reference(student, targets: dict[int, tuple[types.FunctionType, str]]):
    """``(name, path)`` when ``student`` refers to one of ``targets`` (the object, or a function
    or code object with the same code), else ``None``. Searched: the student's functions'
    defaults, closure cells and global names (nested code included), and in what they reach,
    containers, partials, methods, and the student's classes and instances."""
    home = getattr(student, "__globals__", None)
    home_name = home.get("__name__") if isinstance(home, dict) else None
    codes = [(f.__code__, name) for f, name in targets.values()]
    stack, seen = [(student, [])], set()
    while stack:
        obj, path = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if id(obj) in targets:
            return targets[id(obj)][1], path
        code = obj if isinstance(obj, types.CodeType) else None
        if isinstance(obj, types.FunctionType):
            code = obj.__code__
        for target_code, name in codes:
            if code is not None and code == target_code:
                return name, path
        children = []  # (object, how it was reached)
        if isinstance(obj, (tuple, list, set, frozenset)):
            children = [(item, f"an item of a {type(obj).__name__}") for item in obj]
        elif isinstance(obj, dict):
            children = [(v, f"the value of key {k!r}") for k, v in obj.items()]
        elif isinstance(obj, functools.partial):
            children = [(part, "a partial") for part in (obj.func, obj.args, obj.keywords)]
        elif isinstance(obj, (types.MethodType, staticmethod, classmethod)):
            children = [(obj.__func__, "a method")]
        elif isinstance(obj, types.FunctionType) and obj.__globals__ is home:
            label = obj.__name__
            names = obj.__code__.co_varnames
            n_pos = obj.__code__.co_argcount
            for i, value in enumerate(obj.__defaults__ or ()):
                arg = names[n_pos - len(obj.__defaults__) + i]
                children.append((value, f"the default value of {label}'s argument {arg}"))
            for arg, value in (obj.__kwdefaults__ or {}).items():
                children.append((value, f"the default value of {label}'s argument {arg}"))
            for var, cell in zip(obj.__code__.co_freevars, obj.__closure__ or ()):
                try:
                    children.append((cell.cell_contents, f"{label}'s closure variable {var}"))
                except ValueError:  # an empty cell (a variable not yet assigned)
                    pass
            pending = [obj.__code__]
            while pending:  # the global names of the function and of the code nested in it
                c = pending.pop()
                pending += [k for k in c.co_consts if isinstance(k, types.CodeType)]
                children += [(home[g], f"the name {g} in {label}") for g in c.co_names if g in home]
        elif isinstance(obj, type) and home_name is not None and obj.__module__ == home_name:
            children = [(v, f"class {obj.__name__}") for v in vars(obj).values()]
        elif type(obj).__module__ == home_name and home_name is not None:
            children = [(type(obj), "its class")] + [
                (v, f"attribute {k}") for k, v in getattr(obj, "__dict__", {}).items()
            ]
        stack += [(child, [*path, how]) for child, how in reversed(children)]
    return None


def _refused(*args, _qring_forbidden=None, **kwargs):
    """The code of a switched-off function: raises the exception its keyword default carries
    (it looks up no global name, so it runs in any module)."""
    exception, message = _qring_forbidden
    raise exception(message)


@contextmanager
def forbidden(*names: str, student=None):
    """Within the ``with`` block, the named public functions of ``qring_edu`` raise
    :class:`Forbidden`, and, before it starts, ``student`` (the answer under test) is refused if
    it refers to one of them.

    ``student`` (a function, or a tuple of them) is searched for the forbidden objects or a
    copy of their code: ``def f(P, d, _ra=ring_allreduce)`` is refused even if never called.
    Each forbidden function's ``__code__`` is swapped for a raising stub while the block lasts,
    so every way of reaching it (alias, holder, a library caller) is covered. Graders use the
    copy from :func:`pristine`, so rebinding ``forbidden`` in the student's code changes nothing.

    Raises
    ------
    Forbidden
        On entering the block, if ``student`` refers to a forbidden function; within it, when a
        forbidden function is called.
    ValueError
        If a name is not a function of any loaded ``qring_edu`` module, or not a plain function.

    Examples
    --------
    >>> import qring_edu as qr
    >>> def shortcut(P, d, bits, _ra=qr.ring_allreduce):
    ...     return 2 * (P - 1) * (d // P) * bits
    >>> try:
    ...     with forbidden("ring_allreduce", student=shortcut):
    ...         pass
    ... except Forbidden as exc:
    ...     print(exc)
    shortcut uses ring_allreduce (the default value of shortcut's argument _ra): ring_allreduce is not allowed in this question: compute the answer yourself.
    """
    targets = _functions_named(names)
    if student is not None:
        found = _reference(student, targets)
        if found is not None:
            name, path = found
            label = getattr(student, "__name__", "your answer")
            raise Forbidden(
                f"{label} uses {name} ({' → '.join(path) or 'itself'}): "
                f"{name} is not allowed in this question: compute the answer yourself."
            )
    saved = [(f, f.__code__, f.__kwdefaults__) for f, _ in targets.values()]
    try:
        for f, name in targets.values():
            f.__code__ = _refused.__code__.replace(co_name=name)
            f.__kwdefaults__ = {
                "_qring_forbidden": (
                    Forbidden,
                    f"{name} is not allowed in this question: compute the answer yourself.",
                )
            }
        yield
    finally:
        for f, code, kwdefaults in saved:
            f.__code__ = code
            f.__kwdefaults__ = kwdefaults


def pristine():
    """A fresh copy of this module, executed from its file into a module object only the caller
    holds; graders take :func:`forbidden` from it, since the student's code runs earlier in the
    same process and could rebind this module's names. (Instructors also grade in a throwaway
    container, ``make instructor``.)

    Examples
    --------
    >>> import contextlib
    >>> import qring_edu as qr
    >>> import qring_edu.exercises._base as base
    >>> original = base.forbidden
    >>> base.forbidden = contextlib.nullcontext          # what a student's cell could do
    >>> guard = pristine()
    >>> with guard.forbidden("ring_time"):
    ...     try:
    ...         qr.ring_time(4, 1000, 16, 1e-5, 1e-9)
    ...     except guard.Forbidden as exc:
    ...         print(exc)
    ring_time is not allowed in this question: compute the answer yourself.
    >>> base.forbidden = original
    """
    import importlib.util  # imported here: the copy must not depend on names of this module
    import inspect
    import sys as system

    path = inspect.currentframe().f_code.co_filename  # the file this function was compiled from
    spec = importlib.util.spec_from_file_location("qring_edu.exercises._base_pristine", path)
    module = importlib.util.module_from_spec(spec)
    # registered only while it executes (dataclasses look their module up there), then private
    system.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del system.modules[spec.name]
    return module
