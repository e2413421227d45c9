"""Exercise checkers of the VGA security chapter (slug ``vga_security``; presentation floor).

Every ``check_<name>(answer, ...)`` compares the student's answer with the library and returns a
:class:`~qring_edu.exercises.Feedback`. ``answer=None`` means "not attempted"; any other input,
however malformed, gives a failing feedback with a hint: nothing raises and nothing is
evaluated. Tolerances are stated in each docstring.
"""

from __future__ import annotations

from ..vga_security import amplified_leak_probability
from ._base import Feedback, as_number, bad_parameters, compare_number, failed

__all__ = ["check_amplified_leak"]


def check_amplified_leak(answer, n_copies: int, bad_copies: int, amplification: int) -> Feedback:
    """Probability that an entry leaks under privacy amplification when its k registers are a
    secret uniformly random k-subset of the N delivered ones, B of them attacked:
    ``C(B, k)/C(N, k)`` (:func:`qring_edu.amplified_leak_probability`). Relative tolerance 1e-3.

    Examples
    --------
    >>> from qring_edu.exercises.vga_security import check_amplified_leak
    >>> check_amplified_leak(250 * 249 / (1000 * 999), 1000, 250, 2).passed   # C(B, k) / C(N, k)
    True
    >>> print(check_amplified_leak(0.25, 1000, 250, 2).message)
    leak probability with k = 2: 0.25 is not right (tolerance 6.23123e-05). Check your formula. The entry leaks only if all k of its registers are attacked: (B/N)((B-1)/(N-1))... for k factors.
    """
    try:
        expected = amplified_leak_probability(n_copies, bad_copies, amplification)
    except (TypeError, ValueError) as exc:
        return bad_parameters(exc)
    fb = compare_number(
        answer,
        expected,
        tol=max(1e-3 * expected, 1e-12),
        what=f"leak probability with k = {amplification}",
    )
    if not fb.passed and as_number(answer, "")[1] is None:
        return failed(
            fb.message + " The entry leaks only if all k of its registers are "
            "attacked: (B/N)((B-1)/(N-1))... for k factors."
        )
    return fb
