"""Exercise checkers of the section *Training over the ring* of chapter 3 (presentation floor).
The rules every checker keeps are in :mod:`~qring_edu.exercises._base`.
:func:`check_parameter_shift` is code-graded: it runs the reader's function on seeded instances
of the variational classifier against :func:`qring_edu.vqc.vqc_score_gradient`.
"""

from __future__ import annotations

import inspect
import math

import numpy as np

from .._validate import check_bits, check_float, check_int
from ..fixedpoint import fixed_point
from ..training import gradient_budget, train_data_parallel
from ..vqc import VQC_LAYERS, VQC_QUBITS, vqc_n_parameters, vqc_score_gradient, vqc_scores
from ._base import (
    Feedback,
    as_number,
    call_reader,
    checker,
    compare_integer,
    failed,
    grade,
    not_attempted,
    passed,
)

__all__ = [
    "check_parameter_shift",
    "check_circuits_per_step",
    "check_crossover_params",
    "check_bandwidth_ratio",
    "check_update_jump",
]

#: Parameters the parameter-shift checker asks for: the first, one in the middle layer, the last.
SHIFT_INDICES = (0, 7, 17)


class _RecordingScore:
    """``score(theta) = vqc_scores(theta, X)``, remembering every parameter vector it was given."""

    __name__ = "score"

    def __init__(self, X: np.ndarray):
        self.X = X
        self.calls: list[np.ndarray] = []

    def __call__(self, theta):
        t = np.array(theta, dtype=float, copy=True)
        self.calls.append(t)
        return vqc_scores(t, self.X)


def _shifts(calls, theta: np.ndarray, j: int):
    """The offsets the reader's evaluation points have from theta: ``(index set, offsets)``."""
    moved, offsets = set(), []
    for t in calls:
        if t.shape != theta.shape:
            continue
        delta = t - theta
        nz = np.flatnonzero(np.abs(delta) > 1e-15)
        moved.update(int(i) for i in nz)
        if nz.size == 1 and nz[0] == j:
            offsets.append(float(delta[j]))
    return moved, offsets


@checker
def check_parameter_shift(answer, *, seed: int = 0, samples: int = 3) -> Feedback:
    """Grade the reader's ``shift_gradient(score, theta, j)``: ``∂score/∂θ_j`` by the parameter-shift
    rule, where ``score(theta)`` returns the VQC's scores of ``samples`` inputs and ``theta`` has 18
    angles. For ``j`` in 0, 7 and 17 and a seeded ``theta``, against
    :func:`qring_edu.vqc.vqc_score_gradient` (1e-9), with hints for the missing ½, a shift s ≠ π/2
    without 1/(2 sin s), finite differences, the wrong parameter and ``theta`` changed in place.

    Examples
    --------
    >>> import numpy as np
    >>> def shift_gradient(score, theta, j):
    ...     e = np.zeros_like(theta)
    ...     e[j] = np.pi / 2
    ...     return (score(theta + e) - score(theta - e)) / 2
    >>> check_parameter_shift(shift_gradient).passed
    True
    """
    what = "parameter-shift gradient"
    if answer is None:
        return not_attempted(f"the {what} (answer = shift_gradient)")
    if not callable(answer):
        return failed(
            f"{what}: expected your function shift_gradient (its name, without "
            f"calling it), got {type(answer).__name__}."
        )
    seed = check_int(seed, "seed", 0)
    samples = check_int(samples, "samples", 1, 100)
    rng = np.random.default_rng([seed, 19])
    n = vqc_n_parameters(VQC_QUBITS, VQC_LAYERS)
    theta = 0.5 * rng.standard_normal(n)
    X = np.c_[rng.uniform(-1.0, 2.0, samples), rng.uniform(-0.5, 1.0, samples)]
    truth = vqc_score_gradient(theta, X)  # (samples, n)
    for j in SHIFT_INDICES:
        score = _RecordingScore(X)
        given = theta.copy()
        result, fb = call_reader(answer, score, given, j, name="shift_gradient")
        if fb is not None:
            return fb
        case = f"{what} for θ_{j}"
        if not np.array_equal(given, theta):
            return failed(
                f"{case}: your function changed theta in place. Shift a copy "
                "(theta.copy()), so that the caller's parameters do not move."
            )
        try:
            value = np.asarray(result, dtype=float)
        except (TypeError, ValueError):
            return failed(
                f"{case}: expected an array of {samples} numbers (one per input), got "
                f"{type(result).__name__}."
            )
        expected = truth[:, j]
        moved, offsets = _shifts(score.calls, theta, j)
        small = [abs(o) for o in offsets if abs(o) < 1e-2]
        if small:  # accurate or not: a finite difference is not the shift rule
            return failed(
                f"{case}: you evaluated at θ ± {small[0]:.1e}: that is a finite "
                "difference, an approximation. The parameter-shift rule is exact, "
                "with shifts of ±π/2."
            )
        if value.shape != expected.shape:
            return failed(
                f"{case}: expected shape {expected.shape} (one derivative per input, "
                f"what score returns), got {value.shape}."
            )
        if np.all(np.abs(value - expected) <= 1e-9):
            continue
        if not score.calls:
            return failed(
                f"{case}: your function never called score; the rule needs the "
                "scores at θ + s·e_j and θ − s·e_j."
            )
        if moved and j not in moved:
            return failed(
                f"{case}: you shifted parameter(s) {sorted(moved)}, not θ_{j}; shift only entry j."
            )
        if np.allclose(value, 2 * expected, atol=1e-9):
            return failed(
                f"{case}: twice the right value. The rule is "
                "[f(θ + π/2 e_j) − f(θ − π/2 e_j)] / 2: the ½ is missing."
            )
        for s in {abs(o) for o in offsets}:
            if abs(s - math.pi / 2) > 1e-12 and np.allclose(
                value, math.sin(s) * expected, atol=1e-9
            ):
                return failed(
                    f"{case}: with shifts ±{s:.4g} the difference "
                    "[f(θ + s) − f(θ − s)] / 2 is sin(s) times the derivative. Use "
                    "s = π/2, or divide by 2 sin(s)."
                )
        i = int(np.argmax(np.abs(value - expected)))
        return failed(
            f"{case}: input {i} gives {value[i]:.6g}, the exact derivative is "
            f"{expected[i]:.6g} (tolerance 1e-9). The rule: "
            "[f(θ + π/2 e_j) − f(θ − π/2 e_j)] / 2."
        )
    return passed(f"{what}: correct for θ_0, θ_7 and θ_17 on {samples} inputs (exact to 1e-9).")


def _default(name: str):
    return inspect.signature(train_data_parallel).parameters[name].default


@checker
def check_circuits_per_step(
    answer, batch_size: int | None = None, n_params: int | None = None
) -> Feedback:
    """Circuit evaluations one worker needs per VQC training step: per input of its mini-batch, the
    unshifted score and two shifted scores per parameter, ``batch_size (2 n_params + 1)``
    (defaults: :func:`qring_edu.train_data_parallel`'s batch, 16, and 18 angles). Exact.

    Examples
    --------
    >>> check_circuits_per_step(16 * (2 * 18 + 1)).passed
    True
    """
    batch = check_int(_default("batch_size") if batch_size is None else batch_size, "batch_size", 1)
    n = check_int(vqc_n_parameters() if n_params is None else n_params, "n_params", 1)
    expected = batch * (2 * n + 1)
    what = f"circuit evaluations per worker and step (batch {batch}, {n} parameters)"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    hints = {
        batch * 2 * n: "That is the gradient alone. The loss (and the chain rule of the "
        "cross-entropy) also needs each input's unshifted score.",
        batch * n: "Each parameter needs two shifted evaluations, not one.",
        2 * n + 1: "That is one input; the worker's mini-batch has more.",
        2 * n: "That is one input's gradient; the mini-batch has more inputs, and the loss "
        "needs the unshifted scores.",
    }
    if value == int(value) and int(value) in hints and int(value) != expected:
        return failed(f"{what}: {int(value)} is not right. {hints[int(value)]}")
    return compare_integer(
        answer,
        expected,
        what=what,
        hint="Count, per input, the evaluations of the shift rule and of the loss.",
    )


@checker
def check_crossover_params(
    answer, workers: int = 4, bits: int = 16, alpha: float = 10e-6, beta: float = 1e-11
) -> Feedback:
    """Gradient size d at which the classical ring's bandwidth term equals its latency term,
    ``ceil(d/P) b beta = alpha``, i.e. ``d* = P alpha / (b beta)``
    (:attr:`qring_edu.training.GradientBudget.crossover_params`). Relative tolerance 1e-6.

    Examples
    --------
    >>> check_crossover_params(250_000).passed           # P alpha / (b beta)
    True
    """
    P = check_int(workers, "workers", 2)
    b = check_bits(bits)
    a = check_float(alpha, "alpha", 0.0, lo_open=True)
    be = check_float(beta, "beta", 0.0, lo_open=True)
    expected = gradient_budget(1, workers=P, bits=b, alpha=a, beta=be).crossover_params
    what = f"parameters where bandwidth and latency terms are equal (P = {P}, b = {b})"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    cases = {
        a / (b * be): f"{value:,.0f} forgets that each message carries only a chunk of d/P words.",
        P * a / be: f"{value:,.0f} counts words, not bits: a word has b bits.",
        expected: f"correct ({expected:,.0f}).",
        ...: f"{value:g} is not right (relative tolerance 1e-6). Set the bandwidth "
        "term of one message, (d/P)·b·β, equal to its latency α.",
    }
    return grade(value, expected, what, cases, rel=1e-6)


@checker
def check_bandwidth_ratio(
    answer,
    n_params: int = 18,
    workers: int = 4,
    bits: int = 16,
    alpha: float = 10e-6,
    beta: float = 1e-11,
) -> Feedback:
    """The classical ring's bandwidth term over its latency term for a gradient of ``n_params``
    entries, ``ceil(d/P) b beta / alpha``
    (:attr:`qring_edu.training.GradientBudget.bandwidth_ratio`). Relative tolerance 1e-6.

    Examples
    --------
    >>> check_bandwidth_ratio(8e-5).passed              # ceil(18 / 4) x 16 x 1e-11 / 1e-5
    True
    """
    budget = gradient_budget(n_params, workers=workers, bits=bits, alpha=alpha, beta=beta)
    expected = budget.bandwidth_ratio
    what = f"bandwidth term / latency term ({n_params} parameters, P = {workers})"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    cases = {
        n_params / workers * bits * beta / alpha: f"{value:.3g} uses d/P = "
        f"{n_params / workers:g} words; chunks are whole words and the ring waits for the "
        f"largest, ceil(d/P) = {-(-n_params // workers)}.",
        n_params * bits * beta / alpha: f"{value:.3g} sends the whole gradient in one message; "
        "each ring message carries one chunk.",
        expected: f"correct ({expected:.3g}); halving the bandwidth term saves "
        f"{budget.saving:.2g} of the all-reduce.",
        ...: f"{value:.3g} is not right (relative tolerance 1e-6). One message: α + ceil(d/P)·b·β.",
    }
    return grade(value, expected, what, cases, rel=1e-6)


@checker
def check_update_jump(
    answer, workers: int = 4, bits: int = 16, clip: float = 1.0, lr: float = 1.0
) -> Feedback:
    """How far one parameter moves in one step when the sign bit of one summed gradient entry flips:
    ``lr 2**(b-1) / (s P)`` (:func:`qring_edu.fixed_point` with ``max_abs = clip``). Relative
    tolerance 1e-6, sign ignored.

    Examples
    --------
    >>> from qring_edu import fixed_point
    >>> s = fixed_point(4, 16, 1.0).scale
    >>> check_update_jump(2**15 / s / 4).passed          # the sum jumps by 2**(b-1) / s, w by that / P
    True
    """
    codec = fixed_point(workers, bits, clip)
    lr = check_float(lr, "lr", 0.0, lo_open=True)
    top = 1 << (codec.bits - 1)
    flipped, zero = codec.decode(np.array([top, 0], dtype=np.uint32))
    jump = abs(float(flipped - zero))
    expected = lr * jump / codec.workers
    what = f"parameter jump from a top-bit flip (P = {codec.workers}, b = {codec.bits}, clip = {clip:g})"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    value = abs(value)
    cases = {
        lr * jump: f"{value:.5g} is the change of the sum; the update divides the sum by P.",
        lr * 2 * jump / codec.workers: "off by a factor of two: the top bit of a b-bit word is "
        "worth 2**(b−1), not 2**b.",
        expected: f"correct ({expected:.5g}): about lr·clip, one whole clipped "
        "gradient step in one angle.",
        ...: f"{value:.5g} is not right (relative tolerance 1e-6). The word of the "
        f"sum is value·s with s = {codec.scale:g}; the update is lr·sum/P.",
    }
    return grade(value, expected, what, cases, rel=1e-6)
